package settings_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/braidsearch/braid/settings"
)

func TestFill(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	b := func(v bool) *bool { return &v }
	fusion, norm := settings.FusionRRF, settings.NormZScore
	limit, cands := 20, 100
	budget := settings.Millis(300 * time.Millisecond)
	full := settings.Values{VectorWeight: f(0.4), Fusion: &fusion, Normalize: &norm, DocEvidence: f(0.1), LinkPrior: f(0.3),
		QueryInstruction: b(false), Limit: &limit, Candidates: &cands, Rerank: b(false), RerankBudget: &budget}
	filled := settings.Search{VectorWeight: f(0.4), DocEvidence: f(0.1), LinkPrior: f(0.3), QueryInstruction: b(false),
		Fusion: settings.FusionRRF, Normalize: settings.NormZScore, Limit: 20, Candidates: 100, NoRerank: true, RerankBudget: 300 * time.Millisecond}
	asked := settings.Search{VectorWeight: f(0.9), DocEvidence: f(0), LinkPrior: f(0), QueryInstruction: b(true),
		Fusion: settings.FusionLinear, Normalize: settings.NormMinMax, Limit: 5, Candidates: 10, RerankBudget: time.Second}
	noLimit := settings.Millis(0)
	for _, tc := range []struct {
		name         string
		v            settings.Values
		s            settings.Search
		engineBudget bool
		want         settings.Search
		weightFilled bool
	}{
		{"no settings leave the search open", settings.Values{}, settings.Search{}, false, settings.Search{}, false},
		{"the settings fill what is open", full, settings.Search{}, false, filled, true},
		{"the search's own values win, but rerank off turns it off", full, asked, false,
			func() settings.Search { s := asked; s.NoRerank = true; return s }(), false},
		{"an engine's budget wins over the setting", full, settings.Search{}, true,
			func() settings.Search { s := filled; s.RerankBudget = 0; return s }(), true},
		{"a budget of 0 is no limit", settings.Values{RerankBudget: &noLimit}, settings.Search{}, false, settings.Search{RerankBudget: -1}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.s
			filled := tc.v.Fill(&s, tc.engineBudget)
			if diff := cmp.Diff(tc.want, s); diff != "" || filled != tc.weightFilled {
				t.Errorf("Fill weight filled %v, want %v; search (-want +got):\n%s", filled, tc.weightFilled, diff)
			}
		})
	}
	// The filled values are copies: a search that changes them leaves the
	// index's settings alone.
	var s settings.Search
	full.Fill(&s, false)
	*s.VectorWeight, *s.DocEvidence, *s.QueryInstruction = 1, 1, true
	if *full.VectorWeight != 0.4 || *full.DocEvidence != 0.1 || *full.QueryInstruction {
		t.Errorf("Fill shares the settings' values: %+v", full)
	}
}
