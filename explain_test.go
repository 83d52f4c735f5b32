package braid_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/internal/testenv"
)

// A hit's explanation is small, structured and valid UTF-8: BM25 as
// {score, terms: [{field, term, tf, idf, ...}]} rather than bleve's tree
// with NUL bytes, only with Explain; and a lexical hit's fused score is
// its score, not 0 (issue 35, point 4e).
func TestExplainIsStructured(t *testing.T) {
	ctx := context.Background()
	e := indexed(t, nil, writeVault(t, vault))
	res, err := e.Search(ctx, "tomatoes sun", braid.SearchOptions{Keyword: true, Explain: true})
	if err != nil || len(res.Results) == 0 {
		t.Fatalf("search: %v, %+v", err, res)
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	if !utf8.Valid(b) || strings.Contains(string(b), `\u0000`) {
		t.Errorf("JSON is not clean UTF-8 without NUL: %s", b)
	}
	for _, h := range res.Results {
		x := h.Explain
		if x == nil || x.BM25 == nil || len(x.BM25.Terms) == 0 || x.BM25.Score != x.LexicalScore || x.Fused != h.Score {
			t.Fatalf("hit %s explain %+v: want a BM25 breakdown by term, and fused = score = %v", h.Path, x, h.Score)
		}
		for _, term := range x.BM25.Terms {
			if term.Field == "" || (term.Term != "tomato" && term.Term != "sun") || term.TF < 1 {
				t.Errorf("hit %s term %+v: want a field, one of the query's terms and its frequency", h.Path, term)
			}
		}
		if len(b) > 1500*len(res.Results) {
			t.Errorf("JSON of %d bytes for %d hits: want a few hundred bytes of explanation a hit", len(b), len(res.Results))
		}
	}
	res, err = e.Search(ctx, "tomatoes sun", braid.SearchOptions{Keyword: true})
	if err != nil {
		t.Fatal(err)
	}
	if b := testenv.Must1(json.Marshal(res))(t); strings.Contains(string(b), `"explain"`) || strings.Contains(string(b), `"bm25"`) {
		t.Errorf("JSON without Explain carries an explanation: %s", b)
	}
}
