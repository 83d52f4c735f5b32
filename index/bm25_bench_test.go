package index

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/braidsearch/braid/chunk"
	"github.com/braidsearch/braid/lexical"
	"github.com/braidsearch/braid/query"
)

// BenchmarkEditOneNote is what --watch pays for one edited note until it
// is searchable: the commit of its new version (ten chunks) and the first
// BM25 search after it, which needs the collection statistics of the
// changed index. Sizes in chunks show how that grows with the index.
func BenchmarkEditOneNote(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("%dk", n/1000), func(b *testing.B) {
			dir := b.TempDir()
			st, err := OpenStore(filepath.Join(dir, "meta.db"), false)
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			lex, err := lexical.Open(filepath.Join(dir, "lex"), false, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer lex.Close()
			lex.StatsFrom(st.BM25Totals)
			ix := &Indexer{Store: st, Lexical: lex}
			r := rand.New(rand.NewPCG(3, 5))
			words := strings.Fields("kohlrabi garden sun water plants growing tomato soup bread bake ripen winter vine kiwi river stone cloud moss fern lamp paper ink")
			note := func(i, v int) Change {
				sum := sha256.Sum256([]byte(fmt.Sprint(i, v)))
				hash := hex.EncodeToString(sum[:])
				id := fmt.Sprintf("d%06d", i)
				d := &Document{ID: id, SourceID: "s1", Path: fmt.Sprintf("n/%s.md", id), Title: fmt.Sprint("Note ", i), Hash: hash, Kind: KindMarkdown}
				var chunks []Chunk
				for c := range 10 {
					w := make([]string, 60)
					for k := range w {
						w[k] = words[r.IntN(len(words))] + fmt.Sprint(r.IntN(200))
					}
					chunks = append(chunks, Chunk{ID: chunk.ID(id, hash, c), DocID: id, Ord: c, Text: strings.Join(w, " ")})
				}
				return Change{Doc: d, Chunks: chunks}
			}
			ctx := context.Background()
			var batch []Change
			for i := range n / 10 {
				batch = append(batch, note(i, 0))
				if len(batch) == 100 {
					if err := ix.commit(ctx, batch); err != nil {
						b.Fatal(err)
					}
					batch = batch[:0]
				}
			}
			q := lexical.Request{Query: query.Query{Terms: []string{"kohlrabi7", "garden12"}}, Size: 10}
			if _, _, err := lex.Search(ctx, q); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for v := range b.N {
				if err := ix.commit(ctx, []Change{note(v%(n/10), v+1)}); err != nil {
					b.Fatal(err)
				}
				if _, _, err := lex.Search(ctx, q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
