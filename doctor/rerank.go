package doctor

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/braidsearch/braid/model"
	"github.com/braidsearch/braid/rerank"
)

// RerankTarget is the time the design gives the cross-encoder for
// rerank.DefaultTop (50) pairs at the default window.
const RerankTarget = 50 * time.Millisecond

// LatencyCheck is the name of RerankLatency's check.
const LatencyCheck = "reranker latency"

// Latency is a cross-encoder's time for rerank.DefaultTop pairs judged
// against RerankTarget (Judge).
type Latency struct {
	TookMS float64 `json:"took_ms"`
	Met    bool    `json:"met"`
	// Faster is, when the target is missed, the registry cross-encoder
	// predicted to meet it (model.Faster), and FasterMS its predicted
	// time; "" when none is.
	Faster   string  `json:"faster,omitempty"`
	FasterMS float64 `json:"faster_ms,omitempty"`
}

// Judge says whether took, the time the cross-encoder installed took for
// rerank.DefaultTop pairs, meets RerankTarget, and when it does not,
// which registry cross-encoder is predicted to (model.Faster, from
// flops, installed's FLOPs per token: model.TokenFLOPs).
func Judge(took time.Duration, installed model.Spec, flops int64) Latency {
	l := Latency{TookMS: ms(took), Met: took <= RerankTarget}
	if !l.Met {
		if s, p, ok := model.Faster(installed, flops, took, RerankTarget); ok {
			l.Faster, l.FasterMS = s.ID(), ms(p)
		}
	}
	return l
}

// String is the verdict, as braid doctor says it: "50 pairs in 38 ms
// (target 50 ms): met", or missed and the Suggestion.
func (l Latency) String() string {
	s := fmt.Sprintf("%d pairs in %.0f ms (target %d ms)", rerank.DefaultTop, l.TookMS, RerankTarget.Milliseconds())
	if l.Met {
		return s + ": met"
	}
	return s + ": missed; " + l.Suggestion()
}

// Suggestion names the registry cross-encoder predicted to meet the
// target, or says none is.
func (l Latency) Suggestion() string {
	if l.Faster == "" {
		return fmt.Sprintf("no registry reranker is predicted within %d ms here", RerankTarget.Milliseconds())
	}
	return fmt.Sprintf("%s is predicted at ~%.0f ms", l.Faster, l.FasterMS)
}

// RerankLatency is braid doctor's check of how fast the cross-encoder m
// names scores a default search's pairs on this machine: loaded and timed
// (TimeReranker), or, turned off or not installed, said and not timed. It
// takes up to a few seconds with a slow model.
func RerankLatency(ctx context.Context, m model.Set) Check {
	untimed := Check{Name: LatencyCheck, OK: true, Detail: "not timed: reranking is turned off"}
	if m.Reranker == "none" {
		return untimed
	}
	m.NoEmbedder = true
	lm, err := model.Load(ctx, m)
	if err != nil {
		untimed.Detail = "not timed: " + model.Clause(err)
		return untimed
	}
	defer lm.Close()
	if lm.CrossEncoder == nil {
		untimed.Detail = "not timed: " + lm.NoRerank
		return untimed
	}
	spec := lm.CrossEncoder.Spec()
	dir, _, _ := model.ResolveKind(m.Reranker, model.ModelsDir(m.Dir), model.KindCrossEncoder) // "" on error: TokenFLOPs takes the registry's Arch
	return TimeReranker(ctx, lm.CrossEncoder, spec, model.TokenFLOPs(dir, spec))
}

// TimeReranker times s, the cross-encoder installed costing flops per
// token (model.TokenFLOPs), scoring rerank.DefaultTop pairs of a query and a
// window of rerank.DefaultWindow tokens of prose, as a default search
// does: after a warm-up call of a few pairs, the median of 3 calls, or
// the first alone when it is over 4× RerankTarget (a slow model costs one
// call). A missed target is a warning naming the registry cross-encoder
// predicted to meet it and how to use it (Judge); a failed call is a
// failed check.
func TimeReranker(ctx context.Context, s rerank.Scorer, installed model.Spec, flops int64) Check {
	query, passages := pairs()
	score := func(in []string) (time.Duration, error) {
		t := time.Now()
		if _, err := s.Score(ctx, query, in); err != nil {
			return 0, fmt.Errorf("%s could not score %d pairs: %w", installed.ID(), len(in), err)
		}
		return time.Since(t), nil
	}
	_, err := score(passages[:min(model.CrossBatch, len(passages))]) // the warm-up
	var took []time.Duration
	for err == nil && len(took) < 3 && (len(took) == 0 || took[0] <= 4*RerankTarget) {
		var d time.Duration
		d, err = score(passages)
		took = append(took, d)
	}
	if err != nil {
		return Check{Name: LatencyCheck, Detail: err.Error()}
	}
	slices.Sort(took)
	l := Judge(took[len(took)/2], installed, flops)
	c := Check{Name: LatencyCheck, OK: true, Warning: !l.Met, Detail: installed.ID() + ": " + l.String(), Latency: &l}
	if l.Faster != "" {
		c.Detail += fmt.Sprintf(": model.Pull %s, then use it with Set.Reranker %[1]s", l.Faster)
	}
	return c
}

// SlowNote is search --explain's note on a rerank call in which s scored
// pairs (cached ones aside) in took: when it took longer than
// RerankTarget, at a pace that misses it for rerank.DefaultTop pairs too,
// the note says so and, when s is a registry cross-encoder (its cost
// known from Spec.Arch), names the one predicted to keep it (Judge); ""
// when the target was kept.
func SlowNote(took time.Duration, pairs int, s rerank.Scorer) string {
	var spec model.Spec
	if c, ok := s.(*model.CrossEncoder); ok {
		spec = c.Spec()
	}
	return slowNote(took, pairs, spec)
}

// slowNote is SlowNote for the cross-encoder spec.
func slowNote(took time.Duration, pairs int, spec model.Spec) string {
	if pairs <= 0 || took <= RerankTarget {
		return ""
	}
	per := took * time.Duration(rerank.DefaultTop) / time.Duration(pairs)
	flops := spec.Arch.FLOPsPerToken()
	l := Judge(per, spec, flops)
	if l.Met {
		return ""
	}
	note := fmt.Sprintf("rerank took %d ms for %d pairs, ~%d ms for %d (target %d ms)",
		took.Milliseconds(), pairs, per.Milliseconds(), rerank.DefaultTop, RerankTarget.Milliseconds())
	if flops > 0 {
		note += "; " + l.Suggestion()
	}
	return note
}

// pairs are a query and rerank.DefaultTop passages of prose, each cut to
// the window a default search scores (rerank.Window).
func pairs() (string, []string) {
	const query = "how does the index find the notes that match a search"
	words := strings.Fields(`the index keeps every note in small chunks so that a search can find
		the passages that match what you asked for and the model reads each one beside the query
		to score how well it answers the question before the best are shown first in the list`)
	passages := make([]string, rerank.DefaultTop)
	for i := range passages {
		var b strings.Builder
		for j := range 2 * rerank.DefaultWindow {
			b.WriteString(words[(i+j)%len(words)])
			if j%12 == 11 {
				b.WriteString(". ")
			} else {
				b.WriteString(" ")
			}
		}
		passages[i] = rerank.Window(query, b.String(), rerank.DefaultWindow)
	}
	return query, passages
}

// ms is d in milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
