package braid_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/braidsearch/braid"
)

// A missing cross-encoder is warned of only where the user asked for one
// (issue 35, point 2): a search with Rerank, or any search not asked to be
// BM25 only when the engine's reranker was named. The default reranker
// not being installed is silent in searches (Capabilities, braid doctor
// and braid stats say it), and a keyword or weight-0 search that did not
// ask never mentions reranking. What is said is said once per engine.
func TestRerankWarningOnlyWhenAsked(t *testing.T) {
	ctx := context.Background()
	why := "no cross-encoder installed; braid models pull ms-marco-MiniLM-L-6-v2 --from DIR adds it"
	said := "results are not reranked: " + why
	dir := writeVault(t, vault)
	zero := 0.0
	plain := braid.SearchOptions{}
	keyword := braid.SearchOptions{Keyword: true}
	weight0 := braid.SearchOptions{VectorWeight: &zero}
	asked := braid.SearchOptions{Rerank: true}
	tests := []struct {
		name     string
		named    bool // the engine's reranker was named (--reranker)
		searches []braid.SearchOptions
		want     []string // each search's warning
	}{
		{"default reranker missing", false, []braid.SearchOptions{plain, keyword, weight0, plain}, []string{"", "", "", ""}},
		{"default missing, rerank asked", false, []braid.SearchOptions{plain, asked, asked, plain}, []string{"", said, "", ""}},
		{"default missing, keyword asked", false, []braid.SearchOptions{{Keyword: true, Rerank: true}}, []string{""}},
		{"named reranker missing", true, []braid.SearchOptions{keyword, weight0, plain, plain}, []string{"", "", said, ""}},
		{"no rerank wanted", true, []braid.SearchOptions{{NoRerank: true}, plain}, []string{"", said}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := indexed(t, &braid.Options{NoRerank: why, RerankNamed: tc.named}, dir)
			var got []string
			for _, opt := range tc.searches {
				res, err := e.Search(ctx, "garden", opt)
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, res.Warning)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
			if c := e.Capabilities(); c.NoRerank != why || c.Rerank {
				t.Errorf("Capabilities %+v, want NoRerank %q whatever searches said", c, why)
			}
		})
	}
}

// When vectors and reranking are missing for the same reason (no ONNX
// Runtime) and both were asked for, the reason is given once.
func TestNoRerankSameCauseAsVectors(t *testing.T) {
	why := "no ONNX Runtime found; set BRAID_ORT_LIB to one, braid doctor says where it looked"
	e := indexed(t, &braid.Options{NoVectors: why, NoRerank: why, RerankNamed: true}, writeVault(t, vault))
	w := 0.5
	res, err := e.Search(context.Background(), "garden", braid.SearchOptions{VectorWeight: &w})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(res.Warning, why) != 1 || !strings.HasSuffix(res.Warning, "; results are not reranked either") {
		t.Errorf("warning %q, want the reason once and the rerank clause pointing at it", res.Warning)
	}
	// The default reranker, not asked for: the vector warning alone.
	e = indexed(t, &braid.Options{NoVectors: why, NoRerank: why}, writeVault(t, vault))
	if res, err = e.Search(context.Background(), "garden", braid.SearchOptions{VectorWeight: &w}); err != nil {
		t.Fatal(err)
	}
	if strings.Count(res.Warning, why) != 1 || strings.Contains(res.Warning, "rerank") {
		t.Errorf("warning %q, want the vector reason alone", res.Warning)
	}
}
