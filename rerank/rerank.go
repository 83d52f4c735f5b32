package rerank

import (
	"context"
	"errors"
	"fmt"
	"github.com/braidsearch/braid/internal/lru"
	"sync"
	"time"
)

// Defaults of the zero Options.
const (
	// DefaultTop is how many fused candidates are reranked when Options.Top is 0.
	DefaultTop = 50
	// DefaultWindow is the passage window when Options.Window is 0, in
	// Window's words-ish tokens (about 80 wordpieces, a few sentences).
	// braid's chunks hold up to 512 tokens, and a cross-encoder's cost
	// grows with the length of the pair: at 64 tokens TinyBERT-L2 int8
	// scores 50 pairs in ~40 ms on two AVX2 cores, within the design's 50
	// ms (96: ~50 ms, 128: ~70, 256: ~200). The ms-marco cross-encoders
	// were trained on passages of about this length (MS MARCO's average
	// some 56 words), and the window is the run around the query's terms,
	// started at a sentence. Chunks of this size or less go in whole.
	DefaultWindow = 64
	// calibration is how many pairs are scored first when a budget is set
	// and no throughput has been measured yet, and the least a call with a
	// budget scores.
	calibration = 8
	// ewmaWeight is the weight of the newest throughput measurement.
	ewmaWeight = 0.3
	// cacheSize is how many (query, window) scores a Reranker keeps.
	cacheSize = 4096
)

// ErrNoScorer is returned by Rerank on a Reranker made without a Scorer.
var ErrNoScorer = errors.New("rerank: no scorer")

// Scorer scores (query, passage) pairs; *model.CrossEncoder is one. It
// returns one score per passage, in order; higher is more relevant.
type Scorer interface {
	Score(ctx context.Context, query string, passages []string) ([]float32, error)
}

// Options tune reranking; the zero value means the defaults.
type Options struct {
	// Top is how many fused candidates to rerank, from the head of the
	// list; 0 or less means DefaultTop (50).
	Top int
	// Budget is the time the reranker may take per query; 0 or less means
	// no limit. See Reranker for how it is kept.
	Budget time.Duration
	// Window is how many passage tokens are fed to the model: the best
	// window by query-term overlap (see Window). 0 means DefaultWindow
	// (256); less than 0 means the whole passage (the model still cuts
	// the pair at its own MaxLen).
	Window int
}

// Passage is one candidate to rerank.
type Passage struct {
	ID   string // chunk id
	Text string // chunk text
}

// Outcome is the result of one Rerank call.
type Outcome struct {
	// Scores has one entry per input passage: the raw model score (a
	// logit) for the first Reranked passages, zero after them.
	Scores []float32
	// Reranked is how many passages, from the head of the input, were
	// scored; those after them keep their input order below.
	Reranked int
	// Cached is how many of the Reranked scores came from the cache.
	Cached int
}

// Reranker reorders search candidates with a cross-encoder. It is safe for
// concurrent use.
//
// Budget. The cost of a pair is estimated as (len(query)+len(text))/4 + 3
// model tokens (bytes/4: English averages about 4 bytes a wordpiece; the
// 3 are [CLS] and two [SEP]), where text is the windowed passage. The
// Reranker keeps an exponentially weighted average of the tokens per
// second its Scorer achieved in earlier calls. With a budget and no
// measurement yet, a call first scores up to 8 pairs to measure; then, and
// in every later call, it scores the longest run of the following pairs
// whose estimated cost fits in what is left of the budget, measures again
// and repeats while anything fits. So a call overruns its budget by at
// most one batch's misestimate (the first calibration batch's whole cost).
// A call with a budget always scores at least the first 8 (uncached)
// pairs, however small the budget: a query is never left entirely
// unreranked, and each call refreshes the throughput measurement, so a
// Reranker that was once slow (a busy machine) recovers. Concurrent calls
// that share one serialised model measure each other's waiting time as
// slowness, which errs on the side of the budget.
//
// Cache. Scores are cached by a hash of (query, windowed text), for the
// last 4096 pairs used, so a repeated query (an MCP session, paging)
// costs no model time. Cached pairs count nothing against the budget.
type Reranker struct {
	s      Scorer
	top    int
	window int
	budget time.Duration
	cache  *lru.Cache[float32]

	mu   sync.Mutex
	rate float64 // estimated tokens per second; 0 before any measurement
}

// New returns a Reranker that scores with s.
func New(s Scorer, opt Options) *Reranker {
	r := &Reranker{s: s, top: opt.Top, window: opt.Window, budget: max(opt.Budget, 0), cache: lru.New[float32](cacheSize)}
	if r.top <= 0 {
		r.top = DefaultTop
	}
	if r.window == 0 {
		r.window = DefaultWindow
	}
	return r
}

// cost estimates the model tokens of a pair (see Reranker).
func cost(query, text string) float64 {
	return float64(len(query)+len(text))/4 + 3
}

// throughput returns the measured tokens per second, 0 if none.
func (r *Reranker) throughput() float64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.rate
}

// measure folds one Score call (tokens estimated, taking d) into the rate.
func (r *Reranker) measure(tokens float64, d time.Duration) {
	if d <= 0 || tokens <= 0 {
		return
	}
	rate := tokens / d.Seconds()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.rate == 0 {
		r.rate = rate
	} else {
		r.rate = ewmaWeight*rate + (1-ewmaWeight)*r.rate
	}
}

// Rerank scores a prefix of ps, at most Top passages, that fits the
// budget; cached pairs are taken from the cache. The order of ps is the
// caller's (fused) ranking and is left alone: the caller sorts the first
// Outcome.Reranked passages by Outcome.Scores. A cancelled ctx, or a
// Scorer error, returns the error and no scores.
func (r *Reranker) Rerank(ctx context.Context, query string, ps []Passage) (Outcome, error) {
	return r.RerankWithin(ctx, query, ps, r.budget)
}

// Budget is the budget the Reranker was made with.
func (r *Reranker) Budget() time.Duration { return r.budget }

// Scorer is the model it scores with.
func (r *Reranker) Scorer() Scorer { return r.s }

// Top is how many fused candidates it reads from the head of the list
// (Options.Top, else DefaultTop).
func (r *Reranker) Top() int { return r.top }

// RerankWithin is Rerank with a budget for this call instead of the
// Reranker's own; 0 or less means no limit.
func (r *Reranker) RerankWithin(ctx context.Context, query string, ps []Passage, budget time.Duration) (Outcome, error) {
	budget = max(budget, 0)
	if r.s == nil {
		return Outcome{}, ErrNoScorer
	}
	if err := ctx.Err(); err != nil {
		return Outcome{}, fmt.Errorf("rerank: %w", err)
	}
	start := time.Now()
	n := min(r.top, len(ps))
	out := Outcome{Scores: make([]float32, len(ps))}
	texts := make([]string, n)
	keys := make([]uint64, n)
	cached := make([]bool, n)
	var pending []int // indexes of uncached passages, in order
	for i := range n {
		texts[i] = ps[i].Text
		if r.window > 0 {
			texts[i] = Window(query, ps[i].Text, r.window)
		}
		keys[i] = r.cache.Key(query, texts[i])
		if s, ok := r.cache.Get(keys[i]); ok {
			out.Scores[i], cached[i] = s, true
		} else {
			pending = append(pending, i)
		}
	}

	done := 0 // pending[:done] are scored
	for done < len(pending) {
		m := r.fit(query, texts, pending[done:], budget, time.Since(start))
		if done == 0 {
			m = max(m, min(calibration, len(pending)))
		}
		if m == 0 {
			break
		}
		batch := pending[done : done+m]
		in := make([]string, m)
		tokens := 0.0
		for j, i := range batch {
			in[j] = texts[i]
			tokens += cost(query, texts[i])
		}
		t := time.Now()
		scores, err := r.s.Score(ctx, query, in)
		if err != nil {
			return Outcome{}, fmt.Errorf("rerank: score %d passages: %w", m, err)
		}
		if len(scores) != m {
			return Outcome{}, fmt.Errorf("rerank: scorer returned %d scores for %d passages", len(scores), m)
		}
		r.measure(tokens, time.Since(t))
		for j, i := range batch {
			out.Scores[i] = scores[j]
			r.cache.Put(keys[i], scores[j])
		}
		done += m
	}

	out.Reranked = n
	if done < len(pending) {
		out.Reranked = pending[done]
	}
	for i := range n {
		switch {
		case i >= out.Reranked:
			out.Scores[i] = 0
		case cached[i]:
			out.Cached++
		}
	}
	return out, nil
}

// fit returns how many of the pending pairs, from the first, to score
// next, given that elapsed of the budget is spent: all of them without a
// budget, the calibration batch before any measurement, otherwise as many
// as the measured throughput says fit in the rest of the budget.
func (r *Reranker) fit(query string, texts []string, pending []int, budget, elapsed time.Duration) int {
	if budget == 0 {
		return len(pending)
	}
	rate := r.throughput()
	if rate == 0 {
		return min(calibration, len(pending))
	}
	left := (budget - elapsed).Seconds() * rate // tokens that fit
	m := 0
	for _, i := range pending {
		left -= cost(query, texts[i])
		if left < 0 {
			break
		}
		m++
	}
	return m
}
