package rerank

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/braidsearch/braid/internal/modeltest"
	"github.com/braidsearch/braid/model"
)

// The benchmark fixtures are random-weight models with the exact
// architecture of the published rerankers and the real (all-MiniLM-L6-v2,
// same vocabulary) tokenizer; they time like the real models and their
// scores mean nothing. They are generated, not committed:
//
//	T=../shared/models/tokenizers/all-MiniLM-L6-v2/tokenizer.json
//	for p in ms-marco-minilm-l6 ms-marco-tinybert-l2; do
//	    python3 tools/genmodel/genmodel.py --preset $p --out .tools/fixtures/$p --tokenizer $T
//	    python3 tools/genmodel/genmodel.py --preset $p --out .tools/fixtures/$p-int8 --tokenizer $T --quantize
//	done
//
// Run (slow; a few minutes on two cores):
//
//	go test -run XXX -bench Rerank50 -benchtime 10x ./rerank
const benchFixtures = "../.tools/fixtures"

var benchModels = []struct{ name, dir string }{
	{"minilm-l6/fp32", "ms-marco-minilm-l6"},
	{"minilm-l6/int8", "ms-marco-minilm-l6-int8"},
	{"tinybert-l2/fp32", "ms-marco-tinybert-l2"},
	{"tinybert-l2/int8", "ms-marco-tinybert-l2-int8"},
}

func loadBenchCross(b *testing.B, dir string, cfg model.Config) *model.CrossEncoder {
	b.Helper()
	dir = filepath.Join(benchFixtures, dir)
	if _, err := os.Stat(filepath.Join(dir, model.ModelFile)); err != nil {
		b.Skipf("%s: %v; generate it with tools/genmodel (see bench_test.go)", dir, err)
	}
	modeltest.NeedRuntime(b)
	spec := model.Spec{Name: "bench/" + filepath.Base(dir), Kind: model.KindCrossEncoder, MaxLen: 512}
	c, err := model.LoadCrossEncoder(dir, spec, cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	return c
}

// benchVocab are common English words that are one wordpiece each in the
// BERT uncased vocabulary, so n words are about n model tokens.
var benchVocab = strings.Fields(`the of and to in is it that for on with as was be by this are or from at
an not have has had but all can will one which their more about how what when where search query
document note index text word file line code data model vector rank score match link title plugin load
space script write read run test build server cache memory disk fast slow small large quick brown fox
lazy dog water fire river mountain tree book learn machine network language sentence question answer`)

func benchWords(r *rand.Rand, n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = benchVocab[r.IntN(len(benchVocab))]
	}
	return strings.Join(w, " ")
}

// benchRerank reranks 50 passages of ~480 tokens with a ~10-token query,
// b.N times (a new query each time, so the cache never hits), and reports
// the latency percentiles of one 50-pair call.
func benchRerank(b *testing.B, c *model.CrossEncoder, window int) {
	r := rand.New(rand.NewPCG(1, 2))
	ps := make([]Passage, 50)
	for i := range ps {
		ps[i] = Passage{ID: fmt.Sprint(i), Text: benchWords(r, 470)}
	}
	rr := New(c, Options{Window: window})
	if _, err := rr.Rerank(context.Background(), "warm up", ps[:2]); err != nil {
		b.Fatal(err)
	}
	lat := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		q := fmt.Sprintf("%s %d", benchWords(r, 9), i)
		start := time.Now()
		out, err := rr.Rerank(context.Background(), q, ps)
		if err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
		if out.Reranked != 50 {
			b.Fatalf("reranked %d, want 50", out.Reranked)
		}
	}
	slices.Sort(lat)
	pct := func(p float64) float64 {
		return float64(lat[min(int(p*float64(len(lat))), len(lat)-1)]) / 1e6
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.95), "p95-ms")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkRerank50 times 50 pairs per model, variant and window (128, 256
// tokens, or the whole ~480-token passage) at two threads, batch 32.
func BenchmarkRerank50(b *testing.B) {
	for _, m := range benchModels {
		for _, w := range []int{128, 256, -1} {
			name := fmt.Sprintf("model=%s/window=%d", m.name, w)
			if w < 0 {
				name = fmt.Sprintf("model=%s/window=whole", m.name)
			}
			b.Run(name, func(b *testing.B) {
				benchRerank(b, loadBenchCross(b, m.dir, model.Config{Threads: 2}), w)
			})
		}
	}
}

// BenchmarkRerank50Config sweeps ONNX Runtime threads and batch size for
// the default reranker (MiniLM-L6 fp32) at the default window.
func BenchmarkRerank50Config(b *testing.B) {
	for _, threads := range []int{1, 2} {
		for _, batch := range []int{8, 16, 32, 50} {
			b.Run(fmt.Sprintf("threads=%d/batch=%d", threads, batch), func(b *testing.B) {
				benchRerank(b, loadBenchCross(b, "ms-marco-minilm-l6", model.Config{Threads: threads, BatchSize: batch}), DefaultWindow)
			})
		}
	}
}
