package eval

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/braidsearch/braid/fusion"
)

// Answer is one query's ranking as Score reads it: the judged ids (or
// paths) of the results, best first, how long the search took in all and
// per stage, and what it warned.
type Answer struct {
	IDs     []string
	TookMS  float64
	Stages  map[string]float64
	Warning string
	// Weight is the vector weight the search fused at and Predictors its
	// lists' predictors (nil for a search without both lists).
	Weight     float64
	Predictors *fusion.Predictors
}

// QueryScore is one query's score in a run, with the weight it got and
// its lists' predictors: what an adaptive weighting is fitted to.
type QueryScore struct {
	ID         string             `json:"id"`
	NDCG10     float64            `json:"ndcg@10"`
	Hit1       float64            `json:"hit@1"`
	Hit5       float64            `json:"hit@5"`
	MRR10      float64            `json:"mrr@10"`
	Weight     float64            `json:"vector_weight"`
	Predictors *fusion.Predictors `json:"predictors,omitempty"`
}

// Scores are a collection's metrics, each the mean over its queries
// rounded to four places, and the search latency.
type Scores struct {
	NDCG10, Hit1, Hit5, Recall10, Recall100, MRR10 float64
	TookMS, P50MS, P95MS                           float64
	// Stages is each stage's p50 in milliseconds, for the stages that
	// took any time.
	Stages map[string]float64
	// Warnings are the distinct warnings the searches gave, in order.
	Warnings []string
	// PerQuery are the queries' own scores, in col's order.
	PerQuery []QueryScore
}

// Score runs search on every query of col and scores the answers against
// col's judgements. It stops at ctx's end or search's first error.
func Score(ctx context.Context, col *Collection, search func(ctx context.Context, q Query) (Answer, error)) (*Scores, error) {
	s := &Scores{Stages: map[string]float64{}}
	seen := map[string]bool{}
	var lat []float64
	stages := map[string][]float64{}
	start := time.Now()
	for _, q := range col.Queries {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		a, err := search(ctx, q)
		if err != nil {
			return nil, fmt.Errorf("query %s: %w", q.ID, err)
		}
		lat = append(lat, a.TookMS)
		for name, ms := range a.Stages {
			stages[name] = append(stages[name], ms)
		}
		if a.Warning != "" && !seen[a.Warning] {
			seen[a.Warning] = true
			s.Warnings = append(s.Warnings, a.Warning)
		}
		rel := col.Qrels[q.ID]
		qs := QueryScore{ID: q.ID, NDCG10: NDCG(a.IDs, rel, 10), Hit1: Hit(a.IDs, rel, 1), Hit5: Hit(a.IDs, rel, 5), MRR10: MRR(a.IDs, rel, 10), Weight: a.Weight, Predictors: a.Predictors}
		s.PerQuery = append(s.PerQuery, qs)
		s.NDCG10 += qs.NDCG10
		s.Hit1 += qs.Hit1
		s.Hit5 += qs.Hit5
		s.MRR10 += qs.MRR10
		s.Recall10 += Recall(a.IDs, rel, 10)
		s.Recall100 += Recall(a.IDs, rel, 100)
	}
	s.TookMS = float64(time.Since(start).Milliseconds())
	if n := float64(len(col.Queries)); n > 0 {
		s.NDCG10, s.Recall10, s.Recall100, s.MRR10 = round4(s.NDCG10/n), round4(s.Recall10/n), round4(s.Recall100/n), round4(s.MRR10/n)
		s.Hit1, s.Hit5 = round4(s.Hit1/n), round4(s.Hit5/n)
	}
	s.P50MS, s.P95MS = Percentile(lat, 50), Percentile(lat, 95)
	for name, xs := range stages {
		if p := Percentile(xs, 50); p > 0 {
			s.Stages[name] = p
		}
	}
	return s, nil
}

func round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }
