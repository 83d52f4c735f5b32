package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/internal/modeltest"
	"github.com/braidsearch/braid/internal/testenv"
	"github.com/braidsearch/braid/model"
	"github.com/braidsearch/braid/rerank"
	"github.com/braidsearch/braid/tokenizer"
)

func TestCorpusDeterministic(t *testing.T) {
	ctx := context.Background()
	a, b := t.TempDir(), t.TempDir()
	qa, na, wa, err := corpus(ctx, a, 200, 7)
	if err != nil {
		t.Fatal(err)
	}
	qb, nb, wb, err := corpus(ctx, b, 200, 7)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(qa, qb) || len(qa) != 7 || !slices.Equal(na, nb) || len(na) != 7 {
		t.Fatalf("queries differ between runs or wrong count: %q vs %q, %q vs %q", qa, qb, na, nb)
	}
	if !slices.Equal(wa, wb) || len(wa) != 7 {
		t.Fatalf("warm-up questions differ between runs or wrong count: %q vs %q", wa, wb)
	}
	for _, q := range wa {
		if slices.Contains(na, q) {
			t.Errorf("warm-up question %q is also a timed one", q)
		}
	}
	for _, q := range append(na, wa...) {
		if w := len(strings.Fields(q)); w < 8 || w > 12 {
			t.Errorf("natural query %q has %d words, want 8 to 12", q, w)
		}
	}
	files := testenv.Must1(filepath.Glob(filepath.Join(a, "*", "*.md")))(t)
	if len(files) != 20 {
		t.Fatalf("%d files for 200 chunks, want 20", len(files))
	}
	x := testenv.Must1(os.ReadFile(files[3]))(t)
	y := testenv.Must1(os.ReadFile(filepath.Join(b, strings.TrimPrefix(files[3], a))))(t)
	if !bytes.Equal(x, y) {
		t.Error("the same size and seed wrote different files")
	}
	if n := strings.Count(string(x), "\n#"); n != sectionsPerDoc-1 {
		t.Errorf("%d headings after the title, want %d", n, sectionsPerDoc-1)
	}
	for _, q := range qa {
		if w := len(strings.Fields(q)); w < 3 || w > 5 {
			t.Errorf("query %q has %d words, want 3 to 5", q, w)
		}
	}
}

func TestSyntheticVectors(t *testing.T) {
	modeltest.NeedRuntime(t)
	s := newSynthetic(&Embedder{Embedder: modeltest.Tiny(t)})
	ctx := context.Background()
	v1, err := s.Embed(ctx, []string{"alpha beta", "gamma"}, false)
	if err != nil {
		t.Fatal(err)
	}
	v2 := testenv.Must1(s.Embed(ctx, []string{"alpha beta"}, false))(t)
	if !slices.Equal(v1[0], v2[0]) {
		t.Error("the same passage got two different vectors")
	}
	if slices.Equal(v1[0], v1[1]) {
		t.Error("two passages got the same vector")
	}
	for _, v := range v1 {
		var n float64
		for _, x := range v {
			n += float64(x) * float64(x)
		}
		if len(v) != s.Dim() || math.Abs(n-1) > 1e-4 {
			t.Errorf("passage vector has dim %d and norm² %v, want %d and 1", len(v), n, s.Dim())
		}
	}
	q := testenv.Must1(s.Embed(ctx, []string{"alpha beta"}, true))(t)
	want := testenv.Must1(modeltest.Tiny(t).Embed(ctx, []string{"alpha beta"}, true))(t)
	if !slices.Equal(q[0], want[0]) {
		t.Error("a query was not embedded by the model")
	}
}

func TestRunLexicalOnly(t *testing.T) {
	rep, err := Run(context.Background(), Config{Sizes: []int{200}, Queries: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Sizes) != 1 {
		t.Fatalf("%d sizes, want 1", len(rep.Sizes))
	}
	s := rep.Sizes[0]
	if s.Chunks != 200 || s.Docs != 20 {
		t.Errorf("indexed %d chunks in %d docs, want 200 in 20", s.Chunks, s.Docs)
	}
	for _, k := range []string{"search_lexical.p50_ms", "search_lexical.p99_ms", "lexical.p50_ms", "ingest.chunks_per_s", "rss_peak_mb",
		"lexical_natural.p50_ms", "lexical_natural.p95_ms", "lexical_natural_first.p50_ms", "disk.bytes_per_chunk", "reopen.ms", "reopen_stamped.ms", "reindex_one_note.s"} {
		if s.Metrics[k] <= 0 {
			t.Errorf("%s = %v, want > 0", k, s.Metrics[k])
		}
	}
	if _, ok := s.Metrics["vector.p50_ms"]; ok {
		t.Error("vector stage reported without an embedder")
	}
	if _, ok := s.Metrics["reopen.heap_mb"]; !ok {
		t.Error("no heap for the index opened again")
	}
	if _, ok := s.Metrics["reindex_unchanged.s"]; !ok {
		t.Error("no time for a re-index with nothing changed")
	}
	if _, ok := s.Metrics["watch_one_note.s"]; !ok {
		t.Error("no time for the watch's run after one edit")
	}
	if !strings.HasPrefix(rep.Embedder, "none") {
		t.Errorf("embedder %q, want it to say there is none", rep.Embedder)
	}
	for _, tg := range rep.Targets {
		if tg.MeasuredMS != nil {
			t.Errorf("target %s measured at %v on a 200-chunk lexical run", tg.Metric, *tg.MeasuredMS)
		}
	}
	var md bytes.Buffer
	rep.Markdown(&md)
	for _, want := range []string{"| lexical search, end to end |", "| 200 chunks |", "not measured"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
}

func TestRunWithModels(t *testing.T) {
	testenv.Slow(t, "benches every stage with the fixture models (70 s of the fast suite)")
	modeltest.NeedRuntime(t)
	tok, err := tokenizer.Load(filepath.Join(modeltest.TinyDir(), "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	models := &Models{
		Embedder:  &Embedder{Embedder: modeltest.Tiny(t), Name: "tiny", Origin: "test fixture", Tokenizer: tok, Cost: cost(t, modeltest.TinyDir())},
		Rerankers: []CrossEncoder{tinyCross(t, "cross-encoder/ms-marco-MiniLM-L-6-v2")},
	}
	rep, err := Run(context.Background(), Config{Sizes: []int{1000}, Queries: 4, RerankRuns: 2, Windows: []int{rerank.DefaultWindow, -1}, Models: models})
	if err != nil {
		t.Fatal(err)
	}
	m := rep.Sizes[0].Metrics
	for _, k := range []string{"tokenize.p50_ms", "embed.p50_ms", "hnsw.p50_ms", "vector.p50_ms", "fusion.p95_ms", "lexical_fusion.p50_ms", "hydrate.p50_ms", "search.p99_ms"} {
		if m[k] <= 0 {
			t.Errorf("%s = %v, want > 0", k, m[k])
		}
	}
	// At 1k chunks the corpus is indexed a second time through the model.
	for _, k := range []string{"model_ingest.chunks_per_s", "model_ingest.tokens_per_s", "model_ingest.gflops", "model_ingest.embed_share"} {
		if m[k] <= 0 {
			t.Errorf("%s = %v, want > 0", k, m[k])
		}
	}
	if m["model_ingest.tokens_per_s"] < m["model_ingest.chunks_per_s"] || m["model_ingest.embed_share"] > 1 {
		t.Errorf("model ingest: %v tokens/s for %v chunks/s, %v of the time in the model", m["model_ingest.tokens_per_s"], m["model_ingest.chunks_per_s"], m["model_ingest.embed_share"])
	}
	if _, ok := readCPUPeak(); ok && m["model_ingest.peak_fraction"] <= 0 {
		t.Errorf("no peak fraction though the CPU's peak is known")
	}
	if m["vector.p50_ms"] < m["hnsw.p50_ms"] {
		t.Errorf("vector stage %v below its HNSW part %v", m["vector.p50_ms"], m["hnsw.p50_ms"])
	}
	if len(rep.Rerank) != 2 || rep.Rerank[0].Window != fmt.Sprint(rerank.DefaultWindow) || rep.Rerank[1].Window != "whole" || rep.Rerank[0].Pairs != 50 {
		t.Fatalf("rerank timings %+v, want windows %d and whole of 50 pairs", rep.Rerank, rerank.DefaultWindow)
	}
	if rep.Metrics["rerank.p50_ms"] != rep.Rerank[0].P50MS || rep.Metrics["embed.chunks_per_s"] <= 0 {
		t.Errorf("metrics %v: want rerank.p50_ms from the default window and an embedding rate", rep.Metrics)
	}
	measured := 0
	for _, tg := range rep.Targets {
		if tg.MeasuredMS != nil {
			measured++
		}
	}
	// vector at 1k, the default reranker and the fastest one (the same
	// here) at the default window; BM25 + fusion wants 10k.
	if measured != 3 {
		t.Errorf("%d targets measured, want 3: %+v", measured, rep.Targets)
	}
	// The roofline: the query embedding against the one-thread peak, the
	// reranker against the peak on its threads.
	if len(rep.Peaks) == 0 || rep.Peaks[0].Threads != 1 || rep.Peaks[0].FP32 <= 0 {
		t.Fatalf("peaks %+v, want one on 1 thread first", rep.Peaks)
	}
	checkRoofline(t, "embed", m["embed.gflop_per_call"], m["embed.p50_ms"], m["embed.gflops"], m["embed.peak_gflops"], m["embed.peak_fraction"])
	if m["embed.peak_gflops"] != sig3(rep.Peaks[0].FP32) || m["embed.tokens_per_call"] < 3 {
		t.Errorf("embed: peak %v, want the 1-thread fp32 %v; %v tokens a query", m["embed.peak_gflops"], rep.Peaks[0].FP32, m["embed.tokens_per_call"])
	}
	for _, r := range rep.Rerank {
		checkRoofline(t, "rerank "+r.Window, r.GFLOP, r.P50MS, r.GFLOPS, r.PeakGFLOPS, r.PeakFraction)
		if r.MeetsTarget != (r.P50MS <= 50) || r.Threads != runtime.NumCPU() {
			t.Errorf("rerank %s: meets the target %v at %v ms; %d threads", r.Window, r.MeetsTarget, r.P50MS, r.Threads)
		}
	}
	var md bytes.Buffer
	rep.Markdown(&md)
	for _, want := range []string{"| roofline: stage |", "| embed one query (1k chunks) |", "measured peak on 1 thread,", "| ≤ 50 ms |"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
	data, err := json.Marshal(rep)
	if err != nil || !strings.Contains(string(data), `"vector.p50_ms"`) {
		t.Errorf("JSON lacks vector.p50_ms (%v): %s", err, data)
	}
}

func TestCheckTargets(t *testing.T) {
	rep := &Report{
		Metrics: map[string]float64{"rerank.p50_ms": 80, "rerank_fastest.p50_ms": 41},
		Sizes: []Size{
			{Chunks: 1000, Metrics: map[string]float64{"vector.p50_ms": 9}},
			{Chunks: 11000, Metrics: map[string]float64{"lexical_fusion.p50_ms": 2.5}},
			{Chunks: 100000, Metrics: map[string]float64{"lexical_fusion.p50_ms": 1}},
		},
	}
	got := check(rep)
	want := map[string]bool{"vector.p50_ms": true, "lexical_fusion.p50_ms": false, "rerank.p50_ms": false, "rerank_fastest.p50_ms": true}
	for _, tg := range got {
		if tg.Met == nil || *tg.Met != want[tg.Metric] {
			t.Errorf("target %s: met %v, want %v", tg.Metric, tg.Met, want[tg.Metric])
		}
	}
	if *got[1].MeasuredMS != 2.5 {
		t.Errorf("BM25 + fusion measured %v, want the 11k size's 2.5 (nearest 10k)", *got[1].MeasuredMS)
	}
}

// checkRoofline checks that a stage's figures agree: the rate is the
// FLOPs at p50, the fraction that rate over the peak (to the three
// significant digits they are kept to).
func checkRoofline(t *testing.T, stage string, gflop, p50, gflops, peak, fraction float64) {
	t.Helper()
	if gflop <= 0 || p50 <= 0 || peak <= 0 {
		t.Errorf("%s: %v GFLOP a call at %v ms against a peak of %v GFLOP/s, want all > 0", stage, gflop, p50, peak)
		return
	}
	near := func(a, b float64) bool { return math.Abs(a-b) <= 0.01*math.Abs(b) }
	if !near(gflops, gflop/(p50/1000)) || !near(fraction, gflops/peak) {
		t.Errorf("%s: %v GFLOP at %v ms is %v GFLOP/s, %v of the peak %v; want %v and %v", stage, gflop, p50, gflops, fraction, peak, gflop/(p50/1000), gflops/peak)
	}
}

func cost(t *testing.T, dir string) model.Cost {
	t.Helper()
	return testenv.Must1(model.ReadCost(filepath.Join(dir, model.ModelFile)))(t)
}

// tinyCross is the test cross-encoder as a bench times it, on every core.
func tinyCross(t *testing.T, name string) CrossEncoder {
	tok := testenv.Must1(tokenizer.Load(filepath.Join(modeltest.TinyCrossDir(), "tokenizer.json")))(t)
	return CrossEncoder{CrossEncoder: modeltest.TinyCross(t), Name: name, Origin: "test fixture",
		Tokenizer: tok, Cost: cost(t, modeltest.TinyCrossDir()), Threads: runtime.NumCPU()}
}

// The reranker's roofline counts the tokens the model is given: the
// window cuts the passages, so a narrower window is fewer tokens, and the
// FLOPs follow the model's cost of each pair.
func TestRerankRoofline(t *testing.T) {
	modeltest.NeedRuntime(t)
	c := tinyCross(t, "tiny")
	peaks := []model.Peak{{Threads: runtime.NumCPU(), FP32: 100, Int8: 200}}
	var got []RerankTiming
	for _, w := range []int{32, -1} {
		r, err := timeRerank(context.Background(), c, w, 2, peaks)
		if err != nil {
			t.Fatal(err)
		}
		checkRoofline(t, "window "+r.Window, r.GFLOP, r.P50MS, r.GFLOPS, r.PeakGFLOPS, r.PeakFraction)
		if r.PeakGFLOPS != 100 {
			t.Errorf("window %s: peak %v, want the fp32 100", r.Window, r.PeakGFLOPS)
		}
		got = append(got, r)
	}
	if got[0].Tokens <= 50*32/2 || got[0].Tokens >= got[1].Tokens || got[1].Tokens > 50*float64(model.DefaultMaxLen) {
		t.Errorf("tokens a call: %v at window 32, %v whole; want more than half the window a pair, and fewer than whole's", got[0].Tokens, got[1].Tokens)
	}
	// A call's FLOPs are at least its tokens times the cost per token.
	if min := got[1].Tokens * float64(c.Cost.PerToken) / 1e9; got[1].GFLOP < min*0.99 {
		t.Errorf("whole: %v GFLOP a call, want at least %v", got[1].GFLOP, min)
	}
}

func TestFastestRerank(t *testing.T) {
	w := fmt.Sprint(rerank.DefaultWindow)
	ts := []RerankTiming{{Model: "a", Window: w, P50MS: 90}, {Model: "b", Window: "whole", P50MS: 10}, {Model: "c", Window: w, P50MS: 40}}
	if got, ok := fastestRerank(ts); !ok || got.Model != "c" {
		t.Errorf("fastest %+v (%v), want c: the lowest p50 at the default window", got, ok)
	}
	if _, ok := fastestRerank(ts[1:2]); ok {
		t.Error("a fastest reranker without the default window timed")
	}
}

func TestLoadModelsMissing(t *testing.T) {
	modeltest.NeedRuntime(t)
	m, err := LoadModels(braid.Models{ORTLib: modeltest.RuntimePath(), Dir: t.TempDir()}, t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if m.Embedder != nil || len(m.Rerankers) != 0 {
		t.Fatal("loaded models from empty directories")
	}
	var names []string
	for _, s := range m.Skipped {
		names = append(names, s.Model)
		if s.Model == model.DefaultEmbedder().ID() && !strings.Contains(s.Reason, "make fixtures") {
			t.Errorf("skip reason %q does not name the fix", s.Reason)
		}
	}
	only, err := LoadModels(braid.Models{ORTLib: modeltest.RuntimePath(), Dir: t.TempDir(), Embedder: "none"}, t.TempDir(), []string{"cross-encoder/ms-marco-TinyBERT-L-2-v2"})
	if err != nil {
		t.Fatal(err)
	}
	if len(only.Skipped) != 2 || only.Skipped[1].Model != "cross-encoder/ms-marco-TinyBERT-L-2-v2" {
		t.Errorf("with one reranker named, skipped %+v; want the embedder (none) and that reranker only", only.Skipped)
	}
	for _, want := range []string{model.DefaultEmbedder().ID(), "cross-encoder/ms-marco-MiniLM-L-6-v2", "cross-encoder/ms-marco-TinyBERT-L-2-v2:int8", "BAAI/bge-reranker-base", "BAAI/bge-reranker-base:int8"} {
		if !slices.Contains(names, want) {
			t.Errorf("skipped %v lacks %s", names, want)
		}
	}
}
