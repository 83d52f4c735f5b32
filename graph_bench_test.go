package braid_test

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/graph"
)

// hashEmbedder is a stand-in for bge-small at the Embedder seam: 384-d
// vectors, the sum of a fixed pseudo-random vector per word, so texts that
// share words are near. It costs microseconds, which keeps the benchmark
// on gap finding rather than on the model.
type hashEmbedder struct{}

func (hashEmbedder) Dim() int { return 384 }

func (hashEmbedder) Embed(_ context.Context, texts []string, _ bool) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, 384)
		for _, w := range strings.Fields(strings.ToLower(t)) {
			h := fnv.New64a()
			h.Write([]byte(w))
			r := rand.New(rand.NewSource(int64(h.Sum64())))
			for j := range v {
				v[j] += float32(r.NormFloat64())
			}
		}
		var n float64
		for _, x := range v {
			n += float64(x) * float64(x)
		}
		if n == 0 {
			v[0], n = 1, 1
		}
		for j := range v {
			v[j] /= float32(math.Sqrt(n))
		}
		out[i] = v
	}
	return out, nil
}

// gapCorpus writes n notes on 50 topics: each note draws most of its words
// from its topic's vocabulary and links two other notes.
func gapCorpus(b *testing.B, n int) string {
	b.Helper()
	dir := b.TempDir()
	r := rand.New(rand.NewSource(1))
	vocab := make([][]string, 50)
	for t := range vocab {
		for w := range 40 {
			vocab[t] = append(vocab[t], fmt.Sprintf("t%cw%c%c", 'a'+t%26, 'a'+w%26, 'a'+(t/26+w/26)))
		}
	}
	common := strings.Fields("system note page value result change process time data model field state file index")
	for i := range n {
		topic := i % len(vocab)
		var body strings.Builder
		fmt.Fprintf(&body, "# Note %d\n\nSee [[note-%04d]] and [[note-%04d]].\n\n", i, r.Intn(n), r.Intn(n))
		for s := range 3 {
			fmt.Fprintf(&body, "## Part %d\n\n", s)
			for range 60 {
				if r.Intn(3) == 0 {
					body.WriteString(common[r.Intn(len(common))])
				} else {
					body.WriteString(vocab[topic][r.Intn(len(vocab[topic]))])
				}
				body.WriteByte(' ')
			}
			body.WriteString("\n\n")
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("note-%04d.md", i)), []byte(body.String()), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

// BenchmarkGaps1k times Engine.Gaps over 1,000 notes of about 190 words in
// 3 sections (4,000 chunks with the title chunk), with 384-d embeddings
// (the document vectors, an HNSW graph of them and 10 neighbours each) and
// with the lexical fallback (tf-idf cosine), reading everything from the
// index each time.
func BenchmarkGaps1k(b *testing.B) {
	ctx := context.Background()
	const n = 1000
	vault := gapCorpus(b, n)
	dir := filepath.Join(b.TempDir(), "idx")
	opt := &braid.Options{Embedder: hashEmbedder{}, Model: "bench/hash-384"}
	w, err := braid.Open(dir, opt)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := w.Index(ctx, []braid.SourceSpec{{Path: vault}}, nil); err != nil {
		b.Fatal(err)
	}
	w.Close()
	for _, mode := range []struct {
		name string
		opt  *braid.Options
	}{
		{"embeddings", &braid.Options{ReadOnly: true, Embedder: hashEmbedder{}, Model: "bench/hash-384"}},
		{"lexical", &braid.Options{ReadOnly: true}},
	} {
		b.Run(mode.name, func(b *testing.B) {
			e, err := braid.Open(dir, mode.opt)
			if err != nil {
				b.Fatal(err)
			}
			defer e.Close()
			var rep *graph.GapReport
			b.ReportAllocs()
			for b.Loop() {
				if rep, err = e.Graph().Gaps(ctx, graph.GapOptions{Threshold: 0.3}); err != nil {
					b.Fatal(err)
				}
			}
			if rep.Documents != n || len(rep.Gaps) == 0 {
				b.Fatalf("%d documents compared, %d gaps: want %d and some", rep.Documents, len(rep.Gaps), n)
			}
			b.ReportMetric(float64(rep.Documents), "docs")
		})
	}
}
