package fusion

import (
	"math"
	"slices"
	"testing"
)

func cands(pairs ...any) []Candidate {
	var out []Candidate
	for i := 0; i < len(pairs); i += 2 {
		out = append(out, Candidate{ID: pairs[i].(string), Score: pairs[i+1].(float64)})
	}
	return out
}

func ids(hits []Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.ID
	}
	return out
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestMinMax(t *testing.T) {
	got := MinMax([]float64{10, 5, 0})
	if !slices.Equal(got, []float64{1, 0.5, 0}) {
		t.Errorf("MinMax = %v, want [1 0.5 0]", got)
	}
	if got := MinMax([]float64{3, 3}); !slices.Equal(got, []float64{1, 1}) {
		t.Errorf("MinMax of equal scores = %v, want all 1", got)
	}
	if got := MinMax(nil); len(got) != 0 {
		t.Errorf("MinMax(nil) = %v", got)
	}
}

func TestZScore(t *testing.T) {
	got := ZScore([]float64{3, 1, 2})
	if !near(got[0], math.Sqrt(1.5)) || !near(got[1], -math.Sqrt(1.5)) || !near(got[2], 0) {
		t.Errorf("ZScore = %v", got)
	}
	if got := ZScore([]float64{4, 4}); !slices.Equal(got, []float64{0, 0}) {
		t.Errorf("ZScore of equal scores = %v, want all 0", got)
	}
}

func TestLinearEnds(t *testing.T) {
	lex := cands("a", 9.0, "b", 5.0, "c", 1.0)
	vec := cands("c", 0.9, "d", 0.8, "a", 0.1)
	if got := ids(Linear(lex, vec, 0, MinMax)); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Errorf("w=0 gives %v, want the lexical list", got)
	}
	if got := ids(Linear(lex, vec, 1, MinMax)); !slices.Equal(got, []string{"c", "d", "a"}) {
		t.Errorf("w=1 gives %v, want the vector list", got)
	}
}

func TestLinearScores(t *testing.T) {
	lex := cands("a", 9.0, "b", 5.0, "c", 1.0)
	vec := cands("c", 0.9, "d", 0.8, "a", 0.1)
	hits := Linear(lex, vec, 0.5, MinMax)
	// Min-max: lex a=1 b=.5 c=0; vec c=1 d=.875 a=0. Missing from a list
	// counts as that list's floor (0 here).
	want := map[string]float64{"a": 0.5, "b": 0.25, "c": 0.5, "d": 0.4375}
	if len(hits) != 4 {
		t.Fatalf("got %d hits, want the union of 4", len(hits))
	}
	for _, h := range hits {
		if !near(h.Score, want[h.ID]) {
			t.Errorf("%s: score %v, want %v", h.ID, h.Score, want[h.ID])
		}
	}
	// a and c tie at 0.5: the id breaks it.
	if got := ids(hits); !slices.Equal(got, []string{"a", "c", "d", "b"}) {
		t.Errorf("order %v, want [a c d b]", got)
	}
	d := hits[2]
	if d.Lexical.Rank != 0 || d.Vector.Rank != 2 || !near(d.Vector.Raw, 0.8) || !near(d.Vector.Norm, 0.875) {
		t.Errorf("d's parts = %+v / %+v", d.Lexical, d.Vector)
	}
}

func TestLinearZScoreFloor(t *testing.T) {
	lex := cands("a", 3.0, "b", 1.0)
	vec := cands("c", 0.5)
	hits := Linear(lex, vec, 0.5, ZScore)
	byID := map[string]Hit{}
	for _, h := range hits {
		byID[h.ID] = h
	}
	// lex z: a=1 b=-1; vec z: c=0. a gets vec floor 0, c gets lex floor -1.
	if !near(byID["a"].Score, 0.5) || !near(byID["b"].Score, -0.5) || !near(byID["c"].Score, -0.5) {
		t.Errorf("scores a=%v b=%v c=%v, want 0.5 -0.5 -0.5", byID["a"].Score, byID["b"].Score, byID["c"].Score)
	}
}

func TestLinearSingleItemList(t *testing.T) {
	lex := cands("a", 3.0)
	vec := cands("b", 0.9, "a", 0.1)
	hits := Linear(lex, vec, 0.5, MinMax)
	// a: lex 1, vec 0 → 0.5; b: lex missing → 0, vec 1 → 0.5.
	for _, h := range hits {
		if !near(h.Score, 0.5) {
			t.Errorf("%s: %v, want 0.5", h.ID, h.Score)
		}
	}
}

func TestRRF(t *testing.T) {
	lex := cands("a", 9.0, "b", 5.0)
	vec := cands("b", 0.9, "c", 0.8)
	hits := RRF(lex, vec, 0.7, 60)
	want := map[string]float64{
		"a": 0.3 / 61,
		"b": 0.3/62 + 0.7/61,
		"c": 0.7 / 62,
	}
	for _, h := range hits {
		if !near(h.Score, want[h.ID]) {
			t.Errorf("%s: %v, want %v", h.ID, h.Score, want[h.ID])
		}
	}
	if got := ids(hits); !slices.Equal(got, []string{"b", "c", "a"}) {
		t.Errorf("order %v, want [b c a]", got)
	}
	if got := ids(RRF(lex, vec, 0, 0)); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("w=0 gives %v, want the lexical list", got)
	}
}

func TestDuplicateIDsCountOnce(t *testing.T) {
	lex := cands("a", 2.0, "a", 1.0, "b", 0.5)
	for _, hits := range [][]Hit{Linear(lex, nil, 0, MinMax), RRF(lex, nil, 0, 60)} {
		if len(hits) != 2 || hits[0].ID != "a" || hits[0].Lexical.Rank != 1 {
			t.Errorf("hits = %+v, want a (rank 1) then b", hits)
		}
	}
}

func FuzzLinear(f *testing.F) {
	f.Add([]byte{3, 1, 4, 1, 5, 9, 2, 6}, 0.5, true)
	f.Fuzz(func(t *testing.T, data []byte, w float64, rrf bool) {
		if math.IsNaN(w) || w < 0 || w > 1 {
			return
		}
		var lex, vec []Candidate
		for i, b := range data {
			c := Candidate{ID: string(rune('a' + b%16)), Score: float64(b) / 7}
			if i%2 == 0 {
				lex = append(lex, c)
			} else {
				vec = append(vec, c)
			}
		}
		var hits []Hit
		if rrf {
			hits = RRF(lex, vec, w, 60)
		} else {
			hits = Linear(lex, vec, w, MinMax)
		}
		seen := map[string]bool{}
		for i, h := range hits {
			if seen[h.ID] {
				t.Fatalf("%s twice", h.ID)
			}
			seen[h.ID] = true
			if math.IsNaN(h.Score) {
				t.Fatalf("%s: NaN score", h.ID)
			}
			if i > 0 && hits[i-1].Score < h.Score {
				t.Fatalf("not sorted at %d", i)
			}
		}
		for _, c := range append(append([]Candidate{}, lex...), vec...) {
			if !seen[c.ID] && ((w < 1 && slices.Contains(lex, c)) || (w > 0 && slices.Contains(vec, c))) {
				t.Fatalf("%s lost", c.ID)
			}
		}
	})
}
