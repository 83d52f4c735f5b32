package rerank

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/braidsearch/braid/internal/modeltest"
	"github.com/braidsearch/braid/model"
)

const tinyCross = "../model/testdata/tiny-cross"

// loadCross loads the committed tiny cross-encoder fixture (random weights,
// real ONNX Runtime), closed when the test ends.
func loadCross(t testing.TB, cfg model.Config) *model.CrossEncoder {
	t.Helper()
	modeltest.NeedRuntime(t)
	spec := model.Spec{Name: "braid/tiny-cross", Kind: model.KindCrossEncoder, MaxLen: 128}
	c, err := model.LoadCrossEncoder(tinyCross, spec, cfg)
	if err != nil {
		t.Fatalf("LoadCrossEncoder: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// counting wraps a real Scorer and counts its calls and pairs.
type counting struct {
	Scorer
	calls, pairs atomic.Int64
}

func (c *counting) Score(ctx context.Context, query string, passages []string) ([]float32, error) {
	c.calls.Add(1)
	c.pairs.Add(int64(len(passages)))
	return c.Scorer.Score(ctx, query, passages)
}

// words the tiny tokenizer knows whole.
var words = strings.Fields(`the of and to in is it that for on with as was search query passage document
note index text word file line code data model vector rank score link tag plugin load space script
write read run test build markdown json config server cache memory disk fast slow quick brown fox
lazy dog water fire river mountain tree book learn machine neural network`)

// passages returns n passages of 5 to 120 words from a fixed seed.
func passages(seed uint64, n int) []Passage {
	r := rand.New(rand.NewPCG(seed, 1))
	ps := make([]Passage, n)
	for i := range ps {
		w := make([]string, 5+r.IntN(116))
		for j := range w {
			w[j] = words[r.IntN(len(words))]
		}
		ps[i] = Passage{ID: fmt.Sprintf("c%d", i), Text: strings.Join(w, " ")}
	}
	return ps
}

func TestRerankScoresPrefix(t *testing.T) {
	c := loadCross(t, model.Config{Threads: 1, BatchSize: 8})
	const query = "how do plugins load"
	for _, tc := range []struct {
		name string
		opt  Options
		n    int
		want int // Reranked
	}{
		{"defaults, fewer than top", Options{}, 20, 20},
		{"defaults, more than top", Options{}, 60, 50},
		{"top 5", Options{Top: 5}, 20, 5},
		{"window 16", Options{Top: 12, Window: 16}, 20, 12},
		{"whole passages", Options{Top: 12, Window: -1}, 20, 12},
		{"no passages", Options{}, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ps := passages(7, tc.n)
			got, err := New(c, tc.opt).Rerank(context.Background(), query, ps)
			if err != nil {
				t.Fatal(err)
			}
			if got.Reranked != tc.want || got.Cached != 0 || len(got.Scores) != tc.n {
				t.Fatalf("Reranked %d, Cached %d, %d scores; want %d, 0, %d", got.Reranked, got.Cached, len(got.Scores), tc.want, tc.n)
			}
			window := tc.opt.Window
			if window == 0 {
				window = DefaultWindow
			}
			in := make([]string, tc.want)
			for i := range in {
				in[i] = Window(query, ps[i].Text, window)
			}
			want, err := c.Score(context.Background(), query, in)
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, make([]float32, tc.n-tc.want)...)
			if diff := cmp.Diff(want, got.Scores); diff != "" {
				t.Errorf("scores (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRerankBudget(t *testing.T) {
	c := loadCross(t, model.Config{Threads: 1, BatchSize: 8})
	ps := passages(3, 40)

	// A budget nothing fits in still scores the first calibration batch,
	// before and after the throughput is measured.
	tight := New(c, Options{Budget: time.Nanosecond})
	for i, q := range []string{"fast search", "cold water"} {
		got, err := tight.Rerank(context.Background(), q, ps)
		if err != nil {
			t.Fatal(err)
		}
		if got.Reranked != calibration || got.Cached != 0 {
			t.Errorf("call %d: Reranked %d, Cached %d; want %d, 0", i, got.Reranked, got.Cached, calibration)
		}
		for j, s := range got.Scores[got.Reranked:] {
			if s != 0 {
				t.Errorf("call %d: unscored passage %d has score %v", i, got.Reranked+j, s)
			}
		}
	}
	if tight.throughput() <= 0 {
		t.Errorf("throughput %v after two calls, want > 0", tight.throughput())
	}

	// A generous budget scores everything, after calibrating.
	cs := &counting{Scorer: c}
	loose := New(cs, Options{Budget: time.Minute})
	got, err := loose.Rerank(context.Background(), "fast search", ps)
	if err != nil {
		t.Fatal(err)
	}
	if got.Reranked != 40 {
		t.Errorf("Reranked %d with a minute's budget, want 40", got.Reranked)
	}
	if n := cs.calls.Load(); n != 2 {
		t.Errorf("%d Score calls, want 2 (calibration, then the rest)", n)
	}
}

// slow is a Scorer whose every pair takes d (a test clock for the budget
// arithmetic; the model path is covered above).
type slow struct{ d time.Duration }

func (s slow) Score(ctx context.Context, query string, passages []string) ([]float32, error) {
	time.Sleep(time.Duration(len(passages)) * s.d)
	return make([]float32, len(passages)), nil
}

func TestRerankBudgetKept(t *testing.T) {
	// 40 equal pairs of 2ms each: a 50ms budget fits about 25 of them.
	ps := make([]Passage, 40)
	for i := range ps {
		ps[i] = Passage{Text: fmt.Sprintf("passage %02d %s", i, strings.Repeat("x", 100))}
	}
	r := New(slow{2 * time.Millisecond}, Options{Budget: 50 * time.Millisecond})
	for i := range 3 {
		start := time.Now()
		got, err := r.Rerank(context.Background(), fmt.Sprint("q", i), ps)
		if err != nil {
			t.Fatal(err)
		}
		took := time.Since(start)
		if got.Reranked < calibration || got.Reranked >= 40 {
			t.Errorf("call %d: Reranked %d, want %d..39", i, got.Reranked, calibration)
		}
		// Reranked < 40 shows the budget cut the work. Sleeps overrun, by
		// far on a busy machine: this only catches a call that waits for
		// something else entirely.
		if took > 5*time.Second {
			t.Errorf("call %d took %v for a 50ms budget", i, took)
		}
	}
}

func TestRerankCache(t *testing.T) {
	cs := &counting{Scorer: loadCross(t, model.Config{Threads: 1})}
	r := New(cs, Options{Top: 30})
	ps := passages(11, 40)
	first, err := r.Rerank(context.Background(), "quick brown fox", ps)
	if err != nil {
		t.Fatal(err)
	}
	calls := cs.calls.Load()
	again, err := r.Rerank(context.Background(), "quick brown fox", ps)
	if err != nil {
		t.Fatal(err)
	}
	if again.Reranked != 30 || again.Cached != 30 {
		t.Errorf("second call: Reranked %d, Cached %d; want 30, 30", again.Reranked, again.Cached)
	}
	if n := cs.calls.Load(); n != calls {
		t.Errorf("second call made %d Score calls, want 0", n-calls)
	}
	if diff := cmp.Diff(first.Scores, again.Scores); diff != "" {
		t.Errorf("cached scores (-first +again):\n%s", diff)
	}

	// Half cached: only the new passages go to the model.
	mixed := append(append([]Passage(nil), ps[:10]...), passages(12, 10)...)
	pairs := cs.pairs.Load()
	got, err := r.Rerank(context.Background(), "quick brown fox", mixed)
	if err != nil {
		t.Fatal(err)
	}
	if got.Reranked != 20 || got.Cached != 10 || cs.pairs.Load()-pairs != 10 {
		t.Errorf("mixed call: Reranked %d, Cached %d, %d pairs scored; want 20, 10, 10", got.Reranked, got.Cached, cs.pairs.Load()-pairs)
	}
	if diff := cmp.Diff(first.Scores[:10], got.Scores[:10]); diff != "" {
		t.Errorf("cached prefix (-first +got):\n%s", diff)
	}

	// Another query misses.
	other, err := r.Rerank(context.Background(), "cold water", ps)
	if err != nil {
		t.Fatal(err)
	}
	if other.Cached != 0 {
		t.Errorf("other query: Cached %d, want 0", other.Cached)
	}
}

func TestRerankCancel(t *testing.T) {
	c := loadCross(t, model.Config{Threads: 1, BatchSize: 4})
	ps := passages(5, 30)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := New(c, Options{}).Rerank(ctx, "q", ps); !errors.Is(err, context.Canceled) {
		t.Errorf("Rerank(cancelled) = %v, want context.Canceled", err)
	}
	// Cancelled while the model runs: the CrossEncoder stops between batches.
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	r := New(cancelling{c, cancel}, Options{})
	out, err := r.Rerank(ctx, "q", ps)
	if !errors.Is(err, context.Canceled) || out.Scores != nil {
		t.Errorf("Rerank(cancelled mid-way) = %+v, %v; want no scores, context.Canceled", out, err)
	}
}

// cancelling cancels the context, then scores with the real model.
type cancelling struct {
	Scorer
	cancel func()
}

func (c cancelling) Score(ctx context.Context, query string, passages []string) ([]float32, error) {
	c.cancel()
	return c.Scorer.Score(ctx, query, passages)
}

// short returns one score too few.
type short struct{}

func (short) Score(_ context.Context, _ string, passages []string) ([]float32, error) {
	return make([]float32, len(passages)-1), nil
}

func TestRerankErrors(t *testing.T) {
	ps := passages(1, 3)
	if _, err := New(nil, Options{}).Rerank(context.Background(), "q", ps); !errors.Is(err, ErrNoScorer) {
		t.Errorf("nil scorer: %v, want ErrNoScorer", err)
	}
	_, err := New(short{}, Options{}).Rerank(context.Background(), "q", ps)
	if err == nil || !strings.Contains(err.Error(), "2 scores for 3 passages") {
		t.Errorf("short scorer: %v, want a count error", err)
	}
}

func TestRerankConcurrent(t *testing.T) {
	c := loadCross(t, model.Config{Threads: 1})
	r := New(c, Options{Top: 10, Budget: time.Second})
	ps := passages(9, 20)
	want, err := c.Score(context.Background(), "data model", windowed("data model", ps[:10]))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for range 3 {
				got, err := r.Rerank(context.Background(), "data model", ps)
				if err != nil {
					t.Error(err)
					return
				}
				if diff := cmp.Diff(want, got.Scores[:got.Reranked], cmp.Comparer(func(a, b float32) bool {
					return a-b < 1e-5 && b-a < 1e-5
				})); diff != "" || got.Reranked != 10 {
					t.Errorf("goroutine %d: Reranked %d, scores (-want +got):\n%s", g, got.Reranked, diff)
				}
			}
		})
	}
	wg.Wait()
}

func windowed(query string, ps []Passage) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = Window(query, p.Text, DefaultWindow)
	}
	return out
}
