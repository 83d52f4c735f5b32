package rank

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/braidsearch/braid/chunk"
	"github.com/braidsearch/braid/fusion"
	"github.com/braidsearch/braid/lexical"
	"github.com/braidsearch/braid/settings"
)

func ptr(f float64) *float64 { return &f }

// chunk is the id of chunk n of document doc.
func chunkID(doc string, n int) string { return chunk.ID(doc, "00ff00ff", n) }

func ids(cands []Candidate) []string {
	var out []string
	for _, c := range cands {
		out = append(out, c.ChunkID)
	}
	return out
}

func TestFuse(t *testing.T) {
	lex := []lexical.Candidate{
		{ChunkID: "a", Score: 4, BM25: &lexical.BM25{Score: 4}, Terms: []string{"alpha"}},
		{ChunkID: "b", Score: 2},
		{ChunkID: "c", Score: 1},
	}
	vec := []fusion.Candidate{{ID: "c", Score: 0.9}, {ID: "d", Score: 0.5}, {ID: "a", Score: 0.1}}
	lexF := []fusion.Candidate{{ID: "a", Score: 4}, {ID: "b", Score: 2}, {ID: "c", Score: 1}}
	for _, tc := range []struct {
		name string
		w    float64
		how  settings.Fusion
		norm settings.Normalization
		want []fusion.Hit
	}{
		{"weight 0 is BM25 alone", 0, settings.FusionRRF, settings.NormZScore, fusion.Lexical(lexF)},
		{"linear, min-max by default", 0.6, "", "", fusion.Linear(lexF, vec, 0.6, fusion.MinMax)},
		{"linear, z-score", 0.6, settings.FusionLinear, settings.NormZScore, fusion.Linear(lexF, vec, 0.6, fusion.ZScore)},
		{"rrf", 0.6, settings.FusionRRF, "", fusion.RRF(lexF, vec, 0.6, 60)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Fuse(lex, vec, tc.w, tc.how, tc.norm)
			var want []Candidate
			for _, h := range tc.want {
				c := Candidate{ChunkID: h.ID, Score: h.Score, Fused: h.Score, Lexical: h.Lexical, Vector: h.Vector}
				if h.ID == "a" {
					c.BM25, c.Terms = &lexical.BM25{Score: 4}, []string{"alpha"}
				}
				want = append(want, c)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Fuse (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSignals(t *testing.T) {
	// Document x matches in three chunks, y in one that fusion put first;
	// the evidence of x's other chunks, or its links, lift x above y.
	fused := func() []Candidate {
		return []Candidate{
			{ChunkID: chunkID("y", 0), Score: 1},
			{ChunkID: chunkID("x", 0), Score: 0.9},
			{ChunkID: chunkID("x", 1), Score: 0.5},
			{ChunkID: chunkID("x", 2), Score: 0.25},
		}
	}
	links := map[string]int{"y": 0, "x": 3}
	backlinks := func(_ context.Context, docs []string) (map[string]int, error) { return links, nil }
	noCall := func(context.Context, []string) (map[string]int, error) {
		return nil, errors.New("backlinks read with the link prior off")
	}
	type want struct {
		ID                string
		Score, Fused, Bon float64
		Links             int
		Prior             float64
	}
	for _, tc := range []struct {
		name        string
		beta, gamma *float64
		backlinks   func(context.Context, []string) (map[string]int, error)
		want        []want
	}{
		{"off", ptr(0), ptr(0), noCall, []want{
			{chunkID("y", 0), 1, 1, 0, 0, 0}, {chunkID("x", 0), 0.9, 0.9, 0, 0, 0},
			{chunkID("x", 1), 0.5, 0.5, 0, 0, 0}, {chunkID("x", 2), 0.25, 0.25, 0, 0, 0}}},
		{"defaults: document evidence 0.2, no link prior", nil, nil, noCall, []want{
			{chunkID("x", 0), 0.9 + 0.2*0.75, 0.9, 0.2 * 0.75, 0, 0}, {chunkID("y", 0), 1, 1, 0, 0, 0},
			{chunkID("x", 1), 0.5 + 0.2*1.15, 0.5, 0.2 * 1.15, 0, 0}, {chunkID("x", 2), 0.25 + 0.2*1.4, 0.25, 0.2 * 1.4, 0, 0}}},
		{"link prior alone", ptr(0), ptr(0.5), backlinks, []want{
			{chunkID("x", 0), 0.9 * (1 + 0.5*math.Log(4)), 0.9, 0, 3, 1 + 0.5*math.Log(4)},
			{chunkID("y", 0), 1, 1, 0, 0, 1},
			{chunkID("x", 1), 0.5 * (1 + 0.5*math.Log(4)), 0.5, 0, 3, 1 + 0.5*math.Log(4)},
			{chunkID("x", 2), 0.25 * (1 + 0.5*math.Log(4)), 0.25, 0, 3, 1 + 0.5*math.Log(4)}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Signals(context.Background(), fused(), tc.beta, tc.gamma, tc.backlinks)
			if err != nil {
				t.Fatal(err)
			}
			var gotW []want
			for _, c := range got {
				gotW = append(gotW, want{c.ChunkID, c.Score, c.Fused, c.DocBonus, c.Backlinks, c.Prior})
			}
			if diff := cmp.Diff(tc.want, gotW, cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) < 1e-12 })); diff != "" {
				t.Errorf("Signals (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("one candidate is left alone", func(t *testing.T) {
		got, err := Signals(context.Background(), []Candidate{{ChunkID: chunkID("x", 0), Score: 0.3}}, ptr(1), ptr(1), noCall)
		if err != nil || len(got) != 1 || got[0].Score != 0.3 || got[0].Fused != 0.3 {
			t.Errorf("Signals = %+v, %v; want the candidate unchanged, its Fused set", got, err)
		}
	})
	t.Run("a failed backlinks read is the error", func(t *testing.T) {
		if _, err := Signals(context.Background(), fused(), ptr(0), ptr(1), noCall); err == nil {
			t.Error("Signals: no error")
		}
	})
}

func TestReranked(t *testing.T) {
	cands := []Candidate{{ChunkID: "a"}, {ChunkID: "b"}, {ChunkID: "c"}, {ChunkID: "d"}}
	// The cross-encoder read b, c and a (passages 0..2 at places 1, 2, 0).
	got := Reranked(cands, []int{1, 2, 0}, []float32{0.5, 2, -1})
	want := []Candidate{
		{ChunkID: "c", Reranked: true, Rerank: 2, Before: 3},
		{ChunkID: "b", Reranked: true, Rerank: 0.5, Before: 2},
		{ChunkID: "a", Reranked: true, Rerank: -1, Before: 1},
		{ChunkID: "d", Before: 4},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Reranked (-want +got):\n%s", diff)
	}
	if got := ids(Reranked([]Candidate{{ChunkID: "a"}, {ChunkID: "b"}}, nil, nil)); !cmp.Equal(got, []string{"a", "b"}) {
		t.Errorf("Reranked with none scored = %v, want the fused order", got)
	}
}

func TestLabel(t *testing.T) {
	for w, want := range map[float64]string{0: "lexical", 0.6: "hybrid", 1: "vector"} {
		if got := Label(w); got != want {
			t.Errorf("Label(%v) = %q, want %q", w, got, want)
		}
	}
}

func TestExplain(t *testing.T) {
	tree := &lexical.BM25{Score: 7, Terms: []lexical.TermBM25{{Field: "content", Term: "alpha", Score: 7}}}
	c := Candidate{ChunkID: "a", Score: 3, Lexical: fusion.Part{Rank: 2, Raw: 7, Norm: 0.5}, Vector: fusion.Part{Rank: 1, Raw: 0.8, Norm: 1},
		BM25: tree, Fused: 0.7, DocBonus: 0.1, Backlinks: 2, Prior: 1.2, Reranked: true, Rerank: 4.5, Before: 3}
	for _, tc := range []struct {
		name          string
		w             float64
		how           settings.Fusion
		noInstruction bool
		want          *Explanation
	}{
		{"hybrid, linear by default", 0.6, "", true, &Explanation{LexicalScore: 7, LexicalRank: 2, LexicalNorm: 0.5,
			VectorScore: 0.8, VectorRank: 1, VectorNorm: 1, VectorWeight: 0.6, Fusion: "linear", Fused: 0.7, Score: 3,
			DocEvidence: 0.1, NoQueryInstruction: true, LinkPrior: 1.2, Backlinks: 2,
			Reranked: true, RerankScore: 4.5, RankBefore: 3, RankAfter: 1, BM25: tree}},
		{"rrf", 0.5, settings.FusionRRF, false, &Explanation{LexicalScore: 7, LexicalRank: 2, LexicalNorm: 0.5,
			VectorScore: 0.8, VectorRank: 1, VectorNorm: 1, VectorWeight: 0.5, Fusion: "rrf", Fused: 0.7, Score: 3,
			DocEvidence: 0.1, LinkPrior: 1.2, Backlinks: 2,
			Reranked: true, RerankScore: 4.5, RankBefore: 3, RankAfter: 1, BM25: tree}},
		{"lexical: no fusion, no instruction to speak of", 0, settings.FusionRRF, true, &Explanation{LexicalScore: 7, LexicalRank: 2, LexicalNorm: 0.5,
			VectorScore: 0.8, VectorRank: 1, VectorNorm: 1, Fused: 0.7, Score: 3,
			DocEvidence: 0.1, LinkPrior: 1.2, Backlinks: 2,
			Reranked: true, RerankScore: 4.5, RankBefore: 3, RankAfter: 1, BM25: tree}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, c.Explain(tc.w, tc.how, tc.noInstruction, 1, nil)); diff != "" {
				t.Errorf("Explain (-want +got):\n%s", diff)
			}
		})
	}
	if x := (Candidate{Fused: 1}).Explain(0.5, "", false, 2, nil); x.Reranked || x.RankAfter != 0 || x.RankBefore != 0 {
		t.Errorf("Explain of a candidate not reranked = %+v, want no rerank fields", x)
	}
}

func TestWindow(t *testing.T) {
	cands := []Candidate{{ChunkID: "a1"}, {ChunkID: "b1"}, {ChunkID: "a2"}, {ChunkID: "c1"}, {ChunkID: "d1"}}
	shownA := func(id string) bool { return id[0] == 'a' }
	for _, tc := range []struct {
		name       string
		want       int
		skip       func(string) bool
		ids        []string
		places     []int
		candidates []Candidate
	}{
		{"every chunk", 2, func(string) bool { return false }, []string{"a1", "b1"}, []int{0, 1}, cands},
		{"a shown document's chunks left out", 2, shownA, []string{"b1", "c1"}, []int{-1, 0, -1, 1}, cands},
		{"fewer candidates than wanted", 10, shownA, []string{"b1", "c1", "d1"}, []int{-1, 0, -1, 1, 2}, cands},
		{"all shown", 3, func(string) bool { return true }, nil, []int{}, cands},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ids, places := Window(tc.candidates, tc.want, tc.skip)
			if diff := cmp.Diff(tc.ids, ids); diff != "" {
				t.Errorf("ids (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.places, places); diff != "" {
				t.Errorf("places (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMatched(t *testing.T) {
	vec := []fusion.Candidate{{ID: "a", Score: 0.9}, {ID: "b", Score: 0.8}, {ID: "c", Score: 0.7}}
	lex := []lexical.Candidate{{ChunkID: "c"}, {ChunkID: "a"}, {ChunkID: "z"}}
	want := []fusion.Candidate{{ID: "a", Score: 0.9}, {ID: "c", Score: 0.7}}
	if diff := cmp.Diff(want, Matched(vec, lex)); diff != "" {
		t.Errorf("Matched (-want +got):\n%s", diff)
	}
	if got := Matched([]fusion.Candidate{{ID: "a"}}, nil); len(got) != 0 {
		t.Errorf("Matched with no lexical match = %v, want none", got)
	}
}

func TestExplanationString(t *testing.T) {
	for _, tc := range []struct {
		name string
		x    Explanation
		want string
	}{
		{"lexical only", Explanation{LexicalScore: 3.25, LexicalRank: 2, LexicalNorm: 0.5, Fused: 0.5},
			"bm25 3.2500 (rank 2, normalised 0.500), vector_weight 0.00, score 0.5000"},
		{"a title match", Explanation{LexicalScore: 3.25, FieldBonus: 1.25, LexicalRank: 1, LexicalNorm: 1, Fused: 1},
			"bm25 3.2500 (1.2500 of it from the title and headings; rank 1, normalised 1.000), vector_weight 0.00, score 1.0000"},
		{"hybrid, absent from the lexical list", Explanation{VectorScore: 0.8125, VectorRank: 1, VectorNorm: 1, VectorWeight: 0.6, Fusion: "linear", Fused: 0.6},
			"bm25 0.0000 (not in list, normalised 0.000); cosine 0.8125 (rank 1, normalised 1.000); w 0.60, linear fused 0.6000"},
		{"reranked", Explanation{LexicalRank: 1, LexicalNorm: 1, Fused: 1, Reranked: true, RerankScore: 4.5, RankBefore: 3, RankAfter: 1},
			"bm25 0.0000 (rank 1, normalised 1.000), vector_weight 0.00, score 1.0000; rerank 4.5000 (rank 3 -> 1)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.x.String(); got != tc.want {
				t.Errorf("String() =\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

// TestExplainAddsUp: the line --explain prints ends with the score the hit
// ranked by, the fused score plus what the signals added, and says how an
// adaptive weight was chosen.
func TestExplainAddsUp(t *testing.T) {
	wt := &Weighting{Weight: 0.35, Adaptive: true, Why: "0.60 -0.25 (lex_gap 0.500)"}
	c := Candidate{Lexical: fusion.Part{Rank: 1, Raw: 7, Norm: 1}, Vector: fusion.Part{Rank: 4, Raw: 0.8, Norm: 0.7}, Fused: 0.8001, DocBonus: 0.2619, Score: 1.062}
	want := "bm25 7.0000 (rank 1, normalised 1.000); cosine 0.8000 (rank 4, normalised 0.700); w 0.35 adaptive [0.60 -0.25 (lex_gap 0.500)], linear fused 0.8001 + doc_evidence 0.2619 = score 1.0620"
	if got := c.Explain(0.35, "", false, 1, wt).String(); got != want {
		t.Errorf("String:\n got %s\nwant %s", got, want)
	}
}

// TestGuardKeepsTheConfidentBest: where BM25's best stands far above its
// second and the lists share nothing, the adaptive weighting keeps it in
// the top 2 even when fusion ranks it lower; a named weight or a lower gap
// leaves the fused order alone.
func TestGuardKeepsTheConfidentBest(t *testing.T) {
	lex := []lexical.Candidate{{ChunkID: "L1", Score: 10}, {ChunkID: "L2", Score: 3}, {ChunkID: "L3", Score: 2}}
	vec := []fusion.Candidate{{ID: "V1", Score: 0.9}, {ID: "V2", Score: 0.8}, {ID: "V3", Score: 0.7}}
	fused := func() []Candidate {
		return []Candidate{{ChunkID: "V1"}, {ChunkID: "V2"}, {ChunkID: "V3"}, {ChunkID: "L1"}, {ChunkID: "L2"}}
	}
	m := fusion.Model{Bias: 0.8, Min: 0.1, Max: 0.9, Guard: fusion.Guard{LexGap: 0.5, Overlap: 0.2, Rank: 2}}

	wt := Weigh(lex, vec, fusion.Decision{Weight: 0.6, Adaptive: true}, m)
	if wt.Guard == "" {
		t.Fatalf("lex_gap %.2f, overlap %.2f: want the guard on", wt.Predictors.LexGap, wt.Predictors.Overlap)
	}
	got := wt.Keep(fused())
	if diff := cmp.Diff([]string{"V1", "L1", "V2", "V3", "L2"}, ids(got)); diff != "" {
		t.Errorf("guarded order (-want +got):\n%s", diff)
	}
	if !got[1].Guarded || got[0].Guarded {
		t.Errorf("Guarded marks: %v, %v; want only L1", got[0].Guarded, got[1].Guarded)
	}
	if x := got[1].Explain(wt.Weight, "", false, 2, wt).String(); !strings.Contains(x, "kept up by the guard") {
		t.Errorf("explain does not say the guard moved it: %s", x)
	}

	named := Weigh(lex, vec, fusion.Decision{Weight: 0.6}, m) // --vector-weight 0.6: exactly that
	if diff := cmp.Diff(ids(fused()), ids(named.Keep(fused()))); diff != "" || named.Guard != "" {
		t.Errorf("a named weight was guarded (%q):\n%s", named.Guard, diff)
	}
	m.Guard.LexGap = 0.8 // L1's gap is 0.7
	if g := Weigh(lex, vec, fusion.Decision{Weight: 0.6, Adaptive: true}, m); g.Guard != "" || cmp.Diff(ids(fused()), ids(g.Keep(fused()))) != "" {
		t.Errorf("guard on below its gap: %q", g.Guard)
	}
}

// TestKeepLexicalBestFirst: BM25's best note, sure of itself and not among
// the vectors' first 8 notes, stays first under the default model's guard
// (fusion.KeepLexicalBest), and --explain says so on the first hit; where
// the vectors hold it near their top, fusion's order stands and the first
// hit says why BM25's best was not kept.
func TestKeepLexicalBestFirst(t *testing.T) {
	lex := []lexical.Candidate{{ChunkID: "a#1", Score: 10}, {ChunkID: "a#2", Score: 9}, {ChunkID: "b#1", Score: 6}}
	var vec []fusion.Candidate
	for i := range 9 {
		vec = append(vec, fusion.Candidate{ID: fmt.Sprintf("v%d#1", i), Score: 0.9 - float64(i)/100})
	}
	fused := func() []Candidate {
		return []Candidate{{ChunkID: "v0#1", Score: 0.9}, {ChunkID: "v1#1", Score: 0.8}, {ChunkID: "a#1", Score: 0.6, Lexical: fusion.Part{Rank: 1}}, {ChunkID: "b#1", Score: 0.5}}
	}
	m := fusion.DefaultModel
	wt := Weigh(lex, append(vec, fusion.Candidate{ID: "a#2", Score: 0.5}), fusion.Decision{Weight: 0.6, Adaptive: true}, m)
	if wt.Predictors.LexGap != 0.4 || wt.Predictors.LexInVec != 10 {
		t.Fatalf("predictors %+v: want lex_gap 0.4 (to note b) and a the vectors' 10th note", wt.Predictors)
	}
	got := wt.Keep(fused())
	if diff := cmp.Diff([]string{"a#1", "v0#1", "v1#1", "b#1"}, ids(got)); diff != "" {
		t.Errorf("guarded order (-want +got):\n%s", diff)
	}
	want := "the guard: BM25's best (lex_gap 0.400 >= 0.300, the vectors' notes 10 > 8) kept first"
	if first := First(got, wt, false); first != want {
		t.Errorf("First = %q, want %q", first, want)
	}

	shared := Weigh(lex, append([]fusion.Candidate{{ID: "a#2", Score: 0.95}}, vec...), fusion.Decision{Weight: 0.6, Adaptive: true}, m)
	got = shared.Keep(fused())
	if diff := cmp.Diff(ids(fused()), ids(got)); diff != "" || shared.Guard != "" {
		t.Errorf("the vectors' best note guarded away (%q):\n%s", shared.Guard, diff)
	}
	want = "score 0.9000 above the next hit's 0.8000; BM25's best not kept first: the vectors share BM25's best (their note 1 <= 8)"
	if first := First(got, shared, false); first != want {
		t.Errorf("First = %q, want %q", first, want)
	}
	x := got[0].Explain(shared.Weight, "", false, 1, shared)
	x.First = First(got, shared, false)
	if !strings.HasSuffix(x.String(), "; first: "+want) {
		t.Errorf("explain line %q does not end saying why it is first", x)
	}
}
