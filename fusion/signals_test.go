package fusion

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestDocEvidence(t *testing.T) {
	for _, tc := range []struct {
		name   string
		docs   []string
		scores []float64
		beta   float64
		want   []float64
	}{
		{"alone gains nothing", []string{"a", "b"}, []float64{1, 0.5}, 0.2, []float64{0, 0}},
		{"the next two of its document", []string{"a", "b", "a", "a", "a"}, []float64{1, 0.9, 0.8, 0.5, 0.1}, 0.5,
			[]float64{0.5 * (0.8 + 0.5), 0, 0.5 * (1 + 0.5), 0.5 * (1 + 0.8), 0.5 * (1 + 0.8)}},
		{"off", []string{"a", "a"}, []float64{1, 1}, 0, []float64{0, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := DocEvidence(tc.docs, tc.scores, tc.beta)
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
				t.Errorf("DocEvidence (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLinkPrior(t *testing.T) {
	for _, tc := range []struct {
		gamma float64
		n     int
		want  float64
	}{{0.3, 0, 1}, {0, 7, 1}, {0.3, 3, 1 + 0.3*math.Log(4)}} {
		if got := LinkPrior(tc.gamma, tc.n); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("LinkPrior(%v, %d) = %v, want %v", tc.gamma, tc.n, got, tc.want)
		}
	}
}

func TestLexical(t *testing.T) {
	got := Lexical([]Candidate{{"a", 4}, {"b", 2}, {"c", 1}})
	want := []Hit{
		{ID: "a", Score: 4, Lexical: Part{Rank: 1, Raw: 4, Norm: 1}},
		{ID: "b", Score: 2, Lexical: Part{Rank: 2, Raw: 2, Norm: 0.5}},
		{ID: "c", Score: 1, Lexical: Part{Rank: 3, Raw: 1, Norm: 0.25}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Lexical (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]Hit{{ID: "z", Lexical: Part{Rank: 1}}}, Lexical([]Candidate{{"z", 0}})); diff != "" {
		t.Errorf("Lexical of a zero score (-want +got):\n%s", diff)
	}
}
