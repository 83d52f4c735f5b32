package model

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/braidsearch/braid/internal/testenv"
	"github.com/braidsearch/braid/tokenizer"
)

const (
	tinyEncoder = "testdata/tiny-encoder"
	tinyCross   = "testdata/tiny-cross"
)

// tinySpec describes testdata/tiny-encoder, a random-weight BERT with
// hidden size 8 written by tools/genmodel.
func tinySpec() Spec {
	return Spec{
		Name:        "braid/tiny-encoder",
		Kind:        KindEmbedder,
		Pooling:     PoolCLS,
		Dim:         8,
		MaxLen:      64,
		QueryPrefix: "represent this sentence for searching relevant passages: ",
	}
}

// texts have very different token counts, so that batches need padding.
var texts = []string{
	"hello",
	"how do plugins load in the space script",
	"A quick brown fox jumps over the lazy dog, and the lazy dog does not care at all about it.",
	"vector",
	"Hybrid search: rank documents by BM25 and embeddings; fuse the scores, then rerank the best ones with a cross-encoder model.",
	"notes with tags",
	"",
	"zyxw qqq 12345 !!",
	strings.Repeat("long text is truncated at the maximum length of the model ", 20),
}

func loadTiny(t testing.TB, spec Spec, cfg Config) *Embedder {
	t.Helper()
	needRuntime(t)
	e, err := LoadEmbedder(context.Background(), tinyEncoder, spec, cfg)
	if err != nil {
		t.Fatalf("LoadEmbedder: %v", err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func embed(t *testing.T, e *Embedder, texts []string, query bool) [][]float32 {
	t.Helper()
	v, err := e.Embed(context.Background(), texts, query)
	if err != nil {
		t.Fatalf("Embed: %v", err)
	}
	if len(v) != len(texts) {
		t.Fatalf("Embed returned %d vectors for %d texts", len(v), len(texts))
	}
	return v
}

// maxDiff is the largest absolute difference between a and b.
func maxDiff(a, b []float32) float64 {
	if len(a) != len(b) {
		return math.Inf(1)
	}
	d := 0.0
	for i := range a {
		d = max(d, math.Abs(float64(a[i]-b[i])))
	}
	return d
}

func TestEmbedUnitLengthAndDeterministic(t *testing.T) {
	e := loadTiny(t, tinySpec(), Config{})
	if e.Dim() != 8 {
		t.Fatalf("Dim() = %d, want 8", e.Dim())
	}
	a := embed(t, e, texts, false)
	b := embed(t, e, texts, false)
	for i, v := range a {
		if len(v) != 8 {
			t.Fatalf("text %d: %d dimensions, want 8", i, len(v))
		}
		var n float64
		for _, x := range v {
			n += float64(x) * float64(x)
		}
		if math.Abs(math.Sqrt(n)-1) > 1e-5 {
			t.Errorf("text %d: norm %v, want 1", i, math.Sqrt(n))
		}
		if d := maxDiff(v, b[i]); d != 0 {
			t.Errorf("text %d: second run differs by %g", i, d)
		}
	}
	// Different texts give different vectors.
	if maxDiff(a[0], a[1]) < 1e-3 {
		t.Errorf("texts 0 and 1 embed alike: %v %v", a[0], a[1])
	}
}

// Batching sorts texts by length and pads each batch to its own longest
// text: neither may change a text's vector or its place in the result.
func TestEmbedBatchInvariant(t *testing.T) {
	for _, pooling := range []Pooling{PoolCLS, PoolMean} {
		for _, batch := range []int{1, 2, 3, 32} {
			t.Run(fmt.Sprintf("%s/batch=%d", pooling, batch), func(t *testing.T) {
				spec := tinySpec()
				spec.Pooling = pooling
				e := loadTiny(t, spec, Config{BatchSize: batch, Threads: 1})
				all := embed(t, e, texts, false)
				for i, text := range texts {
					one := embed(t, e, []string{text}, false)[0]
					if d := maxDiff(all[i], one); d > 1e-5 {
						t.Errorf("text %d: batched and alone differ by %g", i, d)
					}
				}
			})
		}
	}
}

// A single text runs on a one-thread session and a batch on the
// configured threads: the batch session opens on the first batch only, the
// two give the same vectors, and a batch that comes before any single text
// closes the one-thread session (an index run holds one copy of the model),
// which the next single text opens again.
func TestEmbedSingleAndBatchSessions(t *testing.T) {
	ctx := context.Background()
	e := loadTiny(t, tinySpec(), Config{Threads: 2})
	alone := make([][]float32, len(texts))
	for i, text := range texts {
		v, err := e.EmbedQuery(ctx, text, true)
		if err != nil {
			t.Fatal(err)
		}
		alone[i] = v
	}
	if e.batch != nil {
		t.Fatal("single texts opened the batch session")
	}
	all := embed(t, e, texts, true)
	if e.batch == nil || e.batch == e.one || e.one == nil {
		t.Fatal("a batch did not run on a session of its own beside the used one-thread session")
	}
	for i := range texts {
		if d := maxDiff(all[i], alone[i]); d > 1e-5 {
			t.Errorf("text %d: batched and alone differ by %g", i, d)
		}
	}

	idx := loadTiny(t, tinySpec(), Config{Threads: 2})
	batched := embed(t, idx, texts, true)
	if idx.one != nil {
		t.Error("a batch before any single text left the one-thread session open")
	}
	v, err := idx.EmbedQuery(ctx, texts[0], true)
	if err != nil || idx.one == nil {
		t.Fatalf("a single text after the batch: %v, session %v", err, idx.one)
	}
	if d := maxDiff(v, batched[0]); d > 1e-5 {
		t.Errorf("the reopened session differs from the batch by %g", d)
	}

	if one := loadTiny(t, tinySpec(), Config{Threads: 1}); one.batch != one.one {
		t.Error("with one thread configured, batches do not share the single-text session")
	}
	e.Close()
	if _, err := e.Embed(ctx, texts[:2], false); err == nil {
		t.Error("Embed after Close succeeded")
	}
	if _, err := e.EmbedQuery(ctx, "x", true); err == nil {
		t.Error("EmbedQuery after Close succeeded")
	}
}

func TestEmbedQueryPrefix(t *testing.T) {
	e := loadTiny(t, tinySpec(), Config{})
	q := embed(t, e, texts[:2], true)
	p := embed(t, e, texts[:2], false)
	for i := range q {
		if maxDiff(q[i], p[i]) < 1e-4 {
			t.Errorf("text %d: query and passage embeddings equal despite a query prefix", i)
		}
	}
	// The prefix is text: a passage that spells it out embeds like the query.
	spelled := embed(t, e, []string{tinySpec().QueryPrefix + texts[1]}, false)[0]
	if d := maxDiff(spelled, q[1]); d > 1e-5 {
		t.Errorf("prefixed passage and query differ by %g", d)
	}

	// EmbedQuery: with the instruction as Embed(query), without it as the
	// bare text.
	ctx := context.Background()
	if with, err := e.EmbedQuery(ctx, texts[1], true); err != nil || maxDiff(with, q[1]) > 1e-6 {
		t.Errorf("EmbedQuery with the instruction differs from Embed(query) (%v)", err)
	}
	if without, err := e.EmbedQuery(ctx, texts[1], false); err != nil || maxDiff(without, p[1]) > 1e-6 {
		t.Errorf("EmbedQuery without the instruction differs from the bare text's embedding (%v)", err)
	}
	if !e.HasQueryInstruction() {
		t.Error("HasQueryInstruction false for a spec with a query prefix")
	}

	noPrefix := tinySpec()
	noPrefix.QueryPrefix = ""
	e2 := loadTiny(t, noPrefix, Config{})
	q2 := embed(t, e2, texts[:1], true)
	if d := maxDiff(q2[0], p[0]); d > 1e-6 {
		t.Errorf("without prefixes query and passage differ by %g", d)
	}
}

func TestEmbedPoolingDiffers(t *testing.T) {
	cls := loadTiny(t, tinySpec(), Config{})
	spec := tinySpec()
	spec.Pooling = PoolMean
	mean := loadTiny(t, spec, Config{})
	a := embed(t, cls, texts[1:3], false)
	b := embed(t, mean, texts[1:3], false)
	for i := range a {
		if maxDiff(a[i], b[i]) < 1e-3 {
			t.Errorf("text %d: CLS and mean pooling agree: %v", i, a[i])
		}
	}
}

// stopAfter is a context whose Err turns to Canceled after n calls.
type stopAfter struct {
	context.Context
	mu sync.Mutex
	n  int
}

func (c *stopAfter) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n <= 0 {
		return context.Canceled
	}
	c.n--
	return nil
}

func TestEmbedContext(t *testing.T) {
	e := loadTiny(t, tinySpec(), Config{BatchSize: 2})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.Embed(ctx, texts, false); !errors.Is(err, context.Canceled) {
		t.Errorf("Embed(cancelled) = %v, want context.Canceled", err)
	}
	// Cancelled between batches: the first batch runs, the second does not.
	if _, err := e.Embed(&stopAfter{Context: context.Background(), n: 1}, texts, false); !errors.Is(err, context.Canceled) {
		t.Errorf("Embed(cancelled after a batch) = %v, want context.Canceled", err)
	}
	if v, err := e.Embed(context.Background(), nil, false); err != nil || len(v) != 0 {
		t.Errorf("Embed(nil) = %v, %v; want empty", v, err)
	}
}

func TestEmbedDim(t *testing.T) {
	needRuntime(t)
	spec := tinySpec()
	spec.Dim = 0
	e := loadTiny(t, spec, Config{})
	if e.Dim() != 8 {
		t.Errorf("Dim() with spec.Dim 0 = %d, want 8 from the model", e.Dim())
	}
	if e.Spec().Name != spec.Name {
		t.Errorf("Spec().Name = %q, want %q", e.Spec().Name, spec.Name)
	}

	spec.Dim = 384
	_, err := LoadEmbedder(context.Background(), tinyEncoder, spec, Config{})
	if !errors.Is(err, ErrDimMismatch) {
		t.Fatalf("LoadEmbedder with Dim 384 = %v, want ErrDimMismatch", err)
	}
	for _, s := range []string{"8", "384", spec.ID()} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not mention %q", err, s)
		}
	}
}

func TestLoadEmbedderErrors(t *testing.T) {
	needRuntime(t)
	onlyModel := t.TempDir()
	copyFile(t, filepath.Join(tinyEncoder, ModelFile), filepath.Join(onlyModel, ModelFile))
	onlyTok := t.TempDir()
	copyFile(t, filepath.Join(tinyEncoder, TokenizerFile), filepath.Join(onlyTok, TokenizerFile))
	crossModel := t.TempDir()
	copyFile(t, filepath.Join(tinyCross, ModelFile), filepath.Join(crossModel, ModelFile))
	copyFile(t, filepath.Join(tinyCross, TokenizerFile), filepath.Join(crossModel, TokenizerFile))

	tests := []struct {
		name string
		dir  string
		spec func(*Spec)
		cfg  Config
		is   error
		want []string
	}{
		{name: "empty dir", dir: t.TempDir(), is: ErrNoModel, want: []string{ModelFile, "model.Pull braid/tiny-encoder"}},
		{name: "no tokenizer", dir: onlyModel, is: ErrNoModel, want: []string{TokenizerFile, "model.Pull"}},
		{name: "no model", dir: onlyTok, is: ErrNoModel, want: []string{ModelFile}},
		{name: "cross-encoder files", dir: crossModel, want: []string{"logits", "want [batch, sequence, hidden]"}},
		{name: "cross-encoder spec", dir: tinyEncoder, spec: func(s *Spec) { s.Kind = KindCrossEncoder }, want: []string{"cross-encoder"}},
		{name: "unknown pooling", dir: tinyEncoder, spec: func(s *Spec) { s.Pooling = "max" }, want: []string{`"max"`}},
		{name: "negative threads", dir: tinyEncoder, cfg: Config{Threads: -1}, want: []string{"threads -1"}},
		{name: "negative batch size", dir: tinyEncoder, cfg: Config{BatchSize: -2}, want: []string{"batch size -2"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			spec := tinySpec()
			if tc.spec != nil {
				tc.spec(&spec)
			}
			e, err := LoadEmbedder(context.Background(), tc.dir, spec, tc.cfg)
			if err == nil {
				e.Close()
				t.Fatal("LoadEmbedder succeeded, want an error")
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("error %v is not %v", err, tc.is)
			}
			for _, s := range tc.want {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not mention %q", err, s)
				}
			}
		})
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestEmbedConcurrentAndClose(t *testing.T) {
	e := loadTiny(t, tinySpec(), Config{BatchSize: 4, Threads: 1})
	want := embed(t, e, texts, false)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := e.Embed(context.Background(), texts, g%2 == 0)
			if err != nil {
				errs <- err
				return
			}
			if g%2 == 1 {
				for i := range got {
					if d := maxDiff(got[i], want[i]); d != 0 {
						errs <- fmt.Errorf("goroutine %d text %d differs by %g", g, i, d)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}

	if err := e.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := e.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := e.Embed(context.Background(), texts[:1], false); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("Embed after Close = %v, want a closed error", err)
	}
}

// encodings returns encodings with the given token counts.
func encodings(lens ...int) []tokenizer.Encoding {
	encs := make([]tokenizer.Encoding, len(lens))
	for i, n := range lens {
		encs[i].IDs = make([]int64, n)
	}
	return encs
}

func TestBatches(t *testing.T) {
	encs := encodings(3, 1, 4, 1, 5, 9, 2)
	got := batches(encs, 3, 0)
	want := [][]int{{5, 4, 2}, {0, 6, 1}, {3}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("batches = %v, want %v", got, want)
	}
	if got := batches(nil, 3, 0); len(got) != 0 {
		t.Errorf("batches(nil) = %v, want none", got)
	}
	// A budget of 10 padded tokens: 9 alone, then 5+4 (2 x 5), then
	// 3+2+1 (3 x 3), then 1.
	got = batches(encs, 3, 10)
	want = [][]int{{5}, {4, 2}, {0, 6, 1}, {3}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("batches with a budget = %v, want %v", got, want)
	}
	// An input longer than the budget runs alone.
	if got := batches(encodings(12, 2), 3, 10); fmt.Sprint(got) != "[[0] [1]]" {
		t.Errorf("batches over the budget = %v, want [[0] [1]]", got)
	}
}

// TestOptimizedCache loads the tiny model three times: the first session
// optimises the graph and saves it in the cache, the second loads the
// saved graph, the third finds it damaged and optimises afresh. All three
// embed alike.
func TestOptimizedCache(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv("HOME", cache)
	texts := []string{"a short text", "a somewhat longer text about gardens and rivers"}
	embed := func() [][]float32 {
		t.Helper()
		e := loadTiny(t, tinySpec(), Config{Threads: 1})
		defer e.Close()
		v, err := e.Embed(context.Background(), texts, false)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	first := embed()
	files := testenv.Must1(filepath.Glob(filepath.Join(cache, "braid", "optimized", "*.ort")))(t)
	if len(files) != 1 {
		t.Fatalf("cache holds %v after the first load, want one optimised graph", files)
	}
	saved := testenv.Must1(os.ReadFile(files[0]))(t)
	same := func(got [][]float32, when string) {
		t.Helper()
		for i := range first {
			for k := range first[i] {
				if d := math.Abs(float64(first[i][k] - got[i][k])); d > 1e-5 {
					t.Fatalf("%s: text %d differs by %g from the first load", when, i, d)
				}
			}
		}
	}
	same(embed(), "from the cached graph")
	if again, _ := os.ReadFile(files[0]); !bytes.Equal(again, saved) {
		t.Errorf("the second load rewrote the cached graph")
	}
	if err := os.WriteFile(files[0], []byte("not a model"), 0o644); err != nil {
		t.Fatal(err)
	}
	same(embed(), "over a damaged cache file")
	if st3, _ := os.Stat(files[0]); st3.Size() <= int64(len("not a model")) {
		t.Errorf("a damaged cache file was not replaced (%d bytes)", st3.Size())
	}
	t.Setenv(OptimizedCacheEnv, "off")
	same(embed(), "with the cache off")
}

// TestEvict keeps the most recently used cache files.
func TestEvict(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	for i := range 5 {
		p := filepath.Join(dir, fmt.Sprintf("%d.ort", i))
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		at := now.Add(time.Duration(i) * time.Minute)
		testenv.Must(t, os.Chtimes(p, at, at))
	}
	evict(dir, 2)
	left := testenv.Must1(filepath.Glob(filepath.Join(dir, "*.ort")))(t)
	if fmt.Sprint(left) != fmt.Sprint([]string{filepath.Join(dir, "3.ort"), filepath.Join(dir, "4.ort")}) {
		t.Errorf("evict kept %v, want the two newest", left)
	}
}

// TestEmbedHostileText embeds what a hostile or broken file can hold:
// invalid UTF-8, NUL bytes, a text far past the model's length, one long
// unbroken word, nothing but spaces. Each gets a unit vector; none crashes
// or errs, and the batch around them is unaffected.
func TestEmbedHostileText(t *testing.T) {
	e := loadTiny(t, tinySpec(), Config{Threads: 1, TokenBudget: 64})
	defer e.Close()
	normal := "a normal sentence about gardens"
	texts := []string{
		normal,
		"bad \xff\xfe bytes \xc3\x28 in the middle",
		"nul\x00bytes\x00inside",
		strings.Repeat("word ", 100000),
		strings.Repeat("x", 1<<20),
		"     ",
	}
	got, err := e.Embed(context.Background(), texts, false)
	if err != nil {
		t.Fatal(err)
	}
	alone, err := e.Embed(context.Background(), []string{normal}, false)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range got {
		var norm float64
		for _, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				t.Fatalf("text %d: non-finite component", i)
			}
			norm += float64(x) * float64(x)
		}
		if math.Abs(norm-1) > 1e-3 {
			t.Errorf("text %d: norm %g, want a unit vector", i, math.Sqrt(norm))
		}
	}
	for k := range alone[0] {
		if d := math.Abs(float64(alone[0][k] - got[0][k])); d > 1e-5 {
			t.Fatalf("the normal text embeds differently beside hostile ones (by %g)", d)
		}
	}
}

func TestEmbedQueryCache(t *testing.T) {
	ctx := context.Background()
	e := loadTiny(t, tinySpec(), Config{})
	first, err := e.EmbedQuery(ctx, texts[0], true)
	if err != nil {
		t.Fatal(err)
	}
	ran := e.Tokens()
	first[0] += 1 // the caller's copy: the cache keeps its own
	again, err := e.EmbedQuery(ctx, texts[0], true)
	if err != nil {
		t.Fatal(err)
	}
	if e.Tokens() != ran {
		t.Errorf("a repeated query ran the model again (%d tokens, then %d)", ran, e.Tokens())
	}
	if d := math.Abs(float64(again[0] - (first[0] - 1))); d > 1e-7 {
		t.Errorf("the cached vector changed with the caller's copy (off by %g)", d)
	}
	// The instruction is part of the key: without it the model runs.
	without, err := e.EmbedQuery(ctx, texts[0], false)
	if err != nil {
		t.Fatal(err)
	}
	if e.Tokens() == ran || maxDiff(without, again) < 1e-4 {
		t.Error("the query without the instruction came from the cache of the one with it")
	}
}

// TestEmbedOneShot: a session that does not prepack its weights
// (Config.OneShot, a braid search process's) embeds as the usual one
// does, one text alone (the one-thread session) and texts in a batch.
func TestEmbedOneShot(t *testing.T) {
	usual := loadTiny(t, tinySpec(), Config{})
	once := loadTiny(t, tinySpec(), Config{OneShot: true})
	for _, query := range []bool{true, false} {
		want, got := embed(t, usual, texts, query), embed(t, once, texts, query)
		for i, text := range texts {
			if d := maxDiff(want[i], got[i]); d > 1e-6 {
				t.Errorf("query %v, text %d in a batch: one-shot differs by %g", query, i, d)
			}
			if d := maxDiff(want[i], embed(t, once, []string{text}, query)[0]); d > 1e-6 {
				t.Errorf("query %v, text %d alone: one-shot differs by %g", query, i, d)
			}
		}
	}
}
