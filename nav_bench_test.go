package braid

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/braidsearch/braid/index"
)

// benchEngine is an engine whose store holds n documents shaped like
// notes, committed directly (no files, no lexical index): enough for the
// name and hash lookups, which read the store alone.
func benchEngine(b *testing.B, n int) *Engine {
	b.Helper()
	e, err := Open(filepath.Join(b.TempDir(), "idx"), nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { e.Close() })
	src := &Source{ID: "s1", Name: "kb", Path: b.TempDir(), Kind: index.SourceDir}
	if err := e.st.PutSource(src); err != nil {
		b.Fatal(err)
	}
	var batch []index.Change
	flush := func() {
		p, err := e.st.Commit(batch)
		if err != nil {
			b.Fatal(err)
		}
		if err := e.st.ClearPending(p.Gen); err != nil {
			b.Fatal(err)
		}
		batch = batch[:0]
	}
	for i := range n {
		sum := sha256.Sum256([]byte(fmt.Sprint("doc", i)))
		hash := hex.EncodeToString(sum[:])
		id := fmt.Sprintf("d%06d", i)
		d := &Document{ID: id, SourceID: "s1", Path: fmt.Sprintf("folder%d/topic-%d-note-%06d.md", i%50, i%997, i),
			Title: fmt.Sprintf("Topic %d note %d", i%997, i), Hash: hash, Kind: index.KindMarkdown, Lines: 40,
			Tags: []string{"t1"}, Frontmatter: map[string]any{"tags": []any{"t1"}}}
		for h := range 5 {
			d.Headings = append(d.Headings, Heading{Level: 2, Text: fmt.Sprintf("Section %d", h), Line: 5 + h*7})
			d.Links = append(d.Links, Link{Kind: "wikilink", Target: fmt.Sprintf("Topic %d", (i+h)%997), Line: 6 + h*7})
		}
		chunks := []Chunk{{ID: index.ChunkID(id, hash, 0), DocID: id, Text: "words", StartLine: 1, EndLine: 40}}
		batch = append(batch, index.Change{Doc: d, Chunks: chunks})
		if len(batch) == 1000 {
			flush()
		}
	}
	if len(batch) > 0 {
		flush()
	}
	return e
}

// BenchmarkNav times Find (cold: the names read from the store; warm:
// from the cache), a fuzzy Find and DocumentByHash as the index grows.
func BenchmarkNav(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		if testing.Short() && n > 10000 {
			continue
		}
		e := benchEngine(b, n)
		perDoc := func(b *testing.B) {
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/doc")
		}
		b.Run(fmt.Sprintf("docs=%d/find-cold", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				e.names = nameCache{}
				if _, err := e.Find("topic 42", FindOptions{}); err != nil {
					b.Fatal(err)
				}
			}
			perDoc(b)
		})
		b.Run(fmt.Sprintf("docs=%d/find-warm", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := e.Find("topic 42", FindOptions{}); err != nil {
					b.Fatal(err)
				}
			}
			perDoc(b)
		})
		b.Run(fmt.Sprintf("docs=%d/find-fuzzy-warm", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := e.Find("tpc42nt", FindOptions{Parent: "folder7"}); err != nil {
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
				if _, err := e.DocumentByHash(prefix); err != nil {
					b.Fatal(err)
				}
			}
			perDoc(b)
		})
	}
}
