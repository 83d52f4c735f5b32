package opensearch_test

import (
	"context"
	"fmt"

	"github.com/braidsearch/braid/opensearch"
)

// A search as the engine makes one: BM25 candidates for the query
// `"tomato plants" water -soup` in one source's Markdown files, then the
// chunks' stored text for their snippets. It needs a running cluster, so
// it is compiled, not run.
func ExampleIndex_Lexical() {
	ctx := context.Background()
	x, err := opensearch.Open(ctx, opensearch.Options{URL: "http://127.0.0.1:9200"})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer x.Close()
	q := opensearch.LexQuery{Terms: "water", Phrases: []string{"tomato plants"}, Excluded: []string{"soup"}}
	hits, total, err := x.Lexical(ctx, q, opensearch.Filter{Sources: []string{"3fa9c2"}, PathGlob: "**/*.md"}, 10)
	if err != nil {
		fmt.Println(err)
		return
	}
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ChunkID
	}
	chunks, err := x.Chunks(ctx, ids)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d of %d matching chunks\n", len(hits), total)
	for i, c := range chunks {
		if c != nil { // deleted since the search
			fmt.Printf("%.3f %s:%d %s\n", hits[i].Score, c.Path, c.StartLine, c.Text)
		}
	}
}
