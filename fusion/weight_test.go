package fusion

import "testing"

func TestChoiceRetrieve(t *testing.T) {
	w := func(f float64) *float64 { return &f }
	for _, tc := range []struct {
		name     string
		c        Choice
		weight   float64
		adaptive bool
		why      string
	}{
		{"none named: adaptive", Choice{Vectors: true}, DefaultWeight, true, ""},
		{"named by the search", Choice{Named: w(0.3), Vectors: true}, 0.3, false, "named by the search"},
		{"the index's setting", Choice{Named: w(0.4), Setting: true, Vectors: true}, 0.4, false, "the index's vector_weight setting"},
		{"keyword", Choice{Named: w(0.3), Keyword: true, Vectors: true}, 0, false, "a keyword search"},
		{"no vectors", Choice{Named: w(0.3)}, 0, false, "vectors are unavailable"},
		{"zero named", Choice{Named: w(0), Vectors: true}, 0, false, "named by the search"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := tc.c.Retrieve()
			if d.Weight != tc.weight || d.Adaptive != tc.adaptive || d.Why != tc.why {
				t.Errorf("Retrieve() = %+v, want weight %v adaptive %v why %q", d, tc.weight, tc.adaptive, tc.why)
			}
		})
	}
}

func TestDecisionFuse(t *testing.T) {
	m := DefaultModel
	p := Predictors{Agreement: 1}
	named := Decision{Weight: 0.3, Why: "named by the search"}
	if got := named.Fuse(m, p); got != named {
		t.Errorf("a named weight changed in Fuse: %+v", got)
	}
	want, why := m.Weight(p)
	got := Decision{Weight: DefaultWeight, Adaptive: true}.Fuse(m, p)
	if got.Weight != want || got.Why != why || !got.Adaptive {
		t.Errorf("adaptive Fuse = %+v, want the model's %v (%s)", got, want, why)
	}
}
