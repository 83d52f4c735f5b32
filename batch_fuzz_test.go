package braid

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestDecodeBatchLine(t *testing.T) {
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
		{"negative limit", `{"query": "a", "limit": -1}`, "limit -1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, bad := decodeBatchLine(7, []byte(tt.line))
			if tt.err == "" {
				if bad != nil || q.Query == "" {
					t.Fatalf("decodeBatchLine(%q) = %+v, %+v; want a query", tt.line, q, bad)
				}
				return
			}
			if bad == nil || bad.Line != 7 || !strings.Contains(bad.Error, tt.err) {
				t.Fatalf("decodeBatchLine(%q) answer %+v, want an error on line 7 containing %q", tt.line, bad, tt.err)
			}
		})
	}
}

// FuzzDecodeBatchLine checks that no input line panics the decoder, that a
// refused line gives an error answer with its line number that encodes as
// JSON, and that a query json writes decodes back to the same query.
func FuzzDecodeBatchLine(f *testing.F) {
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
		const line = 5
		q, bad := decodeBatchLine(line, text)
		if bad != nil {
			if bad.Line != line || bad.Error == "" || bad.Results != nil {
				t.Fatalf("decodeBatchLine(%q) answer %+v, want an error for line %d", text, bad, line)
			}
			if _, err := json.Marshal(bad); err != nil {
				t.Fatalf("decodeBatchLine(%q): the error answer does not encode: %v", text, err)
			}
		} else if q.Limit < 0 || q.Candidates < 0 {
			t.Fatalf("decodeBatchLine(%q) accepted limit %d, candidates %d", text, q.Limit, q.Candidates)
		}
		if !utf8.ValidString(query) {
			return
		}
		in, err := json.Marshal(map[string]any{"id": 9, "query": query, "limit": limit})
		if err != nil {
			t.Fatal(err)
		}
		q, bad = decodeBatchLine(line, in)
		switch {
		case limit < 0:
			if bad == nil {
				t.Fatalf("decodeBatchLine(%s) accepted a negative limit", in)
			}
		case bad != nil || string(q.ID) != "9" || q.Limit != limit || q.Query != query:
			t.Fatalf("decodeBatchLine(%s) = %+v, %+v; want query %q, limit %d", in, q, bad, query, limit)
		}
	})
}
