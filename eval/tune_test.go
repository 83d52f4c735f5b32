package eval

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/braidsearch/braid/internal/testenv"
	"github.com/braidsearch/braid/settings"
	"github.com/google/go-cmp/cmp"
)

// judgedSet is n queries q0..q(n-1), each with one relevant document dI.
func judgedSet(n int) *Collection {
	col := &Collection{Qrels: Qrels{}}
	for i := range n {
		id := fmt.Sprintf("q%d", i)
		col.Queries = append(col.Queries, Query{ID: id, Text: "query " + id})
		col.Qrels[id] = map[string]int{fmt.Sprintf("d%d", i): 1}
	}
	return col
}

// peakSearch ranks each query's relevant document first at vector weight
// 0.3 with 100 candidates, one place lower per 0.1 of weight away and
// one more with other candidates; fusion, the signals and the
// instruction change nothing.
func peakSearch(_ context.Context, p Point, q Query) (Answer, error) {
	rank := int(math.Round(math.Abs(p.Weight-0.3) * 10))
	if p.Candidates != 100 {
		rank++
	}
	ids := make([]string, rank+1)
	for i := range rank {
		ids[i] = fmt.Sprintf("other%d", i)
	}
	ids[rank] = "d" + strings.TrimPrefix(q.ID, "q")
	return Answer{IDs: ids}, nil
}

func tuneOptions() TuneOptions {
	return TuneOptions{VectorWeights: []float64{0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1}, Candidates: []int{25, 50, 100, 200},
		DocEvidence: []float64{0, 0.2}, LinkPrior: []float64{0, 0.1}, FieldWeights: []float64{0, 0.5, 1}, Passes: 2}
}

// fieldSearch ranks each query's relevant document first with title
// weight 1 and heading weight 0.5, one place lower for each that differs.
func fieldSearch(_ context.Context, p Point, q Query) (Answer, error) {
	ids := []string{}
	if p.Title != 1 {
		ids = append(ids, "other0")
	}
	if p.Headings != 0.5 {
		ids = append(ids, "other1")
	}
	return Answer{IDs: append(ids, "d"+strings.TrimPrefix(q.ID, "q"))}, nil
}

func TestTune(t *testing.T) {
	six := settings.DefaultVectorWeight
	cur := Current(settings.Values{VectorWeight: &six})
	tests := []struct {
		name   string
		opt    func(*TuneOptions)
		search func(context.Context, Point, Query) (Answer, error)
		best   Point // without its score
		tried  int
	}{
		{"finds the best weight and candidates", nil, peakSearch,
			Point{Weight: 0.3, Fusion: settings.FusionLinear, Normalize: settings.NormMinMax, Candidates: 100, DocEvidence: 0.2, Title: 0.5, Instruction: true},
			// The first pass: the current point; 10 other weights, 2 other
			// fusions, 3 other candidates, 2 other title and 2 other heading
			// weights, 1 other doc evidence, 1 other link prior, the
			// instruction off. The second, at 100 candidates: 10 other
			// weights and 2 other fusions; it changes nothing, so the climb
			// ends.
			24 + 13}, // each pass also tries the adaptive weight refitted to the weights just scored
		{"finds the field weights", nil, fieldSearch,
			Point{Weight: 0.6, Fusion: settings.FusionLinear, Normalize: settings.NormMinMax, Candidates: 50, DocEvidence: 0.2, Title: 1, Headings: 0.5, Instruction: true},
			// The first pass as above, the title and then the heading weight
			// moving (the signals and the instruction come after them, so
			// they are tried at the new weights); the second, at title 1 and
			// heading 0.5: 10 other weights, 2 other fusions, 3 other
			// candidates and 2 other title weights; it changes nothing.
			24 + 18},
		{"ties keep the settings in effect", nil, func(_ context.Context, _ Point, q Query) (Answer, error) {
			return Answer{IDs: []string{"d" + strings.TrimPrefix(q.ID, "q")}}, nil
		}, cur, 24}, // a first pass that changes nothing ends the climb
		{"one pass", func(o *TuneOptions) { o.Passes = 1 }, peakSearch,
			Point{Weight: 0.3, Fusion: settings.FusionLinear, Normalize: settings.NormMinMax, Candidates: 100, DocEvidence: 0.2, Title: 0.5, Instruction: true}, 24},
		{"lexical: the weight stays 0 and only candidates and field weights are tuned", func(o *TuneOptions) { o.Lexical = true }, peakSearch,
			Point{Weight: 0, Fusion: settings.FusionLinear, Normalize: settings.NormMinMax, Candidates: 100, DocEvidence: 0.2, Title: 0.5, Instruction: true}, 1 + 3 + 2 + 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := tuneOptions()
			if tc.opt != nil {
				tc.opt(&o)
			}
			var heard []Point
			o.Tried = func(p Point) { heard = append(heard, p) }
			res, err := Tune(context.Background(), judgedSet(4), cur, o, tc.search)
			if err != nil {
				t.Fatal(err)
			}
			best := res.Best
			best.Score = nil
			if diff := cmp.Diff(tc.best, best); diff != "" {
				t.Errorf("best (-want +got):\n%s", diff)
			}
			if len(res.Tried) != tc.tried || !cmp.Equal(heard, res.Tried) {
				t.Errorf("tried %d points, heard of %d, want %d: %v", len(res.Tried), len(heard), tc.tried, res.Tried)
			}
			ids := map[string]bool{}
			for _, p := range res.Tried {
				if p.Score == nil || p.Score.NDCG10 > res.Best.Score.NDCG10 {
					t.Errorf("tried %v scored %v, above the best %v", p, p.Score, res.Best.Score)
				}
				if ids[p.id()] {
					t.Errorf("%v was scored twice", p)
				}
				ids[p.id()] = true
				if o.Lexical && (p.Weight != 0 || p.Fusion != cur.Fusion || p.DocEvidence != cur.DocEvidence) {
					t.Errorf("lexical tune tried %v", p)
				}
			}
			wantWeight := cur.Weight
			if o.Lexical {
				wantWeight = 0
			}
			if res.Queries != 4 || res.Metric != "nDCG@10" || res.Current.Score == nil || res.Current.Weight != wantWeight {
				t.Errorf("result %+v", res)
			}
		})
	}
}

func TestTuneStopsAtSearchError(t *testing.T) {
	boom := errors.New("boom")
	calls := 0
	_, err := Tune(context.Background(), judgedSet(4), Current(settings.Values{}), tuneOptions(), func(ctx context.Context, p Point, q Query) (Answer, error) {
		if calls++; q.ID == "q2" {
			return Answer{}, boom
		}
		return peakSearch(ctx, p, q)
	})
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "query q2") || calls != 3 {
		t.Errorf("Tune = %v after %d searches, want boom naming query q2 after 3", err, calls)
	}
}

// Tune sees only the split it is given: Source.Load keeps the queries of
// one split.
func TestTuneSplit(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "q.tsv")
	testenv.Must(t, os.WriteFile(p, []byte("id\tsplit\tquery\trelevant\nq1\ttune\tone\ta.md=2\nq2\ttest\ttwo\tb.md=2\nq3\ttune\tthree\tc.md=2\n"), 0o644))
	src := Source{Queries: p, Corpus: dir}
	col, corpus, byPath, err := src.Load(src.TuneSplit())
	if err != nil || corpus != dir || !byPath {
		t.Fatalf("Load = %v, %q, %v", err, corpus, byPath)
	}
	seen := map[string]bool{}
	_, err = Tune(context.Background(), col, Current(settings.Values{}), tuneOptions(), func(_ context.Context, _ Point, q Query) (Answer, error) {
		seen[q.ID] = true
		return Answer{}, nil
	})
	if err != nil || !cmp.Equal(seen, map[string]bool{"q1": true, "q3": true}) {
		t.Errorf("Tune = %v, searched %v, want the tune split's q1 and q3 only", err, seen)
	}
}

func TestTuneOptionsCheck(t *testing.T) {
	tests := []struct {
		name string
		set  func(*TuneOptions)
		want string // in the error; "" for none
	}{
		{"defaults", func(*TuneOptions) {}, ""},
		{"no passes", func(o *TuneOptions) { o.Passes = 0 }, "want at least one value"},
		{"no candidates", func(o *TuneOptions) { o.Candidates = nil }, "want at least one value"},
		{"weight above 1", func(o *TuneOptions) { o.VectorWeights = []float64{1.5} }, "TuneOptions.VectorWeights 1.5: weights run from 0"},
		{"negative link prior", func(o *TuneOptions) { o.LinkPrior = []float64{-0.1} }, "from 0 (off) to 1, not -0.1"},
		{"candidates too few", func(o *TuneOptions) { o.Candidates = []int{5} }, "TuneOptions.Candidates 5: want 10 to 1000"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := tuneOptions()
			tc.set(&o)
			err := o.Check()
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "eval: ")) {
				t.Errorf("Check = %v, want %q", err, tc.want)
			}
			if _, terr := Tune(context.Background(), judgedSet(1), Point{}, o, peakSearch); (terr == nil) != (err == nil) {
				t.Errorf("Tune = %v, want Check's error %v", terr, err)
			}
		})
	}
}

func TestCurrent(t *testing.T) {
	w, one, rrf, z, k, off := 0.4, 1.0, settings.FusionRRF, settings.NormZScore, 80, false
	tests := []struct {
		name string
		v    settings.Values
		want Point
	}{
		{"built-in defaults", settings.Values{}, Point{Weight: settings.DefaultVectorWeight, Fusion: settings.FusionLinear, Normalize: settings.NormMinMax,
			Candidates: settings.DefaultCandidates, DocEvidence: settings.DefaultDocEvidence, LinkPrior: settings.DefaultLinkPrior,
			Title: settings.DefaultTitleWeight, Headings: settings.DefaultHeadingWeight, Instruction: true, Auto: true}},
		{"the index's settings", settings.Values{VectorWeight: &w, Normalize: &z, Candidates: &k, QueryInstruction: &off, TitleWeight: &one, HeadingWeight: &one},
			Point{Weight: 0.4, Fusion: settings.FusionLinear, Normalize: settings.NormZScore, Candidates: 80, DocEvidence: settings.DefaultDocEvidence, Title: 1, Headings: 1}},
		{"rrf reads no normalisation", settings.Values{Fusion: &rrf, Normalize: &z},
			Point{Weight: settings.DefaultVectorWeight, Fusion: settings.FusionRRF, Candidates: settings.DefaultCandidates, DocEvidence: settings.DefaultDocEvidence,
				Title: settings.DefaultTitleWeight, Instruction: true, Auto: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Current(tc.v)); diff != "" {
				t.Errorf("Current (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPointString(t *testing.T) {
	p := Point{Weight: 0.6, Fusion: settings.FusionLinear, Normalize: settings.NormMinMax, Candidates: 50, DocEvidence: 0.2, Instruction: true}
	if got, want := p.String(), "vector_weight 0.6, fusion linear (minmax), candidates 50, doc_evidence 0.2, link_prior 0"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
	p.Fusion, p.Normalize, p.Instruction = settings.FusionRRF, "", false
	if got, want := p.String(), "vector_weight 0.6, fusion rrf, candidates 50, doc_evidence 0.2, link_prior 0, no query instruction"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
	p.Title = 0.5
	if got, want := p.String(), "vector_weight 0.6, fusion rrf, candidates 50, doc_evidence 0.2, link_prior 0, title_weight 0.5, heading_weight 0, no query instruction"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
}

func TestTuneResultSettings(t *testing.T) {
	for _, lexical := range []bool{false, true} {
		o := tuneOptions()
		o.Lexical = lexical
		res, err := Tune(context.Background(), judgedSet(2), Current(settings.Values{}), o, peakSearch)
		if err != nil {
			t.Fatal(err)
		}
		res.From = "set, split tune"
		tn := res.Tuning()
		if (tn.VectorWeight == nil) != lexical || (tn.QueryInstruction == nil) != lexical || tn.Candidates != 100 || tn.Fusion != res.Best.Fusion ||
			tn.TitleWeight != res.Best.Title || tn.HeadingWeight != res.Best.Headings {
			t.Errorf("lexical %v: Tuning %+v from best %v", lexical, tn, res.Best)
		}
		at := time.Date(2024, 5, 1, 12, 0, 0, 0, time.FixedZone("x", 3600))
		want := settings.Tuned{From: "set, split tune", At: "2024-05-01T11:00:00Z", Metric: "nDCG@10", Before: res.Current.Score.NDCG10, After: res.Best.Score.NDCG10, Queries: 2}
		if diff := cmp.Diff(want, res.Record(at)); diff != "" || want.After <= want.Before {
			t.Errorf("lexical %v: Record (-want +got):\n%s", lexical, diff)
		}
	}
}

func TestTuneResultText(t *testing.T) {
	cur := Point{Weight: 0.6, Fusion: "linear", Normalize: "minmax", Candidates: 50, Score: &TuneScore{NDCG10: 0.5, Hit1: 0.3, Hit5: 0.6, MRR10: 0.4}}
	best := cur
	best.Weight, best.Score = 0.3, &TuneScore{NDCG10: 0.7, Hit1: 0.5, Hit5: 0.8, MRR10: 0.6}
	r := &TuneResult{From: "scifact train", Queries: 12, Current: cur, Best: best, Tried: []Point{cur, best}}
	want := "tuned on scifact train (12 queries, 2 settings tried; scored at 10 results, no rerank)\n" +
		fmt.Sprintf("  %-8s %-60s nDCG@10 0.5000  hit@1 0.3000  hit@5 0.6000  MRR@10 0.4000\n", "current", cur.String()) +
		fmt.Sprintf("  %-8s %-60s nDCG@10 0.7000  hit@1 0.5000  hit@5 0.8000  MRR@10 0.6000\n", "best", best.String())
	if got := r.Text(); got != want {
		t.Errorf("Text:\n%s\nwant:\n%s", got, want)
	}
}
