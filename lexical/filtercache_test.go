package lexical

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/braidsearch/braid/query"
)

// A filtered search answered from the filter cache answers as bleve's
// searchers do on an index that changes between searches: chunks deleted
// from a segment the cache holds the filter's documents for, and chunks
// added in new segments.
func TestFilterCacheFollowsChanges(t *testing.T) {
	l, err := Open(filepath.Join(t.TempDir(), "lex"), false, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	metaOf := func(id string) ChunkMeta {
		var d int
		fmt.Sscanf(id, "doc%d", &d)
		return ChunkMeta{Title: "note", Path: id + ".md", SourceID: fmt.Sprintf("s%d", d%2)}
	}
	var all []Chunk
	for d := range 40 {
		doc := fmt.Sprintf("doc%03d", d)
		all = append(all, Chunk{ID: doc + "#00000000.0", DocID: doc, Text: fmt.Sprintf("shared words alpha beta %d", d)})
	}
	if _, err := l.Apply(1, nil, all, metaOf); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	q, err := query.Parse("alpha beta")
	if err != nil {
		t.Fatal(err)
	}
	req := Request{Query: q, Size: 100, SourceIDs: []string{"s0"}}
	check := func(step string, want int) {
		t.Helper()
		got, total, err := l.searchWith(ctx, req, true)
		if err != nil {
			t.Fatal(err)
		}
		bleveHits, bleveTotal, err := l.searchWith(ctx, req, false)
		if err != nil {
			t.Fatal(err)
		}
		if total != want || bleveTotal != want || len(got) != want {
			t.Fatalf("%s: %d matches (%d hits), bleve %d; want %d", step, total, len(got), bleveTotal, want)
		}
		if err := sameRanking(got, bleveHits, req.Size, false); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
	}
	check("first", 20)
	check("cached", 20)
	if l.filters.lru.Len() != 1 {
		t.Fatalf("the filter cache holds %d entries after two searches with one filter, want 1", l.filters.lru.Len())
	}
	// doc000 and doc002 are s0's: deleted from the segment cached.
	if _, err := l.Apply(2, []string{"doc000#00000000.0", "doc002#00000000.0", "doc001#00000000.0"}, nil, metaOf); err != nil {
		t.Fatal(err)
	}
	check("after deleting two", 18)
	add := []Chunk{{ID: "doc100#00000000.0", DocID: "doc100", Text: "alpha beta again"}, {ID: "doc101#00000000.0", DocID: "doc101", Text: "alpha beta too"}}
	if _, err := l.Apply(3, nil, add, metaOf); err != nil {
		t.Fatal(err)
	}
	check("after adding one of s0", 19)
}
