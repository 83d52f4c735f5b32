package braid

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/braidsearch/braid/batch"
)

// MaxBatchLine bounds one input line of Batch.
const MaxBatchLine = batch.MaxLine

// BatchOptions configures Batch (batch.Options). The zero value answers as
// many queries at once as there are CPUs.
type BatchOptions = batch.Options

// BatchSummary counts what Batch answered (batch.Summary).
type BatchSummary = batch.Summary

// batchQuery is one input line: the search options by their JSON names.
type batchQuery struct {
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

// batchAnswer is one output line.
type batchAnswer struct {
	ID    json.RawMessage `json:"id,omitempty"`
	Line  int             `json:"line,omitempty"` // with error: the input line
	Error string          `json:"error,omitempty"`
	*Results
}

// Batch answers the queries in, one JSON object a line ({"id", "query",
// "vector_weight", "limit", ...}: SearchOptions by their JSON names, and
// "rerank": false for NoRerank), with one JSON line each on out, in input
// order; blank lines are skipped. opt.Workers queries are searched at once.
// A line that is not a query, a search that fails and a search that panics
// are that line's answer {"id", "line", "error"}; the rest go on. Batch
// returns early, with the answers so far written, when in cannot be read
// (a line over MaxBatchLine), out cannot be written or ctx ends.
func Batch(ctx context.Context, e *Engine, in io.Reader, out io.Writer, opt BatchOptions) (BatchSummary, error) {
	if opt.Workers < 0 {
		return BatchSummary{}, fmt.Errorf("%w: BatchOptions.Workers %d, want 0 (the number of CPUs) or more", ErrBadOption, opt.Workers)
	}
	answer := func(ctx context.Context, line int, text []byte) (any, bool) {
		a := batchAnswerLine(ctx, e, line, text)
		return a, a.Error != ""
	}
	sum, err := batch.Run(ctx, in, out, opt, answer, batchPanicAnswer)
	if err != nil {
		return sum, fmt.Errorf("braid: %w", err)
	}
	return sum, nil
}

// decodeBatchLine reads one input line. A line that is not a query object
// gives an error answer naming the line.
func decodeBatchLine(line int, text []byte) (batchQuery, *batchAnswer) {
	var q batchQuery
	fail := func(msg string) (batchQuery, *batchAnswer) {
		id := q.ID
		if !json.Valid(id) {
			id = nil
		}
		return batchQuery{}, &batchAnswer{ID: id, Line: line, Error: msg}
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
	if q.Limit < 0 || q.Candidates < 0 {
		return fail(fmt.Sprintf("limit %d and candidates %d, want 0 (the default) or more", q.Limit, q.Candidates))
	}
	return q, nil
}

// batchPanicAnswer is the answer for a line whose search panicked with v:
// an error naming the line, with the line's id where it has one.
func batchPanicAnswer(line int, text []byte, v any) any {
	var q struct{ ID json.RawMessage }
	if json.Unmarshal(text, &q) != nil || !json.Valid(q.ID) {
		q.ID = nil
	}
	return batchAnswer{ID: q.ID, Line: line, Error: fmt.Sprintf("internal error: the search panicked (%v); the other queries went on; please report it", v)}
}

// batchSearch runs one query of Batch; a test replaces it to make a query
// fail in ways a real index does not.
var batchSearch = (*Engine).Search

// batchAnswerLine runs one input line.
func batchAnswerLine(ctx context.Context, e *Engine, line int, text []byte) batchAnswer {
	q, bad := decodeBatchLine(line, text)
	if bad != nil {
		return *bad
	}
	opt := SearchOptions{Limit: q.Limit, VectorWeight: q.VectorWeight, Keyword: q.Keyword, Sources: q.Sources,
		PathGlob: q.Path, Tags: q.Tags, Fuzzy: q.Fuzzy, Similarity: q.Similarity, Chunks: q.Chunks, Explain: q.Explain,
		Fusion: Fusion(q.Fusion), Normalize: Normalization(q.Normalize), Candidates: q.Candidates,
		NoRerank: q.Rerank != nil && !*q.Rerank}
	res, err := batchSearch(e, ctx, q.Query, opt)
	if err != nil {
		return batchAnswer{ID: q.ID, Line: line, Error: errorClause(err)}
	}
	return batchAnswer{ID: q.ID, Results: res}
}
