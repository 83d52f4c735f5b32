package rerank_test

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/braidsearch/braid/rerank"
)

// overlap is a stand-in Scorer that counts the query words in a passage;
// braid passes a *model.CrossEncoder.
type overlap struct{}

func (overlap) Score(_ context.Context, query string, passages []string) ([]float32, error) {
	out := make([]float32, len(passages))
	for i, p := range passages {
		for _, w := range strings.Fields(query) {
			out[i] += float32(strings.Count(p, w))
		}
	}
	return out, nil
}

func Example() {
	ps := []rerank.Passage{
		{ID: "a", Text: "Cold water from the river."},
		{ID: "b", Text: "Plugins load from the plugins folder when the app starts."},
		{ID: "c", Text: "How the cache keeps plugins."},
	}
	r := rerank.New(overlap{}, rerank.Options{Top: 2})
	out, err := r.Rerank(context.Background(), "plugins load", ps)
	if err != nil {
		fmt.Println(err)
		return
	}
	// Reorder the reranked prefix by score; the rest keeps its place.
	order := []int{0, 1}
	slices.SortStableFunc(order, func(i, j int) int {
		switch {
		case out.Scores[i] > out.Scores[j]:
			return -1
		case out.Scores[i] < out.Scores[j]:
			return 1
		}
		return 0
	})
	for _, i := range order {
		fmt.Println(ps[i].ID, out.Scores[i])
	}
	fmt.Println(ps[2].ID, "not reranked; reranked", out.Reranked)
	// Output:
	// b 2
	// a 0
	// c not reranked; reranked 2
}

func ExampleWindow() {
	text := "Braid indexes notes. " + strings.Repeat("Filler words here. ", 10) +
		"Plugins load lazily from disk. " + strings.Repeat("More filler. ", 10)
	fmt.Println(rerank.Window("how do plugins load", text, 8))
	// Output:
	// Plugins load lazily from disk. More filler
}
