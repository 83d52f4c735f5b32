package index

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/braidsearch/braid/chunk"
	"github.com/braidsearch/braid/internal/testenv"
)

// fillStore commits n documents shaped like markdown notes (headings,
// links, tags, three chunks) to a fresh store.
func fillStore(tb testing.TB, n int) *Store {
	tb.Helper()
	st, err := OpenStore(filepath.Join(tb.TempDir(), "meta.db"), false)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	var batch []Change
	flush := func() {
		p, err := st.Commit(batch)
		if err != nil {
			tb.Fatal(err)
		}
		if err := st.ClearPending(p.Gen); err != nil {
			tb.Fatal(err)
		}
		batch = batch[:0]
	}
	for i := range n {
		sum := sha256.Sum256([]byte(fmt.Sprint("doc", i)))
		hash := hex.EncodeToString(sum[:])
		id := fmt.Sprintf("d%06d", i)
		d := &Document{ID: id, SourceID: "s1", Path: fmt.Sprintf("folder%d/note-%06d.md", i%50, i), Title: fmt.Sprintf("Note %d", i),
			Hash: hash, Kind: KindMarkdown, Lines: 40, Tags: []string{"t1", "t2"}, Aliases: []string{fmt.Sprint("alias", i)},
			Frontmatter: map[string]any{"title": fmt.Sprintf("Note %d", i), "tags": []any{"t1", "t2"}}}
		for h := range 5 {
			d.Headings = append(d.Headings, Heading{Level: 2, Text: fmt.Sprintf("Section %d", h), Line: 5 + h*7})
			d.Links = append(d.Links, Link{Kind: "wikilink", Target: fmt.Sprintf("Note %d", (i+h+1)%n), Line: 6 + h*7})
		}
		var chunks []Chunk
		for c := range 3 {
			chunks = append(chunks, Chunk{ID: chunk.ID(id, hash, c), DocID: id, Ord: c, Text: "some words", StartLine: c*10 + 1, EndLine: c*10 + 10})
		}
		batch = append(batch, Change{Doc: d, Chunks: chunks})
		if len(batch) == 1000 {
			flush()
		}
	}
	if len(batch) > 0 {
		flush()
	}
	return st
}

func TestHashPrefixAndNames(t *testing.T) {
	st := fillStore(t, 300)
	sum := sha256.Sum256([]byte("doc17"))
	full := hex.EncodeToString(sum[:])
	for _, p := range []string{full, full[:8]} {
		got, err := st.HashPrefix(p)
		if err != nil {
			t.Fatal(err)
		}
		want := []Entry{{Path: "folder17/note-000017.md", DocID: "d000017", Hash: full}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("HashPrefix(%s) (-want +got):\n%s", p, diff)
		}
	}
	if got, _ := st.HashPrefix("0"); len(got) < 5 || len(got) > 40 {
		t.Errorf("HashPrefix(0) found %d of 300 documents, want about 19", len(got))
	}
	if got := testenv.Must1(st.HashPrefix("zz"))(t); len(got) != 0 {
		t.Errorf("HashPrefix(zz) = %v, want none", got)
	}
	var names []Name
	if err := st.ForEachName(func(n *Name) error { names = append(names, *n); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(names) != 300 {
		t.Fatalf("ForEachName saw %d documents, want 300", len(names))
	}
	want := Name{ID: "d000042", SourceID: "s1", Path: "folder42/note-000042.md", Title: "Note 42", Aliases: []string{"alias42"}}
	if diff := cmp.Diff(want, names[42]); diff != "" {
		t.Errorf("name of document 42 (-want +got):\n%s", diff)
	}
}

// BenchmarkDocScan compares the ways to look at every document: decoding
// each whole (ForEachDoc), decoding its names (ForEachName) and reading
// the hashes of the paths bucket (HashPrefix).
func BenchmarkDocScan(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		if testing.Short() && n > 10000 {
			continue
		}
		st := fillStore(b, n)
		b.Run(fmt.Sprintf("docs=%d/ForEachDoc", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := st.ForEachDoc(func(*Document) error { return nil }); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/doc")
		})
		b.Run(fmt.Sprintf("docs=%d/ForEachName", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := st.ForEachName(func(*Name) error { return nil }); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/doc")
		})
		b.Run(fmt.Sprintf("docs=%d/HashPrefix", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := st.HashPrefix("abcdef12"); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/doc")
		})
	}
}
