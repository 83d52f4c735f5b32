package batch

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// Query is one input line of a search batch: the root package's
// SearchOptions by their JSON names, "rerank": false for NoRerank and
// "rerank": true for Rerank (a warning when there is no reranker). ID
// is the caller's, echoed in the line's answer.
type Query struct {
	ID           json.RawMessage `json:"id"`
	Query        string          `json:"query"`
	VectorWeight *float64        `json:"vector_weight"`
	Limit        int             `json:"limit"`
	Keyword      bool            `json:"keyword"`
	Sources      []string        `json:"sources"`
	Path         string          `json:"path"`
	Tags         []string        `json:"tags"`
	Fuzzy        bool            `json:"fuzzy"`
	Similarity   float64         `json:"similarity"`
	Chunks       bool            `json:"chunks"`
	Explain      bool            `json:"explain"`
	Fusion       string          `json:"fusion"`
	Normalize    string          `json:"normalize"`
	Candidates   int             `json:"candidates"`
	Rerank       *bool           `json:"rerank"`
}

// Decode reads one input line as a Query: one JSON object of Query's
// fields and no others (their ranges are the search's, checked where the
// line is searched: the root package's SearchOptions.Check). A line that
// is not one is an error saying why, returned with a Query that holds only
// the line's id, where it has one that is valid JSON, for the error's
// answer.
func Decode(text []byte) (Query, error) {
	var q Query
	fail := func(msg string) (Query, error) {
		id := q.ID
		if !json.Valid(id) {
			id = nil
		}
		return Query{ID: id}, errors.New("batch: " + msg)
	}
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&q); err != nil {
		return fail("line is not a query object: " + err.Error())
	}
	if q.ID == nil && bytes.Equal(bytes.TrimSpace(text), []byte("null")) {
		return fail("line is not a query object: null")
	}
	if _, err := dec.Token(); err != io.EOF {
		return fail("line has more after the query object; put one object on each line")
	}
	return q, nil
}

// ID is a line's "id" where the line is a JSON object whose id is valid
// JSON, else nil: the id of an answer for a line that could not be
// answered otherwise (a PanicFunc's).
func ID(text []byte) json.RawMessage {
	var q struct{ ID json.RawMessage }
	if json.Unmarshal(text, &q) != nil || !json.Valid(q.ID) {
		return nil
	}
	return q.ID
}
