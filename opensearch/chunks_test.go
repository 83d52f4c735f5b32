package opensearch_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/braidsearch/braid/opensearch"
)

func testChunks(t *testing.T, url string) {
	ctx := t.Context()
	x := open(t, opensearch.Options{URL: url, Index: "chunks-test", Dim: 4})
	full := opensearch.Doc{
		ChunkID: "full", DocID: "doc-full", Source: "s1", Path: "notes/full.md", Title: "Full",
		Headings: "Part one Zanzibar", Content: "Full\nPart one Zanzibar\nevery field set", Tags: []string{"a", "b"},
		Ord: 0, StartLine: 3, EndLine: 9, Vector: []float32{1, 2, 3, 4},
		Text: "every field set — naïve “quotes” and\nlines", HeadingPath: []string{"Part one", "Zanzibar"},
		DocHash: "9f2c", Kind: "markdown", Aliases: []string{"complete", "all fields"}, Lines: 42,
	}
	docs := []opensearch.Doc{full}
	// A big document, put with its chunks out of order, and many small ones.
	const bigN, smallN = 700, 600
	rng := rand.New(rand.NewPCG(1, 2))
	for _, i := range rng.Perm(bigN) {
		docs = append(docs, opensearch.Doc{ChunkID: fmt.Sprintf("big-%04d", i), DocID: "big", Source: "s1", Path: "big.txt", Ord: i, Content: "big"})
	}
	var small []string
	for i := range smallN {
		id := fmt.Sprintf("small-%03d", i)
		small = append(small, id)
		docs = append(docs, opensearch.Doc{ChunkID: id + "#0", DocID: id, Source: "s2", Path: id + ".txt", Content: "small"})
	}
	if err := x.Put(ctx, docs); err != nil {
		t.Fatal(err)
	}

	// Before any refresh: a multi-get reads the latest writes.
	got, err := x.Chunks(ctx, []string{"full", "missing", "big-0003", "full"})
	if err != nil {
		t.Fatal(err)
	}
	want := full
	want.Vector = nil
	big3 := &opensearch.Doc{ChunkID: "big-0003", DocID: "big", Source: "s1", Path: "big.txt", Ord: 3, Content: "big"}
	if d := cmp.Diff([]*opensearch.Doc{&want, nil, big3, &want}, got); d != "" {
		t.Errorf("Chunks (-want +got):\n%s", d)
	}

	// More IDs than one multi-get takes, in request order.
	var all []string
	for _, d := range docs {
		all = append(all, d.ChunkID)
	}
	all = slices.Insert(all, 600, "missing-too")
	got, err = x.Chunks(ctx, all)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(all) {
		t.Fatalf("Chunks of %d IDs returned %d", len(all), len(got))
	}
	for i, d := range got {
		switch {
		case all[i] == "missing-too" && d != nil:
			t.Errorf("Chunks[%d] = %+v for an ID never put, want nil", i, d)
		case all[i] != "missing-too" && (d == nil || d.ChunkID != all[i]):
			t.Errorf("Chunks[%d] = %+v, want chunk %s", i, d, all[i])
		}
	}
	if got, err := x.Chunks(ctx, nil); err != nil || len(got) != 0 {
		t.Errorf("Chunks(nil) = %v, %v; want none", got, err)
	}

	if err := x.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	t.Run("stored, not searched", func(t *testing.T) {
		// Zanzibar is in Content (which holds the headings, as braid
		// builds it), so searchable; the words of Text, HeadingPath and
		// Aliases only are not.
		for q, want := range map[string]int{"zanzibar": 1, "naïve": 0, "quotes": 0, "complete": 0, "9f2c": 0, "markdown": 0} {
			_, total, err := x.Lexical(ctx, opensearch.LexQuery{Terms: q}, opensearch.Filter{}, 1)
			if err != nil {
				t.Fatal(err)
			}
			if total != want {
				t.Errorf("Lexical(%q) matched %d chunks, want %d", q, total, want)
			}
		}
	})

	t.Run("DocChunks", func(t *testing.T) {
		got, err := x.DocChunks(ctx, "big")
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != bigN {
			t.Fatalf("DocChunks(big) gave %d chunks, want %d", len(got), bigN)
		}
		for i, d := range got {
			if d.Ord != i || d.ChunkID != fmt.Sprintf("big-%04d", i) || d.Vector != nil {
				t.Fatalf("DocChunks(big)[%d] = %+v, want chunk big-%04d (Ord %d), no vector", i, d, i, i)
			}
		}
		got, err = x.DocChunks(ctx, "doc-full")
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff([]*opensearch.Doc{&want}, got); d != "" {
			t.Errorf("DocChunks(doc-full) (-want +got):\n%s", d)
		}
		if got, err := x.DocChunks(ctx, "no-such-doc"); err != nil || len(got) != 0 {
			t.Errorf("DocChunks of a missing document = %v, %v; want none", got, err)
		}
	})

	t.Run("Count and DeleteDocs", func(t *testing.T) {
		count := func(wantChunks, wantDocs int) {
			t.Helper()
			chunks, docs, err := x.Count(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if chunks != wantChunks || docs != wantDocs {
				t.Errorf("Count = %d chunks of %d documents, want %d of %d", chunks, docs, wantChunks, wantDocs)
			}
		}
		count(1+bigN+smallN, 2+smallN)
		if err := x.DeleteDocs(ctx, nil); err != nil {
			t.Errorf("DeleteDocs(nil): %v", err)
		}
		// More documents than one delete-by-query takes, and one unknown;
		// no Refresh: DeleteDocs refreshes.
		if err := x.DeleteDocs(ctx, append(slices.Clone(small), "no-such-doc")); err != nil {
			t.Fatal(err)
		}
		count(1+bigN, 2)
		got, err := x.Chunks(ctx, []string{"small-000#0", "small-599#0", "full"})
		if err != nil {
			t.Fatal(err)
		}
		if got[0] != nil || got[1] != nil || got[2] == nil {
			t.Errorf("after DeleteDocs, Chunks = %v, want the small documents' chunks gone and full kept", got)
		}
		if err := x.DeleteDocs(ctx, []string{"big"}); err != nil {
			t.Fatal(err)
		}
		count(1, 1)
	})
}
