package braid_test

import (
	"context"
	"strings"
	"testing"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/internal/modeltest"
	"github.com/braidsearch/braid/internal/testenv"
	"github.com/braidsearch/braid/rerank"
)

func TestRerankInSearch(t *testing.T) {
	ctx := context.Background()
	_, dir := indexedTiny(t)
	r := rerank.New(modeltest.TinyCross(t), rerank.Options{})
	e2, err := braid.Open(dir, &braid.Options{ReadOnly: true, Embedder: modeltest.Tiny(t), Model: "braid/tiny-encoder", Reranker: r})
	if err != nil {
		t.Fatal(err)
	}
	defer e2.Close()

	res, err := e2.Search(ctx, "tomatoes need sun", braid.SearchOptions{Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Reranked != len(hybridNotes) || res.RerankOf != len(hybridNotes) || res.Warning != "" {
		t.Fatalf("reranked %d of %d (warning %q), want every candidate", res.Reranked, res.RerankOf, res.Warning)
	}
	for i, h := range res.Results {
		x := h.Explain
		if h.Source != "hybrid+rerank" || !x.Reranked || x.RankAfter != i+1 || x.RankBefore < 1 || h.Score != x.RerankScore {
			t.Errorf("hit %d: source %q explain %+v", i, h.Source, x)
		}
		if i > 0 && h.Score > res.Results[i-1].Score {
			t.Errorf("hit %d scores %v above hit %d's %v: not in reranker order", i, h.Score, i-1, res.Results[i-1].Score)
		}
	}

	// Lexical search is reranked too; --no-rerank keeps the fused order.
	res, err = e2.Search(ctx, "tomatoes", braid.SearchOptions{VectorWeight: ptr(0)})
	if err != nil || res.Reranked != 1 || res.Results[0].Source != "lexical+rerank" {
		t.Errorf("lexical: %+v, %v; want one reranked hit", res, err)
	}
	res, err = e2.Search(ctx, "tomatoes need sun", braid.SearchOptions{NoRerank: true})
	if err != nil || res.Reranked != 0 || res.RerankOf != 0 || res.Results[0].Source != "hybrid" {
		t.Errorf("NoRerank: reranked %d of %d, source %q (%v)", res.Reranked, res.RerankOf, res.Results[0].Source, err)
	}
}

// A reranker the user named but that is missing is warned of
// (rerank_warning_test.go has the rest of the rule).
func TestNoRerankerWarns(t *testing.T) {
	ctx := context.Background()
	vault := writeVault(t, hybridNotes)
	e := openEngine(t, &braid.Options{NoRerank: "no reranker model installed: run braid models pull", RerankNamed: true})
	if _, err := e.Index(ctx, []braid.SourceSpec{{Path: vault}}, nil); err != nil {
		t.Fatal(err)
	}
	res, err := e.Search(ctx, "tomatoes", braid.SearchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Reranked != 0 || !strings.Contains(res.Warning, "not reranked") || res.Results[0].Source != "lexical" {
		t.Errorf("without a reranker: reranked %d, warning %q, source %q", res.Reranked, res.Warning, res.Results[0].Source)
	}
	res = testenv.Must1(e.Search(ctx, "tomatoes", braid.SearchOptions{NoRerank: true}))(t)
	if res.Warning != "" {
		t.Errorf("NoRerank without a reranker still warns: %q", res.Warning)
	}
}
