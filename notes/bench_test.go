package notes

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/braidsearch/braid/chunk"
	"github.com/braidsearch/braid/index"
)

// benchReader reads a store that holds n documents shaped like notes,
// committed directly (no files, no lexical index): enough for the name
// and hash lookups, which read the store alone.
func benchReader(b *testing.B, n int) *Reader {
	b.Helper()
	st, err := index.OpenStore(filepath.Join(b.TempDir(), "meta.db"), false)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	src := &index.Source{ID: "s1", Name: "kb", Path: b.TempDir(), Kind: index.SourceDir}
	if err := st.PutSource(src); err != nil {
		b.Fatal(err)
	}
	var batch []index.Change
	flush := func() {
		p, err := st.Commit(batch)
		if err != nil {
			b.Fatal(err)
		}
		if err := st.ClearPending(p.Gen); err != nil {
			b.Fatal(err)
		}
		batch = batch[:0]
	}
	for i := range n {
		sum := sha256.Sum256([]byte(fmt.Sprint("doc", i)))
		hash := hex.EncodeToString(sum[:])
		id := fmt.Sprintf("d%06d", i)
		d := &index.Document{ID: id, SourceID: "s1", Path: fmt.Sprintf("folder%d/topic-%d-note-%06d.md", i%50, i%997, i),
			Title: fmt.Sprintf("Topic %d note %d", i%997, i), Hash: hash, Kind: index.KindMarkdown, Lines: 40,
			Tags: []string{"t1"}, Frontmatter: map[string]any{"tags": []any{"t1"}}}
		for h := range 5 {
			d.Headings = append(d.Headings, index.Heading{Level: 2, Text: fmt.Sprintf("Section %d", h), Line: 5 + h*7})
			d.Links = append(d.Links, index.Link{Kind: "wikilink", Target: fmt.Sprintf("Topic %d", (i+h)%997), Line: 6 + h*7})
		}
		chunks := []index.Chunk{{ID: chunk.ID(id, hash, 0), DocID: id, Text: "words", StartLine: 1, EndLine: 40}}
		batch = append(batch, index.Change{Doc: d, Chunks: chunks})
		if len(batch) == 1000 {
			flush()
		}
	}
	if len(batch) > 0 {
		flush()
	}
	return NewReader(st, nil, Config{})
}

// BenchmarkNav times Find (cold: the names read from the store; warm:
// from the cache), a fuzzy Find and DocumentByHash as the index grows.
func BenchmarkNav(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		if testing.Short() && n > 10000 {
			continue
		}
		r := benchReader(b, n)
		perDoc := func(b *testing.B) {
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/doc")
		}
		b.Run(fmt.Sprintf("docs=%d/find-cold", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				r.names = nameCache{}
				if _, err := r.Find("topic 42", FindOptions{}); err != nil {
					b.Fatal(err)
				}
			}
			perDoc(b)
		})
		b.Run(fmt.Sprintf("docs=%d/find-warm", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := r.Find("topic 42", FindOptions{}); err != nil {
					b.Fatal(err)
				}
			}
			perDoc(b)
		})
		b.Run(fmt.Sprintf("docs=%d/find-fuzzy-warm", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := r.Find("tpc42nt", FindOptions{Parent: "folder7"}); err != nil {
					b.Fatal(err)
				}
			}
			perDoc(b)
		})
		sum := sha256.Sum256([]byte(fmt.Sprint("doc", n/2)))
		prefix := hex.EncodeToString(sum[:])[:10]
		b.Run(fmt.Sprintf("docs=%d/hash", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := r.DocumentByHash(prefix); err != nil {
					b.Fatal(err)
				}
			}
			perDoc(b)
		})
	}
}
