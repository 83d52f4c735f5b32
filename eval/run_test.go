package eval

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/braidsearch/braid/internal/testenv"
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
			for _, r := range Plan(tc.modes, false, tc.weights, tc.fusion, tc.normalize, 7) {
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
	want := Run{Mode: Lexical, Queries: 2, NDCG10: r.NDCG10, Hit1: 0.5, Hit5: 1, Recall10: 1, Recall100: 1, MRR10: 0.75, TookMS: r.TookMS, P50MS: 3, P95MS: 3,
		Stages: map[string]float64{"lexical": 2}, Warnings: []string{"earlier", "w"},
		PerQuery: []QueryScore{{ID: "q1", NDCG10: 1, Hit1: 1, Hit5: 1, MRR10: 1}, {ID: "q2", NDCG10: r.NDCG10*2 - 1, Hit5: 1, MRR10: 0.5}}}
	if diff := cmp.Diff(want, r, cmpopts.EquateApprox(0, 1e-3)); diff != "" || r.NDCG10 <= 0.5 || r.NDCG10 >= 1 {
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

func TestEvaluate(t *testing.T) {
	cur := Point{Weight: 0.6, Fusion: "linear", Normalize: "zscore"}
	every := []string{Lexical, Vector, Hybrid, HybridRerank}
	tests := []struct {
		name   string
		opt    Options
		engine Engine
		want   []string // each run's Key, and why it was skipped
	}{
		{"every mode, the current settings", Options{Modes: every}, Engine{Current: cur},
			[]string{"lexical", "vector", "hybrid w=0.6 linear zscore", "hybrid+rerank w=0.6 linear zscore"}},
		{"the options' settings", Options{Modes: []string{Hybrid, Hybrid}, VectorWeights: []float64{0.3, 0.7}, Fusion: "rrf"}, Engine{Current: cur},
			[]string{"hybrid w=0.3 rrf ", "hybrid w=0.7 rrf "}},
		{"minmax when nothing names a normalisation", Options{Modes: []string{Hybrid}}, Engine{Current: Point{Weight: 0.5, Fusion: "linear"}},
			[]string{"hybrid w=0.5 linear minmax"}},
		{"no reranker", Options{Modes: every}, Engine{Current: cur, NoRerank: "no reranker"},
			[]string{"lexical", "vector", "hybrid w=0.6 linear zscore", "hybrid+rerank w=0.6 linear zscore skipped: no reranker"}},
		{"no vectors", Options{Modes: every}, Engine{Current: cur, NoVectors: "no model", NoRerank: "no reranker"},
			[]string{"lexical", "vector skipped: no model", "hybrid w=0.6 linear zscore skipped: no model", "hybrid+rerank w=0.6 linear zscore skipped: no model"}},
	}
	col := judgedSet(3)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			searched := map[string]int{}
			tc.engine.Search = func(_ context.Context, r Run, q Query) (Answer, error) {
				searched[r.Key()]++
				if r.Skipped || r.NDCG10 != 0 {
					t.Errorf("searched with run %+v, want the run as planned", r)
				}
				return Answer{IDs: []string{"d" + strings.TrimPrefix(q.ID, "q")}}, nil
			}
			var heard []Run
			runs, err := Evaluate(context.Background(), col, tc.opt, tc.engine, func(r Run) { heard = append(heard, r) })
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range runs {
				switch {
				case r.Skipped:
					got = append(got, r.Key()+" skipped: "+r.Reason)
				case r.NDCG10 != 1 || r.Queries != 3 || searched[r.Key()] != 3:
					t.Errorf("run %s: %+v after %d searches, want 3 queries, each answered first", r.Key(), r, searched[r.Key()])
					fallthrough
				default:
					got = append(got, r.Key())
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("runs (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(runs, heard); diff != "" {
				t.Errorf("heard of (-returned +heard):\n%s", diff)
			}
		})
	}
}

func TestEvaluateStops(t *testing.T) {
	boom := errors.New("boom")
	var heard []string
	runs, err := Evaluate(context.Background(), judgedSet(3), Options{Modes: []string{Lexical, Vector}}, Engine{
		Search: func(_ context.Context, r Run, q Query) (Answer, error) {
			if r.Mode == Vector && q.ID == "q1" {
				return Answer{}, boom
			}
			return Answer{}, nil
		}}, func(r Run) { heard = append(heard, r.Mode) })
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "query q1") || runs != nil || !cmp.Equal(heard, []string{Lexical}) {
		t.Errorf("Evaluate = %v, %v (heard of %v); want boom naming query q1, after the lexical run only", runs, err, heard)
	}
	_, err = Evaluate(context.Background(), judgedSet(1), Options{Modes: []string{Hybrid}, VectorWeights: []float64{1}}, Engine{}, nil)
	if err == nil || !strings.HasPrefix(err.Error(), "eval: Options.VectorWeights 1: ") {
		t.Errorf("a hybrid weight of 1: %v", err)
	}
}

func TestRunString(t *testing.T) {
	for _, tc := range []struct {
		run  Run
		want string
	}{
		{Run{Mode: Lexical, Queries: 2, NDCG10: 0.5, Hit1: 0.5, Hit5: 1, Recall10: 0.75, Recall100: 1, MRR10: 0.5, TookMS: 1500, P50MS: 3, P95MS: 4.25},
			"lexical                nDCG@10 0.5000  hit@1 0.5000  hit@5 1.0000  MRR@10 0.5000  recall@10 0.7500  recall@100 1.0000  2 queries in 1.5 s (p50 3.0 ms, p95 4.2 ms)"},
		{Run{Mode: HybridRerank, VectorWeight: 0.3, Skipped: true, Reason: "no reranker"}, "hybrid+rerank w=0.30   skipped: no reranker"},
	} {
		if got := tc.run.String(); got != tc.want {
			t.Errorf("String =\n%q, want\n%q", got, tc.want)
		}
	}
}

// TestFirstHit: the gate counts queries, not rounded shares, fails only
// the default run falling below BM25, and refuses to pass without both runs.
func TestFirstHit(t *testing.T) {
	lex := Run{Mode: Lexical, Queries: 3, Hit1: 0.6667}
	auto := func(h float64) Run {
		return Run{Mode: Hybrid, Auto: true, Fusion: "linear", Normalize: "minmax", Queries: 3, Hit1: h}
	}
	fixed := Run{Mode: Hybrid, VectorWeight: 0.6, Fusion: "linear", Normalize: "minmax", Queries: 3, Hit1: 0}
	for _, tc := range []struct {
		name string
		runs []Run
		fail bool
		say  string
	}{
		{"equal", []Run{lex, auto(0.6667), fixed}, false, "hybrid w=auto linear minmax has the answer first for 2 of 3 queries, BM25 alone for 2"},
		{"above", []Run{lex, auto(1)}, false, "hybrid w=auto linear minmax has the answer first for 3 of 3 queries, BM25 alone for 2"},
		{"one lost", []Run{lex, auto(0.3333)}, true, "hybrid w=auto linear minmax has the answer first for 1 of 3 queries, BM25 alone for 2"},
		{"no default run", []Run{lex, fixed}, true, ""},
		{"no lexical run", []Run{auto(1)}, true, ""},
		{"skipped", []Run{lex, {Mode: Hybrid, Auto: true, Skipped: true, Reason: "no model"}}, true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			say, err := FirstHit(tc.runs)
			if (err != nil) != tc.fail || (err != nil && !errors.Is(err, ErrFirstHit)) || say != tc.say {
				t.Errorf("FirstHit = %q, %v; want %q, failing %v", say, err, tc.say, tc.fail)
			}
		})
	}
}

func TestReadRuns(t *testing.T) {
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "good.json"), filepath.Join(dir, "bad.json")
	testenv.Must(t, os.WriteFile(good, []byte(`[{"mode":"lexical","ndcg@10":0.7}]`), 0o644))
	testenv.Must(t, os.WriteFile(bad, []byte(`{"mode":"lexical"}`), 0o644))
	if runs, err := ReadRuns(good); err != nil || len(runs) != 1 || runs[0].NDCG10 != 0.7 {
		t.Errorf("ReadRuns = %+v, %v", runs, err)
	}
	if _, err := ReadRuns(bad); err == nil || !strings.Contains(err.Error(), "want the JSON list braid eval --json prints") {
		t.Errorf("not a list: %v", err)
	}
}
