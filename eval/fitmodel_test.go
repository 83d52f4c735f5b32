package eval

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/braidsearch/braid/fusion"
)

// TestFitDefaultModel refits fusion.DefaultModel from braid eval --json
// --per-query output (a lexical, a vector and hybrid runs at several
// weights, on the tuning splits only), each file's queries counting as
// much as another file's: BRAID_FIT_RUNS="sf-train.json vault-tune.json"
// go test -run TestFitDefaultModel -v ./eval. It prints the model to copy
// into fusion.DefaultModel; without the variable it is skipped.
func TestFitDefaultModel(t *testing.T) {
	files := strings.Fields(os.Getenv("BRAID_FIT_RUNS"))
	if len(files) == 0 {
		t.Skip("BRAID_FIT_RUNS names no eval --json --per-query files")
	}
	var samples []fusion.Sample
	var grid []float64
	for _, f := range files {
		runs, err := ReadRuns(f)
		if err != nil {
			t.Fatal(err)
		}
		runs = slices.DeleteFunc(runs, func(r Run) bool { return r.Auto || r.Skipped || len(r.PerQuery) == 0 })
		slices.SortFunc(runs, func(a, b Run) int {
			w := func(r Run) float64 {
				switch r.Mode {
				case Lexical:
					return 0
				case Vector:
					return 1
				}
				return r.VectorWeight
			}
			switch {
			case w(a) < w(b):
				return -1
			case w(a) > w(b):
				return 1
			}
			return 0
		})
		g := make([]float64, len(runs))
		for i, r := range runs {
			g[i] = r.VectorWeight
			if r.Mode == Vector {
				g[i] = 1
			}
		}
		if grid == nil {
			grid = g
		} else if !slices.Equal(grid, g) {
			t.Fatalf("%s: weights %v, want %v like the first file", f, g, grid)
		}
		n := len(runs[0].PerQuery)
		for j := range n {
			s := fusion.Sample{Gain: make([]float64, len(runs)), Share: 1 / float64(n)}
			for i, r := range runs {
				s.Gain[i] = r.PerQuery[j].NDCG10
				// Only a hybrid run read both lists: a vector run's
				// predictors have no lexical side.
				if p := r.PerQuery[j].Predictors; p != nil && r.Mode == Hybrid {
					s.P = *p
				}
			}
			samples = append(samples, s)
		}
	}
	start := fusion.DefaultModel
	start.Coef = [7]float64{}
	_, fixed := fusion.Fit(samples, grid, start, fusion.Features...)
	m, got := fusion.Fit(samples, grid, start, fusion.Unfitted()...)
	all, inSample := fusion.Fit(samples, grid, start)
	t.Logf("all seven predictors fitted (in-sample only, for comparison): %.4f, %#v", inSample, all.Coef)
	t.Logf("grid %v; best single weight (bias only): mean nDCG@10 %.4f; fitted: %.4f\nfusion.Model{Bias: %g, Coef: %#v, Min: %g, Max: %g}", grid, fixed, got, m.Bias, m.Coef, m.Min, m.Max)
}
