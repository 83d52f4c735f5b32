package eval

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPlan(t *testing.T) {
	tests := []struct {
		name      string
		modes     []string
		weights   []float64
		fusion    string
		normalize string
		want      []string // each run's Key
	}{
		{"every mode, two weights", []string{Lexical, Vector, Hybrid, HybridRerank}, []float64{0.3, 0.7}, "linear", "minmax",
			[]string{"lexical", "vector", "hybrid w=0.3 linear minmax", "hybrid w=0.7 linear minmax", "hybrid+rerank w=0.3 linear minmax", "hybrid+rerank w=0.7 linear minmax"}},
		{"rrf reads no normalisation", []string{Hybrid}, []float64{0.6}, "rrf", "zscore", []string{"hybrid w=0.6 rrf "}},
		{"lexical only", []string{Lexical}, []float64{0.6}, "linear", "minmax", []string{"lexical"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, r := range Plan(tc.modes, tc.weights, tc.fusion, tc.normalize, 7) {
				if r.Queries != 7 || r.Mode == Vector && r.VectorWeight != 1 || r.Mode == Lexical && r.VectorWeight != 0 {
					t.Errorf("run %+v: want 7 queries, the mode's own weight", r)
				}
				got = append(got, r.Key())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Plan keys (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRunScore(t *testing.T) {
	col := &Collection{Queries: []Query{{ID: "q1", Text: "one"}, {ID: "q2", Text: "two"}}, Qrels: Qrels{"q1": {"a": 1}, "q2": {"b": 1}}}
	r := Run{Mode: Lexical, Warnings: []string{"earlier"}}
	err := r.Score(context.Background(), col, func(_ context.Context, q Query) (Answer, error) {
		ids := map[string][]string{"one": {"a"}, "two": {"x", "b"}}[q.Text]
		return Answer{IDs: ids, TookMS: 3, Stages: map[string]float64{"lexical": 2}, Warning: "w"}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := Run{Mode: Lexical, Queries: 2, NDCG10: r.NDCG10, Hit5: 1, Recall10: 1, Recall100: 1, MRR10: 0.75, TookMS: r.TookMS, P50MS: 3, P95MS: 3,
		Stages: map[string]float64{"lexical": 2}, Warnings: []string{"earlier", "w"}}
	if diff := cmp.Diff(want, r); diff != "" || r.NDCG10 <= 0.5 || r.NDCG10 >= 1 {
		t.Errorf("scored run (-want +got):\n%s (nDCG@10 %v)", diff, r.NDCG10)
	}
	boom := errors.New("boom")
	if err := r.Score(context.Background(), col, func(context.Context, Query) (Answer, error) { return Answer{}, boom }); !errors.Is(err, boom) {
		t.Errorf("a failing search: %v, want boom", err)
	}
}

func TestCompare(t *testing.T) {
	lex := Run{Mode: Lexical, NDCG10: 0.70, Recall100: 0.90, MRR10: 0.60}
	hyb := Run{Mode: Hybrid, VectorWeight: 0.6, Fusion: "linear", Normalize: "minmax", NDCG10: 0.75, Recall100: 0.95, MRR10: 0.65}
	lower := func(r Run, by float64) Run {
		r.NDCG10 -= by
		return r
	}
	skipped := func(r Run) Run {
		r.Skipped, r.Reason = true, "no model"
		return r
	}
	tests := []struct {
		name       string
		runs, base []Run
		compared   int
		err        error
		says       []string // in the error
	}{
		{"equal", []Run{lex, hyb}, []Run{lex, hyb}, 2, nil, nil},
		{"within the tolerance", []Run{lower(lex, 0.004)}, []Run{lex}, 1, nil, nil},
		{"below the tolerance", []Run{lower(lex, 0.006), hyb}, []Run{lex, hyb}, 2, ErrRegression,
			[]string{"beyond 0.005", "lexical nDCG@10 0.6940, baseline 0.7000"}},
		{"a baseline run skipped", []Run{lex, skipped(hyb)}, []Run{lex, hyb}, 1, ErrRegression,
			[]string{"hybrid w=0.6 linear minmax was skipped (no model), baseline nDCG@10 0.7500"}},
		{"only a skipped run in common", []Run{skipped(hyb)}, []Run{hyb}, 0, ErrRegression, []string{"was skipped"}},
		{"a run the baseline lacks is not compared", []Run{lex, lower(hyb, 0.5)}, []Run{lex}, 1, nil, nil},
		{"a run the baseline skipped is not compared", []Run{lex, lower(hyb, 0.5)}, []Run{lex, skipped(hyb)}, 1, nil, nil},
		{"nothing in common", []Run{lex}, []Run{hyb}, 0, ErrNoCommonRuns, nil},
		{"other weight, other run", []Run{{Mode: Hybrid, VectorWeight: 0.3, Fusion: "linear", Normalize: "minmax"}}, []Run{hyb}, 0, ErrNoCommonRuns, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n, err := Compare(tc.runs, tc.base, 0.005)
			if n != tc.compared || !errors.Is(err, tc.err) || (tc.err == nil) != (err == nil) {
				t.Fatalf("Compare = %d, %v; want %d, %v", n, err, tc.compared, tc.err)
			}
			for _, s := range tc.says {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not say %q", err, s)
				}
			}
		})
	}
}
