package fusion

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestPredict(t *testing.T) {
	list := func(ids string, scores ...float64) []Candidate {
		var out []Candidate
		for i, id := range strings.Fields(ids) {
			out = append(out, Candidate{ID: id, Score: scores[i]})
		}
		return out
	}
	note := func(id string) string { n, _, _ := strings.Cut(id, "#"); return n } // "a#2": chunk 2 of note a
	for _, tc := range []struct {
		name     string
		lex, vec []Candidate
		doc      func(string) string
		want     Predictors
	}{
		{"empty", nil, nil, nil, Predictors{}},
		{"same order", list("a b c", 10, 5, 5), list("a b c", 0.9, 0.8, 0.7), nil,
			Predictors{LexTop: 10, LexGap: 0.5, LexLead: 0.5, VecTop: 0.9, VecGap: 0.1, VecLead: 0.15, Overlap: 0.3, Agreement: 1, LexInVec: 1, VecInLex: 1}},
		{"disjoint", list("a b", 4, 4), list("c d", 0.5, 0.4), nil,
			Predictors{LexTop: 4, VecTop: 0.5, VecGap: 0.1, VecLead: 0.1, Agreement: -0.9944903581267218}}, // ranks (1,11) (2,11) (11,1) (11,2)
		{"one lexical candidate", list("a", 3), nil, nil, Predictors{LexTop: 3, LexGap: 1, LexLead: 1}},
		// BM25's best note a holds its first two chunks: its gap is to
		// note b's 5, and it is the vectors' third note (after c, and d's
		// two chunks); the vectors' best, c, is BM25's third note.
		{"gaps and places between notes", list("a#1 a#2 b#1 c#1", 10, 9, 5, 4), list("c#1 d#1 d#2 a#2", 0.9, 0.8, 0.7, 0.6), note,
			Predictors{LexTop: 10, LexGap: 0.5, LexLead: 0.4, VecTop: 0.9, VecGap: 0.1, VecLead: 0.2, Overlap: 0.2, Agreement: -0.5888157894736842, LexInVec: 3, VecInLex: 3}},
		{"one note only", list("a#1 a#2", 10, 9), list("a#2", 0.5), note,
			Predictors{LexTop: 10, LexGap: 1, LexLead: 0.1, VecTop: 0.5, VecGap: 0.5, VecLead: 0.5, Overlap: 0.1, Agreement: -1, LexInVec: 1, VecInLex: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Predict(tc.lex, tc.vec, tc.doc), cmpopts.EquateApprox(0, 1e-9)); diff != "" {
				t.Errorf("Predict (-want +got):\n%s", diff)
			}
		})
	}
}

// TestGuarded: the guard keeps a list's best only where it stands out from
// the next note and the other list does not hold it near its top.
func TestGuarded(t *testing.T) {
	m := Model{Guard: KeepLexicalBest}
	for _, tc := range []struct {
		name     string
		g        *Guard
		p        Predictors
		lex, vec bool
		why      string
	}{
		{"sure and unshared", nil, Predictors{LexGap: 0.3, LexInVec: 0}, true, false,
			"BM25's best (lex_gap 0.300 >= 0.300, not in the vectors' notes) kept first"},
		{"sure, far down the vectors", nil, Predictors{LexGap: 0.3, LexInVec: 12}, true, false,
			"BM25's best (lex_gap 0.300 >= 0.300, the vectors' notes 12 > 8) kept first"},
		{"sure but shared", nil, Predictors{LexGap: 0.3, LexInVec: 8}, false, false, ""},
		{"unsure", nil, Predictors{LexGap: 0.25}, false, false, ""},
		{"off", &Guard{}, Predictors{LexGap: 1}, false, false, ""},
		{"the vectors' best, lists disagreeing", &Guard{VecGap: 0.05, Overlap: 0.2, Rank: 3}, Predictors{VecGap: 0.1, Overlap: 0.1, LexGap: 1}, false, true,
			"the lists disagree (overlap 0.10 <= 0.20): the vectors' best (vec_gap 0.100 >= 0.050) kept within the top 3"},
		{"lists agreeing", &Guard{VecGap: 0.05, Overlap: 0.2, Rank: 3}, Predictors{VecGap: 0.1, Overlap: 0.3}, false, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := m
			if tc.g != nil {
				m.Guard = *tc.g
			}
			lex, vec, why := m.Guarded(tc.p)
			if lex != tc.lex || vec != tc.vec || why != tc.why {
				t.Errorf("Guarded = %v, %v, %q; want %v, %v, %q", lex, vec, why, tc.lex, tc.vec, tc.why)
			}
		})
	}
}

func TestModelWeight(t *testing.T) {
	m := Model{Bias: 0.5, Coef: [7]float64{-0.4, 0, 0, 0, 0, 0.2, 0}, Min: 0.1, Max: 0.9}
	for _, tc := range []struct {
		name string
		p    Predictors
		want float64
		why  string
	}{
		{"neutral", Predictors{}, 0.5, "0.50 -0.00 (lex_gap 0.000) +0.00 (overlap 0.000)"},
		{"lexical sure", Predictors{LexGap: 1}, 0.1, "0.50 -0.40 (lex_gap 1.000) +0.00 (overlap 0.000) = 0.10, held to 0.10"},
		{"held", Predictors{LexGap: 1, Overlap: -2}, 0.1, "0.50 -0.40 (lex_gap 1.000) -0.40 (overlap -2.000) = -0.30, held to 0.10"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, why := m.Weight(tc.p)
			if math.Abs(w-tc.want) > 1e-9 || why != tc.why {
				t.Errorf("Weight = %v, %q; want %v, %q", w, why, tc.want, tc.why)
			}
		})
	}
}

// TestFit: queries whose BM25 stands out want the lexical end, the others
// the vector end; Fit finds a negative lex_gap coefficient that serves
// both, where no single weight does.
func TestFit(t *testing.T) {
	grid := []float64{0, 0.5, 1}
	var samples []Sample
	for i := range 20 {
		if i%2 == 0 {
			samples = append(samples, Sample{P: Predictors{LexGap: 0.8}, Gain: []float64{1, 0.5, 0}})
		} else {
			samples = append(samples, Sample{P: Predictors{LexGap: 0.1}, Gain: []float64{0, 0.5, 1}})
		}
	}
	start := Model{Bias: 0.5, Min: 0, Max: 1}
	_, fixed := Fit(samples, grid, start, Features...)
	m, got := Fit(samples, grid, start)
	if fixed > 0.5+1e-9 || got < 0.95 || m.Coef[0] >= 0 {
		t.Errorf("Fit = %+v scoring %v (bias only: %v), want a negative lex_gap coefficient scoring about 1", m, got, fixed)
	}
}

// BenchmarkAdaptiveWeight is the adaptive weight's cost per query: the
// predictors of two 50-candidate lists (the default candidates, whatever
// the corpus size: only the top 10 of each are read) and the model.
func BenchmarkAdaptiveWeight(b *testing.B) {
	lex, vec := make([]Candidate, 50), make([]Candidate, 50)
	for i := range lex {
		lex[i] = Candidate{ID: "c" + strconv.Itoa(i*7%60), Score: 20 - float64(i)*0.3}
		vec[i] = Candidate{ID: "c" + strconv.Itoa(i*3%70), Score: 0.9 - float64(i)*0.004}
	}
	b.ReportAllocs()
	for b.Loop() {
		DefaultModel.Weight(Predict(lex, vec, nil))
	}
}
