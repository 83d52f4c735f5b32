// Package bench is braid's latency harness: it indexes synthetic corpora of
// chosen sizes and times each stage of a search (tokenize, query
// embedding, HNSW, BM25, fusion, hydration, end to end) over repeated
// queries, ingest throughput and peak memory, and the reranker on 50
// pairs per model and passage policy. Results are percentiles of
// single-query latencies; ARCHITECTURE.md's targets are checked beside
// them. `braid bench` is its command.
package bench

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/eval"
	"github.com/braidsearch/braid/internal/memlimit"
	"github.com/braidsearch/braid/model"
	"github.com/braidsearch/braid/rerank"
)

// Config says what to measure.
type Config struct {
	// Sizes are the corpus sizes in chunks; empty means 1,000, 10,000
	// and 100,000.
	Sizes []int
	// Queries is how many searches are timed per size; zero means 200.
	Queries int
	// RerankRuns is how many 50-pair calls are timed per reranker and
	// window; zero means 10.
	RerankRuns int
	// Windows are the passage policies to time the rerankers with: a
	// token window, or -1 for the whole passage; empty means the default
	// window (rerank.DefaultWindow), 128, 256 and whole.
	Windows []int
	// ModelIngest are the sizes, among Sizes, at which the corpus is also
	// indexed through the embedding model itself (with real weights or a
	// fixture of the same architecture), to time what a first index costs;
	// nil means 1,000 and 10,000. It takes about a minute per 1,000 chunks
	// on two cores.
	ModelIngest []int
	// Models are the models to time (see LoadModels).
	Models *Models
	// Dir is where the corpora and indexes are built; empty means a
	// temporary directory, removed afterwards.
	Dir string
	// Log, when set, hears what the bench is doing.
	Log func(format string, args ...any)
	// Backend, when its URL is set, is an OpenSearch cluster on which
	// every corpus is also indexed and searched, in the same run, into
	// the index Backend.Index+"-bench-<size>" (replaced each time):
	// metrics "cluster.*".
	Backend braid.Backend
	// Fresh, when set, runs one hybrid search on the index in dir as a
	// new process would (braid search: the models loaded, the index
	// opened, one search) and returns its wall time and peak RSS; the
	// bench calls it three times a size: metrics "fresh.*".
	Fresh func(ctx context.Context, dir, query string) (Fresh, error)
}

// Fresh is what one fresh search process cost.
type Fresh struct {
	WallMS, PeakMB float64
}

// timeFresh runs cfg.Fresh three times, each with another query, and
// keeps the median wall time and peak RSS: "fresh.wall_ms",
// "fresh.rss_peak_mb". The first run after the ingest finds the index's
// pages in the page cache, as a search soon after an index does.
func timeFresh(ctx context.Context, cfg Config, dir string, queries []string, metrics map[string]float64) error {
	var wall, peak []float64
	for i := range 3 {
		f, err := cfg.Fresh(ctx, dir, queries[(i+1)%len(queries)])
		if err != nil {
			return fmt.Errorf("bench: a fresh search process on %s: %w", dir, err)
		}
		wall, peak = append(wall, f.WallMS), append(peak, f.PeakMB)
	}
	metrics["fresh.wall_ms"] = round(eval.Percentile(wall, 50))
	if p := eval.Percentile(peak, 50); p > 0 { // 0: no /proc to read it from
		metrics["fresh.rss_peak_mb"] = round(p)
	}
	return nil
}

// Report is a bench's result. Metric names are "<stage>.<stat>", e.g.
// "vector.p50_ms", "ingest.chunks_per_s".
type Report struct {
	Embedder  string             `json:"embedder"` // model and origin, or why there is none
	Device    string             `json:"device"`   // where the models ran and why (model.Loaded.Device)
	Sizes     []Size             `json:"sizes"`
	Rerank    []RerankTiming     `json:"rerank"`
	Metrics   map[string]float64 `json:"metrics"` // size-independent figures
	Targets   []Target           `json:"targets"`
	Skipped   []Skipped          `json:"skipped,omitempty"`
	PeakRSSMB float64            `json:"peak_rss_mb"`
	Notes     []string           `json:"notes"`
	// Peaks are the matmul rates measured on this machine (model.ProbePeak),
	// one per thread count a model stage runs on, and NominalPeak what
	// /proc/cpuinfo implies; the roofline (metrics embed.gflop_per_call,
	// embed.gflops, embed.peak_gflops, embed.peak_fraction, and
	// RerankTiming's) is judged against the measured ones.
	Peaks       []model.Peak `json:"peaks,omitempty"`
	NominalPeak string       `json:"nominal_peak,omitempty"`
}

// Size is what was measured on one corpus.
type Size struct {
	Chunks  int                `json:"chunks"`
	Docs    int                `json:"docs"`
	Metrics map[string]float64 `json:"metrics"`
}

// RerankTiming is one reranker at one passage policy: 50 pairs per call.
type RerankTiming struct {
	Model  string  `json:"model"`
	Origin string  `json:"origin"`
	Window string  `json:"window"` // "64", "128", "256" or "whole"
	Pairs  int     `json:"pairs"`
	P50MS  float64 `json:"p50_ms"`
	P95MS  float64 `json:"p95_ms"`
	P99MS  float64 `json:"p99_ms"`
	// MeetsTarget says whether P50MS is within the 50 ms target.
	MeetsTarget bool `json:"meets_target"`
	// The roofline of a call, absent when the arithmetic is unknown:
	// tokens (every pair's, as the model is given them), GFLOP, the rate
	// at P50MS, and that rate against the peak measured on Threads threads
	// in the model's precision.
	Tokens       float64 `json:"tokens_per_call,omitempty"`
	GFLOP        float64 `json:"gflop,omitempty"`
	GFLOPS       float64 `json:"gflops,omitempty"`
	Threads      int     `json:"threads,omitempty"`
	PeakGFLOPS   float64 `json:"peak_gflops,omitempty"`
	PeakFraction float64 `json:"peak_fraction,omitempty"`
}

// Target is one of ARCHITECTURE.md's performance targets and where the
// bench found braid.
type Target struct {
	Name     string  `json:"name"`
	Metric   string  `json:"metric"`
	Chunks   int     `json:"chunks,omitempty"`
	TargetMS float64 `json:"target_ms"`
	// MeasuredMS is absent when the bench did not measure it (the size
	// was not run, or the model was missing).
	MeasuredMS *float64 `json:"measured_ms,omitempty"`
	Met        *bool    `json:"met,omitempty"`
}

// rerankTargetMS is the target for reranking 50 pairs.
const rerankTargetMS = 50

// targets are ../shared/ARCHITECTURE.md's performance targets.
var targets = []Target{
	{Name: "query embedding + HNSW top-50 over 1k", Metric: "vector.p50_ms", Chunks: 1000, TargetMS: 10},
	{Name: "BM25 + fusion at 10k chunks", Metric: "lexical_fusion.p50_ms", Chunks: 10000, TargetMS: 2},
	{Name: "rerank 50 pairs, default model", Metric: "rerank.p50_ms", TargetMS: rerankTargetMS},
	{Name: "rerank 50 pairs, fastest registry reranker at the default window", Metric: "rerank_fastest.p50_ms", TargetMS: rerankTargetMS},
}

// Run measures. It stops early, returning ctx's error, when ctx ends.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if len(cfg.Sizes) == 0 {
		cfg.Sizes = []int{1000, 10000, 100000}
	}
	cfg.Queries = cmpOr(cfg.Queries, 200)
	cfg.RerankRuns = cmpOr(cfg.RerankRuns, 10)
	if len(cfg.Windows) == 0 {
		cfg.Windows = []int{rerank.DefaultWindow, 128, 256, -1}
	}
	if cfg.ModelIngest == nil {
		cfg.ModelIngest = []int{1000, 10000}
	}
	if cfg.Log == nil {
		cfg.Log = func(string, ...any) {}
	}
	if cfg.Models == nil {
		cfg.Models = &Models{}
	}
	if cfg.Dir == "" {
		dir, err := os.MkdirTemp("", "braid-bench-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		cfg.Dir = dir
	}
	rep := &Report{Metrics: map[string]float64{}, Skipped: cfg.Models.Skipped, Device: cfg.Models.Device,
		Notes: []string{"corpora are synthetic: Zipf-distributed pseudo-words, 10 sections (one chunk each) per file"}}
	emb := cfg.Models.Embedder
	if emb != nil {
		rep.Embedder = fmt.Sprintf("%s (%s)", emb.Name, emb.Origin)
		rep.Notes = append(rep.Notes, "passages get synthetic clustered vectors at ingest (embedding 100k chunks for real takes hours); queries are embedded by the model, so search latency is real")
		if err := embedThroughput(ctx, emb, rep); err != nil {
			return nil, err
		}
		if peak, ok := readCPUPeak(); ok {
			rep.Notes = append(rep.Notes, "model_ingest.peak_fraction is the embedder's arithmetic rate against the CPU's nominal peak: "+peak.String())
		}
	} else {
		rep.Embedder = "none: vector stages not measured"
	}
	if peak, ok := readCPUPeak(); ok {
		rep.NominalPeak = peak.String()
	}
	if emb != nil || len(cfg.Models.Rerankers) > 0 {
		cfg.Log("measuring the matmul peak")
	}
	peaks, err := probePeaks(ctx, cfg.Models)
	if err != nil {
		rep.Notes = append(rep.Notes, "no roofline: "+err.Error())
	}
	rep.Peaks = peaks
	for _, n := range cfg.Sizes {
		s, err := runSize(ctx, cfg, n, peaks)
		if err != nil {
			return nil, err
		}
		rep.Sizes = append(rep.Sizes, *s)
	}
	marginal(rep.Sizes)
	for _, c := range cfg.Models.Rerankers {
		for _, w := range cfg.Windows {
			cfg.Log("reranking 50 pairs with %s, window %s", c.Name, windowName(w))
			t, err := timeRerank(ctx, c, w, cfg.RerankRuns, peaks)
			if err != nil {
				return nil, err
			}
			rep.Rerank = append(rep.Rerank, t)
		}
	}
	if t, ok := defaultRerank(rep.Rerank); ok {
		rep.Metrics["rerank.p50_ms"], rep.Metrics["rerank.p95_ms"], rep.Metrics["rerank.p99_ms"] = t.P50MS, t.P95MS, t.P99MS
		rep.Notes = append(rep.Notes, fmt.Sprintf("rerank.* is %s (%s) at the default window of %d tokens", t.Model, t.Origin, rerank.DefaultWindow))
	}
	if t, ok := fastestRerank(rep.Rerank); ok {
		rep.Metrics["rerank_fastest.p50_ms"] = t.P50MS
		rep.Notes = append(rep.Notes, fmt.Sprintf("rerank_fastest.* is %s (%s), the fastest reranker timed at the default window of %d tokens", t.Model, t.Origin, rerank.DefaultWindow))
	}
	rep.PeakRSSMB = peakRSSMB()
	rep.Targets = check(rep)
	return rep, nil
}

func cmpOr(v, d int) int {
	if v <= 0 {
		return d
	}
	return v
}

// runSize builds one corpus and index and times searches on it.
func runSize(ctx context.Context, cfg Config, n int, peaks []model.Peak) (*Size, error) {
	dir := filepath.Join(cfg.Dir, fmt.Sprint(n))
	src := filepath.Join(dir, "corpus")
	cfg.Log("%d chunks: writing the synthetic corpus", n)
	queries, natural, warm, err := corpus(ctx, src, n, min(cfg.Queries, 500))
	if err != nil {
		return nil, err
	}
	opt := &braid.Options{Purpose: "braid bench"}
	emb := cfg.Models.Embedder
	if emb != nil {
		// Under the model's own key, so that braid search (and the
		// fresh-process probe, Config.Fresh) opens the index with the
		// model and searches its synthetic vectors.
		opt.Embedder, opt.Model = newSynthetic(emb), emb.Key()
	}
	e, err := braid.Open(filepath.Join(dir, "index"), opt)
	if err != nil {
		return nil, err
	}
	defer e.Close()
	cfg.Log("%d chunks: indexing", n)
	start, cpu0 := time.Now(), cpuSeconds()
	sum, err := e.Index(ctx, []braid.SourceSpec{{Path: src}}, nil)
	if err != nil {
		return nil, err
	}
	secs := time.Since(start).Seconds()
	s := &Size{Chunks: sum.Chunks, Docs: sum.Added, Metrics: map[string]float64{
		"ingest.s":            round(secs),
		"ingest.docs_per_s":   round(float64(sum.Added) / secs),
		"ingest.chunks_per_s": round(float64(sum.Chunks) / secs),
		"ingest.rss_peak_mb":  peakRSSMB(),
		// the process's CPU (user and system), which other jobs on the
		// machine slow less than they slow the wall clock
		"ingest.cpu_s": round(cpuSeconds() - cpu0),
	}}
	// What the process holds as the ingest ends: anonymous pages (the
	// heap, ONNX Runtime) and the pages of files it maps (meta.db, the
	// lexical segments, the graph, the binary and the model).
	anon, file := memlimit.Resident()
	s.Metrics["ingest.rss_anon_mb"] = round(float64(anon) / (1 << 20))
	s.Metrics["ingest.rss_file_mb"] = round(float64(file) / (1 << 20))
	if c := sum.Compacted; c != nil {
		s.Metrics["ingest.compact_s"] = round(float64(c.TookMS) / 1000)
		s.Metrics["ingest.compact_saved_mb"] = round(float64(c.Saved()) / 1e6)
	}
	cfg.Log("%d chunks: %d searches", n, cfg.Queries)
	err = timeSearches(ctx, e, queries, cfg.Queries, emb != nil, "", s.Metrics, func(q string, lex, res *braid.Results, add func(string, float64)) {
		if res == nil {
			add("lexical", lex.Timings.Lexical)
			return
		}
		t0 := time.Now()
		emb.Tokenizer.Encode(q, 512)
		add("tokenize", msSince(t0))
		t := res.Timings
		add("search", res.TookMS)
		add("embed", t.Embed)
		add("hnsw", t.Vector)
		add("vector", t.Embed+t.Vector)
		add("lexical", t.Lexical)
		add("fusion", t.Fusion)
		add("lexical_fusion", t.Lexical+t.Fusion)
		add("hydrate", t.Hydrate)
	})
	if err != nil {
		return nil, err
	}
	if emb != nil {
		timed := make([]string, cfg.Queries)
		for i := range timed {
			timed[i] = queries[i%len(queries)]
		}
		embedRoofline(emb, peaks, timed, s.Metrics)
	}
	// BM25 on questions in words, common words and all: what a user
	// types grows the posting lists read with the corpus. The first
	// questions a process is asked read their common words' postings
	// whole, which it keeps for the next (lexical_natural_first); the
	// others are timed after them, in a process that has answered such
	// questions before, as a server has (lexical_natural).
	zero := 0.0
	for _, pass := range []struct {
		name string
		qs   []string
	}{{"lexical_natural_first", warm}, {"lexical_natural", natural}} {
		var took []float64
		for i := range cfg.Queries {
			res, err := e.Search(ctx, pass.qs[i%len(pass.qs)], braid.SearchOptions{VectorWeight: &zero, NoRerank: true})
			if err != nil {
				return nil, err
			}
			took = append(took, res.Timings.Lexical)
		}
		for _, p := range []float64{50, 95, 99} {
			s.Metrics[fmt.Sprintf("%s.p%.0f_ms", pass.name, p)] = round(eval.Percentile(took, p))
		}
	}
	// What a user pays to re-run braid index with nothing changed, and
	// what the index holds on disk per chunk.
	t0 := time.Now()
	if _, err := e.Index(ctx, []braid.SourceSpec{{Path: src}}, nil); err != nil {
		return nil, err
	}
	s.Metrics["reindex_unchanged.s"] = round(time.Since(t0).Seconds())
	// What --watch does for one edited note: the run over the changed
	// path alone (the debounce before it not counted). It comes before
	// the timed one-note index, after a run that changed nothing, so that
	// neither follows the other's lexical merges.
	took, err := timeWatch(ctx, e, src, filepath.Join(src, "d000", "note-000001.md"))
	if err != nil {
		return nil, err
	}
	s.Metrics["watch_one_note.s"] = round(took.Seconds())
	// What braid index does for one edited note: the same run, with one
	// file changed (embedding its chunks again: synthetic vectors here).
	note := filepath.Join(src, "d000", "note-000000.md")
	if err := appendLine(note, "An edited line."); err != nil {
		return nil, err
	}
	t0 = time.Now()
	sum, err = e.Index(ctx, []braid.SourceSpec{{Path: src}}, nil)
	if err != nil {
		return nil, err
	}
	if sum.Updated != 1 {
		return nil, fmt.Errorf("bench: editing %s updated %d documents, want 1", note, sum.Updated)
	}
	s.Metrics["reindex_one_note.s"] = round(time.Since(t0).Seconds())
	if b := dirBytes(filepath.Join(dir, "index")); b > 0 && s.Chunks > 0 {
		s.Metrics["disk.bytes_per_chunk"] = round(float64(b) / float64(s.Chunks))
	}
	// What opening the index again costs, as a new process would: the
	// open and its first search, and the heap they keep (a file the
	// index maps is not heap). The embedder is the one already loaded.
	if err := timeReopen(ctx, e, filepath.Join(dir, "index"), opt, queries[0], s.Metrics); err != nil {
		return nil, err
	}
	s.Metrics["rss_peak_mb"] = peakRSSMB()
	if cfg.Fresh != nil && emb != nil {
		if err := timeFresh(ctx, cfg, filepath.Join(dir, "index"), queries, s.Metrics); err != nil {
			return nil, err
		}
	}
	if cfg.Backend.URL != "" {
		if err := onCluster(ctx, cfg, n, src, queries, s); err != nil {
			return nil, err
		}
	}
	if emb != nil && slices.Contains(cfg.ModelIngest, n) {
		if err := modelIngest(ctx, cfg, n, src, s); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// timeReopen closes e, opens its index at dir again with opt and runs one
// search of q (hybrid when opt has an embedder), recording the time as
// "reopen.ms" and the heap the new engine keeps as "reopen.heap_mb"; then
// does it once more as "reopen_stamped.ms", the files' checksums stamped.
func timeReopen(ctx context.Context, e *braid.Engine, dir string, opt *braid.Options, q string, metrics map[string]float64) error {
	if err := e.Close(); err != nil {
		return err
	}
	openAndSearch := func() (*braid.Engine, error) {
		e, err := braid.Open(dir, opt)
		if err != nil {
			return nil, err
		}
		if _, err := e.Search(ctx, q, braid.SearchOptions{NoRerank: true}); err != nil {
			e.Close()
			return nil, err
		}
		return e, nil
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	t0 := time.Now()
	e2, err := openAndSearch()
	if err != nil {
		return err
	}
	metrics["reopen.ms"] = round(msSince(t0))
	runtime.GC()
	runtime.ReadMemStats(&after)
	metrics["reopen.heap_mb"] = round(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / (1 << 20))
	runtime.KeepAlive(e2)
	// The first open read the files' checksums and stamped them under
	// the user's key; an open after it, as every later search's, reads
	// only what changed since.
	if err := e2.Close(); err != nil {
		return err
	}
	t0 = time.Now()
	e3, err := openAndSearch()
	if err != nil {
		return err
	}
	defer e3.Close()
	metrics["reopen_stamped.ms"] = round(msSince(t0))
	return nil
}

// timeSearches runs n searches over queries: each a lexical one, then,
// with vectors, a hybrid one, neither reranked. It records the lexical
// search's time as "search_lexical" and what stages adds (hybrid is nil
// without vectors), then puts p50, p95 and p99 of every stage into metrics
// as "<prefix><stage>.p50_ms" and so on.
func timeSearches(ctx context.Context, e *braid.Engine, queries []string, n int, vectors bool, prefix string, metrics map[string]float64,
	stages func(q string, lexical, hybrid *braid.Results, add func(stage string, ms float64))) error {
	samples := map[string][]float64{}
	add := func(stage string, ms float64) { samples[stage] = append(samples[stage], ms) }
	zero := 0.0
	for i := range n {
		q := queries[i%len(queries)]
		lex, err := e.Search(ctx, q, braid.SearchOptions{VectorWeight: &zero, NoRerank: true})
		if err != nil {
			return err
		}
		add("search_lexical", lex.TookMS)
		var hybrid *braid.Results
		if vectors {
			if hybrid, err = e.Search(ctx, q, braid.SearchOptions{NoRerank: true}); err != nil {
				return err
			}
		}
		stages(q, lex, hybrid, add)
	}
	for name, xs := range samples {
		for _, p := range []float64{50, 95, 99} {
			metrics[fmt.Sprintf("%s%s.p%.0f_ms", prefix, name, p)] = round(eval.Percentile(xs, p))
		}
	}
	return nil
}

// modelIngest indexes the corpus at src again, this time embedding every
// chunk with the model, and records throughput and the fraction of the
// CPU's arithmetic peak the model reached (from the FLOPs per token its
// weight matrices imply, counting the tokens the model saw: padding
// included, since the model computes it too, is not counted).
func modelIngest(ctx context.Context, cfg Config, n int, src string, s *Size) error {
	emb := cfg.Models.Embedder
	cfg.Log("%d chunks: indexing with %s embedding every chunk", n, emb.Name)
	models := &braid.LoadedModels{Embedder: emb.Embedder} // closed with the bench's models
	e, err := braid.OpenLoaded(filepath.Join(cfg.Dir, fmt.Sprint(n), "model-index"), &braid.Options{Purpose: "braid bench"}, models)
	if err != nil {
		return err
	}
	defer e.Close()
	start := time.Now()
	sum, err := e.Index(ctx, []braid.SourceSpec{{Path: src}}, nil)
	if err != nil {
		return err
	}
	secs := time.Since(start).Seconds()
	m := s.Metrics
	m["model_ingest.s"] = round(secs)
	m["model_ingest.chunks_per_s"] = round(float64(sum.Chunks) / secs)
	m["model_ingest.tokens_per_s"] = round(float64(sum.Tokens) / secs)
	m["model_ingest.embed_share"] = round(float64(sum.EmbedMS) / 1000 / secs)
	m["model_ingest.rss_peak_mb"] = peakRSSMB()
	flops, err := emb.FLOPsPerToken()
	if err != nil || sum.EmbedMS == 0 {
		return nil // throughput stands without the estimate
	}
	gflops := float64(flops) * float64(sum.Tokens) / (float64(sum.EmbedMS) / 1000) / 1e9
	m["model_ingest.gflops"] = round(gflops)
	if peak, ok := readCPUPeak(); ok {
		ceiling := peak.FP32
		if emb.Spec().Variant == "int8" {
			ceiling = peak.Int8
		}
		m["model_ingest.peak_fraction"] = round(gflops / ceiling)
	}
	return nil
}

// dirBytes is the size of the files under dir; 0 when it cannot be read.
func dirBytes(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

func msSince(t time.Time) float64 { return float64(time.Since(t).Nanoseconds()) / 1e6 }

// timeWatch watches the source at src, appends a line to note once the
// watch is up, and returns how long the re-index run it made took.
func timeWatch(ctx context.Context, e *braid.Engine, src, note string) (time.Duration, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type run struct {
		sum *braid.Summary
		err error
	}
	ready, runs, done := make(chan struct{}), make(chan run, 16), make(chan error, 1)
	go func() {
		done <- e.Watch(ctx, []string{src}, &braid.WatchOptions{Debounce: 10 * time.Millisecond,
			Ready:   func() { close(ready) },
			Indexed: func(_ *braid.Source, sum *braid.Summary, err error) { runs <- run{sum, err} }})
	}()
	select {
	case <-ready:
	case err := <-done:
		return 0, fmt.Errorf("bench: watch %s: %v", src, err)
	}
	if err := appendLine(note, "An edited line, watched."); err != nil {
		return 0, err
	}
	var r run
	select {
	case r = <-runs:
	case err := <-done:
		return 0, fmt.Errorf("bench: watch %s stopped before the edit was indexed: %v", src, err)
	case <-time.After(time.Minute):
		return 0, fmt.Errorf("bench: the watch did not re-index %s within a minute of the edit", note)
	}
	cancel()
	if err := <-done; err != nil {
		return 0, err
	}
	switch {
	case r.err != nil:
		return 0, fmt.Errorf("bench: watch run after editing %s: %w", note, r.err)
	case r.sum.Updated != 1:
		return 0, fmt.Errorf("bench: the watch run after editing %s updated %d documents, want 1", note, r.sum.Updated)
	}
	return time.Duration(r.sum.TookMS) * time.Millisecond, nil
}

// appendLine appends line to the note at path, as an edit would.
func appendLine(path, line string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString("\n" + line + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func round(x float64) float64 {
	switch {
	case x >= 100:
		return float64(int64(x + 0.5))
	case x >= 1:
		return float64(int64(x*100+0.5)) / 100
	}
	return float64(int64(x*10000+0.5)) / 10000
}

// embedThroughput times the model on passages as ingest sends them: 32
// chunks of about 300 tokens, twice, the second run counted.
func embedThroughput(ctx context.Context, emb *Embedder, rep *Report) error {
	texts := make([]string, 32)
	for i := range texts {
		texts[i] = words(i, 300)
	}
	if _, err := emb.Embed(ctx, texts[:2], false); err != nil {
		return err
	}
	start := time.Now()
	if _, err := emb.Embed(ctx, texts, false); err != nil {
		return err
	}
	rep.Metrics["embed.chunks_per_s"] = round(float64(len(texts)) / time.Since(start).Seconds())
	return nil
}

// benchWords are common English words that are one wordpiece each in the
// BERT uncased vocabulary, so n of them are about n model tokens.
var benchWords = strings.Fields(`the of and to in is it that for on with as was be by this are or from at
an not have has had but all can will one which their more about how what when where search query
document note index text word file line code data model vector rank score match link title plugin load
space script write read run test build server cache memory disk fast slow small large quick brown fox
lazy dog water fire river mountain tree book learn machine network language sentence question answer`)

// words returns n benchWords, a different sequence for each seed.
func words(seed, n int) string {
	out := make([]string, n)
	x := uint64(seed)*2654435761 + 1
	for i := range out {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		out[i] = benchWords[x%uint64(len(benchWords))]
	}
	return strings.Join(out, " ")
}

func windowName(w int) string {
	if w < 0 {
		return "whole"
	}
	return fmt.Sprint(w)
}

// timeRerank reranks 50 passages of about 470 tokens (a full chunk) with
// a ten-word query, a new query each run so the score cache never hits,
// with no time budget, and puts its roofline against peaks.
func timeRerank(ctx context.Context, c CrossEncoder, window, runs int, peaks []model.Peak) (RerankTiming, error) {
	ps := make([]rerank.Passage, 50)
	for i := range ps {
		ps[i] = rerank.Passage{ID: fmt.Sprint(i), Text: words(1000+i, 470)}
	}
	rec := &recorder{Scorer: c.CrossEncoder}
	rr := rerank.New(rec, rerank.Options{Window: window})
	if _, err := rr.Rerank(ctx, "warm up", ps[:2]); err != nil {
		return RerankTiming{}, err
	}
	rec.calls = nil
	lat := make([]float64, 0, runs)
	for i := range runs {
		q := fmt.Sprintf("%s %d", words(i, 9), i)
		start := time.Now()
		out, err := rr.Rerank(ctx, q, ps)
		if err != nil {
			return RerankTiming{}, err
		}
		lat = append(lat, msSince(start))
		if out.Reranked != len(ps) {
			return RerankTiming{}, fmt.Errorf("bench: %s reranked %d of %d pairs without a budget", c.Name, out.Reranked, len(ps))
		}
	}
	t := RerankTiming{Model: c.Name, Origin: c.Origin, Window: windowName(window), Pairs: len(ps),
		P50MS: round(eval.Percentile(lat, 50)), P95MS: round(eval.Percentile(lat, 95)), P99MS: round(eval.Percentile(lat, 99))}
	t.MeetsTarget = t.P50MS <= rerankTargetMS
	rerankRoofline(&t, c, rec.calls, runs, peaks)
	return t, nil
}

// defaultRerank is the default cross-encoder at the default window.
func defaultRerank(ts []RerankTiming) (RerankTiming, bool) {
	i := slices.IndexFunc(ts, func(t RerankTiming) bool {
		return t.Model == "cross-encoder/ms-marco-MiniLM-L-6-v2" && t.Window == fmt.Sprint(rerank.DefaultWindow)
	})
	if i < 0 {
		return RerankTiming{}, false
	}
	return ts[i], true
}

// fastestRerank is the reranker with the lowest p50 at the default window.
func fastestRerank(ts []RerankTiming) (RerankTiming, bool) {
	var best RerankTiming
	found := false
	for _, t := range ts {
		if t.Window == fmt.Sprint(rerank.DefaultWindow) && (!found || t.P50MS < best.P50MS) {
			best, found = t, true
		}
	}
	return best, found
}

// check fills in the targets from the report.
func check(rep *Report) []Target {
	out := slices.Clone(targets)
	for i := range out {
		t := &out[i]
		var v float64
		var ok bool
		if t.Chunks == 0 {
			v, ok = rep.Metrics[t.Metric]
		} else {
			// The size nearest the target's, as long as it is within 2x.
			best := -1
			for j, s := range rep.Sizes {
				if s.Chunks*2 >= t.Chunks && s.Chunks <= t.Chunks*2 && (best < 0 || absDiff(s.Chunks, t.Chunks) < absDiff(rep.Sizes[best].Chunks, t.Chunks)) {
					best = j
				}
			}
			if best >= 0 {
				v, ok = rep.Sizes[best].Metrics[t.Metric]
			}
		}
		if ok {
			met := v <= t.TargetMS
			t.MeasuredMS, t.Met = &v, &met
		}
	}
	return out
}

func absDiff(a, b int) int {
	if a > b {
		return a - b
	}
	return b - a
}

// marginal adds to each size after the first what its ingest grew the
// process's peak resident set by, per chunk more than the size before:
// "ingest.rss_kib_per_chunk" (issue 45's target is 4 KiB a chunk).
func marginal(sizes []Size) {
	for i := 1; i < len(sizes); i++ {
		a, b := sizes[i-1], sizes[i]
		if d := b.Chunks - a.Chunks; d > 0 {
			grew := b.Metrics["ingest.rss_peak_mb"] - a.Metrics["ingest.rss_peak_mb"]
			b.Metrics["ingest.rss_kib_per_chunk"] = round(grew * 1024 / float64(d))
		}
	}
}

// cpuSeconds is the CPU time this process has used, user and system.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// peakRSSMB is the process's peak resident set so far.
func peakRSSMB() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return round(float64(ru.Maxrss) / 1024) // kilobytes on Linux
}
