package eval

import (
	"context"
	"errors"
	"testing"
)

func TestScore(t *testing.T) {
	col := &Collection{
		Queries: []Query{{ID: "q1", Text: "one"}, {ID: "q2", Text: "two"}},
		Qrels:   Qrels{"q1": {"a": 2}, "q2": {"b": 1, "c": 2}},
	}
	answers := map[string]Answer{
		"one": {IDs: []string{"a", "x"}, TookMS: 2, Stages: map[string]float64{"lexical": 1, "rerank": 0}, Warning: "w"},
		"two": {IDs: []string{"x", "y", "z", "b", "c", "d"}, TookMS: 4, Stages: map[string]float64{"lexical": 3}, Warning: "w"},
	}
	s, err := Score(context.Background(), col, func(_ context.Context, q Query) (Answer, error) { return answers[q.Text], nil })
	if err != nil {
		t.Fatal(err)
	}
	// q1: the answer first; q2: its answer c at rank 5, b at 4.
	if s.MRR10 != round4((1+1.0/4)/2) || s.Hit1 != 0.5 || s.Hit5 != 1 || s.Recall10 != 1 || s.NDCG10 <= 0.5 || s.NDCG10 >= 1 {
		t.Errorf("scores %+v", s)
	}
	if q := s.PerQuery; len(q) != 2 || q[0].Hit1 != 1 || q[0].MRR10 != 1 || q[1].Hit1 != 0 || q[1].MRR10 != 0.25 {
		t.Errorf("per query %+v: want q1 first (hit@1 1, MRR 1), q2's answer 5th and b 4th (hit@1 0, MRR 0.25)", q)
	}
	if len(s.Warnings) != 1 || s.Stages["lexical"] == 0 || s.Stages["rerank"] != 0 || s.P50MS == 0 {
		t.Errorf("warnings %v, stages %v, p50 %v: want one warning, lexical's p50 and no rerank", s.Warnings, s.Stages, s.P50MS)
	}
	boom := errors.New("boom")
	if _, err := Score(context.Background(), col, func(context.Context, Query) (Answer, error) { return Answer{}, boom }); !errors.Is(err, boom) {
		t.Errorf("a failing search: %v", err)
	}
}
