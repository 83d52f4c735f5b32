package braid_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/eval"
	"github.com/braidsearch/braid/fusion"
	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/internal/modeltest"
	"github.com/braidsearch/braid/internal/testdata"
	"github.com/braidsearch/braid/model"
	"github.com/braidsearch/braid/vector"
)

// Benchmarks for the issue targets; run with `make bench` (they need
// ONNX Runtime and either pulled models or `make fixtures`).

var benchQueries = []string{
	"how do I write a space script",
	"keyboard shortcuts for navigation",
	"does vitamin D reduce the risk of fractures",
	"configure the sync server",
	"what causes antibiotic resistance in bacteria",
	"embed a page inside another page",
	"hybrid search with BM25 and dense vectors",
	"link to a heading in another note",
}

// benchModels are the bge-small variants to time: pulled real weights when
// installed, else the architecture-exact random-weight fixture.
func benchModels(b *testing.B) map[string]*model.Embedder {
	modeltest.NeedRuntime(b)
	out := map[string]*model.Embedder{}
	for _, id := range []string{"BAAI/bge-small-en-v1.5", "BAAI/bge-small-en-v1.5:int8"} {
		dir, spec, err := model.ResolveKind(id, model.ModelsDir(os.Getenv("BRAID_MODELS")), model.KindEmbedder)
		if err != nil {
			continue
		}
		e, err := model.LoadEmbedder(dir, spec, model.Config{})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { e.Close() })
		out[spec.Variant] = e
	}
	fixture := filepath.Join(".tools", "fixtures", "bge-small")
	if len(out) == 0 {
		if _, err := os.Stat(filepath.Join(fixture, "tokenizer.json")); err != nil {
			b.Skip("no bge-small model: run `make models` or `make fixtures`")
		}
		spec, _ := model.Lookup("BAAI/bge-small-en-v1.5")
		spec.Files = nil
		e, err := model.LoadEmbedder(fixture, spec, model.Config{})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { e.Close() })
		out["fixture"] = e
	}
	return out
}

// clustered returns n unit vectors around 50 random centres, which is how
// real embeddings sit (uniform random vectors are the HNSW worst case).
func clustered(n, dim int) [][]float32 {
	r := rand.New(rand.NewPCG(1, 2))
	centres := make([][]float32, 50)
	for i := range centres {
		centres[i] = make([]float32, dim)
		for j := range centres[i] {
			centres[i][j] = float32(r.NormFloat64())
		}
	}
	out := make([][]float32, n)
	for i := range out {
		c := centres[r.IntN(len(centres))]
		v := make([]float32, dim)
		for j := range v {
			v[j] = c[j] + 0.6*float32(r.NormFloat64())
		}
		out[i] = v
	}
	return out
}

func reportPercentiles(b *testing.B, lat []time.Duration) {
	slices.Sort(lat)
	at := func(p float64) float64 {
		i := int(math.Ceil(p*float64(len(lat)))) - 1
		return float64(lat[max(i, 0)].Microseconds()) / 1000
	}
	b.ReportMetric(at(0.50), "p50-ms")
	b.ReportMetric(at(0.95), "p95-ms")
}

// BenchmarkVectorStage times what a hybrid search adds for vectors: the
// query embedding and the HNSW top-50.
func BenchmarkVectorStage(b *testing.B) {
	models := benchModels(b)
	for _, n := range []int{1000, 10000} {
		x := vector.New(384, nil)
		for i, v := range clustered(n, 384) {
			if err := x.Add(fmt.Sprint(i), v); err != nil {
				b.Fatal(err)
			}
		}
		for name, emb := range models {
			b.Run(fmt.Sprintf("%s/%d", name, n), func(b *testing.B) {
				ctx := context.Background()
				var lat []time.Duration
				for i := 0; b.Loop(); i++ {
					start := time.Now()
					q, err := emb.Embed(ctx, []string{benchQueries[i%len(benchQueries)]}, true)
					if err != nil {
						b.Fatal(err)
					}
					if _, err := x.Search(q[0], 50); err != nil {
						b.Fatal(err)
					}
					lat = append(lat, time.Since(start))
				}
				reportPercentiles(b, lat)
			})
		}
	}
}

// BenchmarkLexicalFusion10k times a BM25 search as the CLI runs it (10
// hits with snippets and highlights) plus linear fusion of two
// 50-candidate lists, over SciFact's abstracts cut into 128-token chunks
// (about 12,000) with SciFact's test questions as queries.
func BenchmarkLexicalFusion10k(b *testing.B) {
	dir := testdata.Dir(b, "scifact")
	col, err := eval.LoadBEIR(dir, "test")
	if err != nil {
		b.Fatal(err)
	}
	e, err := braid.Open(filepath.Join(b.TempDir(), "idx"), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	sum, err := e.Index(context.Background(), []braid.SourceSpec{{Path: filepath.Join(dir, "corpus.jsonl"), ChunkTokens: 128, ChunkOverlap: new(int)}}, nil)
	if err != nil {
		b.Fatal(err)
	}
	if sum.Chunks < 10000 {
		b.Fatalf("%d chunks, want 10,000 or more", sum.Chunks)
	}
	b.ReportMetric(float64(sum.Chunks), "chunks")
	r := rand.New(rand.NewPCG(3, 4))
	lex, vec := make([]fusion.Candidate, 50), make([]fusion.Candidate, 50)
	for i := range vec {
		lex[i] = fusion.Candidate{ID: fmt.Sprint("c", r.IntN(120)), Score: 12 - float64(i)/5}
		vec[i] = fusion.Candidate{ID: fmt.Sprint("c", r.IntN(120)), Score: 0.9 - float64(i)/100}
	}
	zero := 0.0
	var lat []time.Duration
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		if _, err := e.Search(context.Background(), col.Queries[i%len(col.Queries)].Text, braid.SearchOptions{VectorWeight: &zero}); err != nil {
			b.Fatal(err)
		}
		fusion.Linear(lex, vec, 0.5, fusion.MinMax)
		lat = append(lat, time.Since(start))
	}
	reportPercentiles(b, lat)
}

// BenchmarkRecallReal measures HNSW recall@10 against exact search on real
// embeddings: every vector stored in the index named by BRAID_BENCH_INDEX
// (for example SciFact indexed with two models: 11,456 vectors), queried
// with 200 of them. Skipped without that index.
func BenchmarkRecallReal(b *testing.B) {
	dir := os.Getenv("BRAID_BENCH_INDEX")
	if dir == "" {
		b.Skip("set BRAID_BENCH_INDEX to an index directory with stored embeddings")
	}
	st, err := index.OpenStore(filepath.Join(dir, "meta.db"), true)
	if err != nil {
		b.Fatal(err)
	}
	var vecs [][]float32
	err = st.ForEachVector(func(_, _ string, v []float32) error {
		vecs = append(vecs, v)
		return nil
	})
	st.Close()
	if err != nil || len(vecs) < 1000 {
		b.Fatalf("%d vectors (%v), want 1,000 or more", len(vecs), err)
	}
	x := vector.New(len(vecs[0]), nil)
	for i, v := range vecs {
		if err := x.Add(fmt.Sprint(i), v); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(vecs)), "vectors")
	r := rand.New(rand.NewPCG(5, 6))
	queries := make([]int, 200)
	for i := range queries {
		queries[i] = r.IntN(len(vecs))
	}
	hit, total := 0, 0
	var lat []time.Duration
	for i := 0; b.Loop(); i++ {
		q := vecs[queries[i%len(queries)]]
		start := time.Now()
		got, err := x.Search(q, 10)
		lat = append(lat, time.Since(start))
		if err != nil {
			b.Fatal(err)
		}
		want := exactTop(vecs, q, 10)
		for _, g := range got {
			if want[g.ID] {
				hit++
			}
		}
		total += len(want)
	}
	b.ReportMetric(float64(hit)/float64(total), "recall@10")
	reportPercentiles(b, lat)
}

func exactTop(vecs [][]float32, q []float32, k int) map[string]bool {
	type scoredID struct {
		id    int
		score float32
	}
	all := make([]scoredID, len(vecs))
	for i, v := range vecs {
		var dot float32
		for j := range v {
			dot += v[j] * q[j]
		}
		all[i] = scoredID{i, dot}
	}
	slices.SortFunc(all, func(a, b scoredID) int {
		if a.score != b.score {
			if a.score > b.score {
				return -1
			}
			return 1
		}
		return a.id - b.id
	})
	out := map[string]bool{}
	for _, s := range all[:k] {
		out[fmt.Sprint(s.id)] = true
	}
	return out
}

// BenchmarkEmbedThroughput embeds 64 SciFact abstracts (title and text, as
// ingest sends them, about 300 tokens each) per operation.
func BenchmarkEmbedThroughput(b *testing.B) {
	models := benchModels(b)
	f, err := os.Open(filepath.Join(testdata.Dir(b, "scifact"), "corpus.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	var texts []string
	dec := json.NewDecoder(f)
	for len(texts) < 64 {
		var rec struct{ Title, Text string }
		if err := dec.Decode(&rec); err != nil {
			b.Fatal(err)
		}
		texts = append(texts, rec.Title+"\n"+rec.Text)
	}
	for name, emb := range models {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, err := emb.Embed(context.Background(), texts, false); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(texts)*b.N)/b.Elapsed().Seconds(), "chunks/s")
		})
	}
}
