package braid_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/braidsearch/braid"
)

// Results.Total counts the chunks that matched, never fewer than the hits
// shown: a hybrid search whose words BM25 does not find (a stop word, a
// word no note has) still shows vector hits, and its total counts them
// (issue 35, point 4a: --limit 100 "the" gave 100 results and total 0).
func TestTotalCountsWhatMatched(t *testing.T) {
	ctx := context.Background()
	notes := map[string]string{}
	for i := range 30 {
		notes[fmt.Sprintf("n%02d.md", i)] = fmt.Sprintf("# Note %d\n\nThe garden note number %d.\n", i, i)
	}
	notes["solar.md"] = "# Solar\n\nSolar panels on the roof.\n"
	e := indexed(t, &braid.Options{Embedder: hashEmbedder{}, Model: "test/hash"}, writeVault(t, notes))
	zero, half, one := 0.0, 0.5, 1.0
	type got struct{ Hits, Total int }
	for _, tc := range []struct {
		name  string
		query string
		opt   braid.SearchOptions
		want  got
	}{
		{"keyword: BM25's matches", "solar", braid.SearchOptions{Keyword: true}, got{1, 1}},
		{"keyword: no match", "zyxwv", braid.SearchOptions{Keyword: true}, got{0, 0}},
		{"weight 0: BM25's matches", "garden", braid.SearchOptions{VectorWeight: &zero, Limit: 5}, got{5, 30}},
		{"hybrid: BM25 finds nothing", "zyxwv", braid.SearchOptions{VectorWeight: &half, Limit: 20}, got{20, 31}},
		{"hybrid: more matches than shown", "garden", braid.SearchOptions{VectorWeight: &half, Limit: 5}, got{5, 31}},
		{"vector only", "zyxwv", braid.SearchOptions{VectorWeight: &one, Limit: 100}, got{31, 31}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := e.Search(ctx, tc.query, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got{len(res.Results), res.Total}); diff != "" {
				t.Errorf("hits and total (-want +got):\n%s", diff)
			}
		})
	}
}
