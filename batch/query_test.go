package batch

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestDecode(t *testing.T) {
	tests := []struct {
		name, line string
		err        string // part of the error; "" means the line is a query
	}{
		{"query", `{"id": 1, "query": "a b", "limit": 3, "vector_weight": 0.5, "rerank": false}`, ""},
		{"blank around", " \t{\"query\": \"a\"}  ", ""},
		{"unknown field", `{"query": "a", "lmit": 3}`, `unknown field "lmit"`},
		{"broken", `{broken`, "not a query object"},
		{"null", `null`, "not a query object"},
		{"array", `[{"query": "a"}]`, "not a query object"},
		{"wrong type", `{"query": 5}`, "not a query object"},
		{"two objects", `{"query": "a"} {"query": "b"}`, "more after the query object"},
		{"trailing garbage", `{"query": "a"} x`, "more after the query object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := Decode([]byte(tt.line))
			if tt.err == "" {
				if err != nil || q.Query == "" {
					t.Fatalf("Decode(%q) = %+v, %v; want a query", tt.line, q, err)
				}
				return
			}
			if err == nil || !strings.HasPrefix(err.Error(), "batch: ") || !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("Decode(%q) error %v, want one starting batch: containing %q", tt.line, err, tt.err)
			}
		})
	}
}

// FuzzDecode checks that no input line panics the decoder, that a refused
// line gives an error and an id that encodes as JSON (the error answer's),
// and that a query json writes decodes back to the same query.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"id": 1, "query": "a b", "limit": 3}`,
		`{"id": "x", "query": "\"p q\" -r", "sources": ["s"], "tags": ["t"], "rerank": true}`,
		`{"id": {"n": [1]}, "query": "a", "candidates": -2}`,
		`{"id": 1, "query": 2}`, `{"id": 1`, `{}`, `null`, `[]`, `"q"`, `1`, `{} {}`, `{}]`, "{\"query\": \"\xff\"}",
		`{"vector_weight": "x"}`, `{"vector_weight": 1e400}`, `{"id": 1, "bogus": 2}`,
	} {
		f.Add([]byte(s), "query", 3)
	}
	f.Fuzz(func(t *testing.T, text []byte, query string, limit int) {
		q, err := Decode(text)
		if err != nil {
			if err.Error() == "batch: " || q.Query != "" {
				t.Fatalf("Decode(%q) = %+v, %v; want an error and the id alone", text, q, err)
			}
			if _, err := json.Marshal(q.ID); err != nil {
				t.Fatalf("Decode(%q): the error answer's id does not encode: %v", text, err)
			}
		}
		if !utf8.ValidString(query) {
			return
		}
		in, err := json.Marshal(map[string]any{"id": 9, "query": query, "limit": limit})
		if err != nil {
			t.Fatal(err)
		}
		q, err = Decode(in)
		switch { // the limit's range is checked where the line is searched
		case err != nil || string(q.ID) != "9" || q.Limit != limit || q.Query != query:
			t.Fatalf("Decode(%s) = %+v, %v; want query %q, limit %d", in, q, err, query, limit)
		}
	})
}

func TestID(t *testing.T) {
	for text, want := range map[string]string{
		`{"id": "a", "query": 5}`: `"a"`, `{"id": [1, 2]}`: `[1, 2]`, `{"query": "q"}`: "", `{broken`: "", `[1]`: "",
	} {
		if got := string(ID([]byte(text))); got != want {
			t.Errorf("ID(%s) = %s, want %s", text, got, want)
		}
	}
}
