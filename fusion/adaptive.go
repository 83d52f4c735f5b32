package fusion

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Predictors are query-performance predictors of a search's two
// candidate lists, read at query time from the lists alone: how sure
// each retriever is of its best candidate, and whether the two agree.
// Adaptive weighting (Model.Weight) maps them to the vector weight.
type Predictors struct {
	LexTop  float64 `json:"lex_top"`  // the best BM25 score (raw)
	LexGap  float64 `json:"lex_gap"`  // (best − second) / best BM25: 1 when one candidate stands alone
	LexLead float64 `json:"lex_lead"` // (best − mean of ranks 2..10) / best BM25
	VecTop  float64 `json:"vec_top"`  // the best cosine
	VecGap  float64 `json:"vec_gap"`  // best − second cosine
	VecLead float64 `json:"vec_lead"` // best − mean of ranks 2..10, cosine
	// Overlap is the share of the two lists' top 10 they hold in common
	// (|top10 ∩ top10| / 10); Agreement the Spearman correlation of their
	// ranks over the union of the two top 10s, a candidate missing from a
	// list ranked 11th there (1: the same order, −1: reversed).
	Overlap   float64 `json:"overlap"`
	Agreement float64 `json:"agreement"`
}

// Features are the predictors a Model weighs, in the order of its
// coefficients.
var Features = []string{"lex_gap", "lex_lead", "vec_top", "vec_gap", "vec_lead", "overlap", "agreement"}

func (p Predictors) features() [7]float64 {
	return [7]float64{p.LexGap, p.LexLead, p.VecTop, p.VecGap, p.VecLead, p.Overlap, p.Agreement}
}

// top is how many of each list's best the predictors read.
const top = 10

// Predict reads the predictors of two candidate lists, each best first.
// An empty list predicts zeros for its side; it costs a few microseconds
// (two maps over the top 10s).
func Predict(lexical, vector []Candidate) Predictors {
	var p Predictors
	p.LexTop, p.LexGap, p.LexLead = confidence(lexical, true)
	p.VecTop, p.VecGap, p.VecLead = confidence(vector, false)
	lt, vt := lexical[:min(top, len(lexical))], vector[:min(top, len(vector))]
	if len(lt) == 0 || len(vt) == 0 {
		return p
	}
	lr, vr := make(map[string]int, top), make(map[string]int, top)
	for i, c := range lt {
		lr[c.ID] = i + 1
	}
	for i, c := range vt {
		vr[c.ID] = i + 1
		if lr[c.ID] > 0 {
			p.Overlap++
		}
	}
	p.Overlap /= top
	// Spearman's rho over the union, missing ranks at top+1.
	var xs, ys []float64
	add := func(id string) {
		x, y := lr[id], vr[id]
		if x == 0 {
			x = top + 1
		}
		if y == 0 {
			y = top + 1
		}
		xs, ys = append(xs, float64(x)), append(ys, float64(y))
	}
	for _, c := range lt {
		add(c.ID)
	}
	for _, c := range vt {
		if lr[c.ID] == 0 {
			add(c.ID)
		}
	}
	p.Agreement = pearson(xs, ys)
	return p
}

// confidence is a list's best score, its gap to the second and its lead
// over the mean of ranks 2..10, relative to the best when rel.
func confidence(list []Candidate, rel bool) (best, gap, lead float64) {
	if len(list) == 0 {
		return 0, 0, 0
	}
	best = list[0].Score
	if len(list) == 1 {
		if rel {
			return best, 1, 1
		}
		return best, best, best
	}
	gap = best - list[1].Score
	rest := list[1:min(top, len(list))]
	mean := 0.0
	for _, c := range rest {
		mean += c.Score
	}
	lead = best - mean/float64(len(rest))
	if rel {
		if best <= 0 {
			return best, 0, 0
		}
		gap, lead = gap/best, lead/best
	}
	return best, gap, lead
}

func pearson(xs, ys []float64) float64 {
	n := float64(len(xs))
	if n < 2 {
		return 0
	}
	var mx, my float64
	for i := range xs {
		mx, my = mx+xs[i], my+ys[i]
	}
	mx, my = mx/n, my/n
	var sxy, sxx, syy float64
	for i := range xs {
		dx, dy := xs[i]-mx, ys[i]-my
		sxy, sxx, syy = sxy+dx*dy, sxx+dx*dx, syy+dy*dy
	}
	if sxx == 0 || syy == 0 {
		return 0
	}
	return sxy / math.Sqrt(sxx*syy)
}

// Model maps a query's predictors to its vector weight: Bias plus each
// predictor (Features, in order) times its coefficient, held within
// [Min, Max]. It is fitted (Fit) on judged questions: braid ships
// DefaultModel and braid tune --save refits one on an index's own.
type Model struct {
	Bias float64    `json:"bias"`
	Coef [7]float64 `json:"coef"`
	Min  float64    `json:"min"`
	Max  float64    `json:"max"`
	// Guard keeps a confident list's best candidate in the fused top
	// where the two lists disagree (Model.Guarded): 0 fields, off.
	Guard Guard `json:"guard,omitzero"`
}

// Guard is when a list's best candidate is kept in the fused top ranks
// whatever the weight: the two lists' top 10s share at most Overlap, and
// that list's best stands out from its second by at least LexGap (BM25,
// relative to the best) or VecGap (cosine). Rank is the 1-based rank it is
// moved up to when fusion put it lower; 0 turns the guard off.
type Guard struct {
	LexGap  float64 `json:"lex_gap,omitempty"`
	VecGap  float64 `json:"vec_gap,omitempty"`
	Overlap float64 `json:"overlap,omitempty"`
	Rank    int     `json:"rank,omitempty"`
}

// FitFeatures are the predictors a refit moves (braid tune, and the fit
// of DefaultModel); the others keep their coefficients. Chosen by
// cross-validation on the tuning splits (docs/benchmarks.md): fitting all
// seven gained in-sample and lost on the held-out folds, and of the
// subsets tried only the lists' rank agreement beat a fixed weight there,
// by 0.003 nDCG@10; on indexes built on another CPU it fell 0.002 short,
// so it is a tie with a fixed weight, kept as the adaptive default.
var FitFeatures = []string{"agreement"}

// Unfitted names the Features not in FitFeatures: Fit's fixed argument
// for a refit.
func Unfitted() []string {
	var out []string
	for _, f := range Features {
		if !slices.Contains(FitFeatures, f) {
			out = append(out, f)
		}
	}
	return out
}

// KeepLexicalBest is the guard braid tune tries on an adaptive weighting:
// BM25's best chunk within the fused top 2 whatever the lists say. Off in
// DefaultModel: on the tuning splits it gained 0.001 nDCG@10 on the vault
// questions and lost 0.002 on SciFact train (docs/benchmarks.md).
var KeepLexicalBest = Guard{LexGap: 1e-9, Overlap: 1, Rank: 2}

// Guarded says which lists' best candidates the guard keeps for a query
// with predictors p, and why, in a phrase for --explain.
func (m Model) Guarded(p Predictors) (lex, vec bool, why string) {
	g := m.Guard
	if g.Rank <= 0 || p.Overlap > g.Overlap {
		return false, false, ""
	}
	lex = g.LexGap > 0 && p.LexGap >= g.LexGap
	vec = g.VecGap > 0 && p.VecGap >= g.VecGap
	var parts []string
	if lex {
		parts = append(parts, fmt.Sprintf("BM25's best (lex_gap %.3f >= %.3f)", p.LexGap, g.LexGap))
	}
	if vec {
		parts = append(parts, fmt.Sprintf("the vectors' best (vec_gap %.3f >= %.3f)", p.VecGap, g.VecGap))
	}
	if len(parts) > 0 {
		why = fmt.Sprintf("the lists disagree (overlap %.2f <= %.2f): %s kept within the top %d", p.Overlap, g.Overlap, strings.Join(parts, " and "), g.Rank)
	}
	return lex, vec, why
}

// DefaultModel is the adaptive weighting a search gets when it names no
// weight, fitted on SciFact's train split and the tuning half of
// bench/vaults/queries.tsv (docs/benchmarks.md, issue 31); the held-back
// halves were not read.
var DefaultModel = Model{Bias: 0.65, Coef: [7]float64{0, 0, 0, 0, 0, 0, 0.225}, Min: 0.1, Max: 0.9}

// Weight is the vector weight of a query with predictors p, and why: the
// terms that moved it from the bias, largest first.
func (m Model) Weight(p Predictors) (float64, string) {
	f := p.features()
	w := m.Bias
	type term struct {
		name string
		v, d float64
	}
	var terms []term
	for i, c := range m.Coef {
		w += c * f[i]
		if c != 0 {
			terms = append(terms, term{Features[i], f[i], c * f[i]})
		}
	}
	lo, hi := m.Min, m.Max
	if lo == 0 && hi == 0 {
		lo, hi = 0, 1
	}
	clamped := min(max(w, lo), hi)
	slices.SortStableFunc(terms, func(a, b term) int {
		switch {
		case math.Abs(a.d) > math.Abs(b.d):
			return -1
		case math.Abs(a.d) < math.Abs(b.d):
			return 1
		}
		return 0
	})
	var why strings.Builder
	fmt.Fprintf(&why, "%.2f", m.Bias)
	for _, t := range terms {
		fmt.Fprintf(&why, " %+.2f (%s %.3f)", t.d, t.name, t.v)
	}
	if clamped != w {
		fmt.Fprintf(&why, " = %.2f, held to %.2f", w, clamped)
	}
	return clamped, why.String()
}

// Sample is one judged query as Fit reads it: its predictors, and the
// score (nDCG@10, say) its ranking got at each weight of Fit's grid.
// Share is how much it counts (e.g. 1/queries of its collection, so that
// collections count alike); 0 counts as 1.
type Sample struct {
	P     Predictors `json:"predictors"`
	Gain  []float64  `json:"gain"`
	Share float64    `json:"share,omitempty"`
}

// Fit fits a Model to samples scored at the weights grid (ascending),
// by coordinate ascent from start over the bias and the coefficients
// (steps from 0.4 down to 0.025), maximising the samples' mean gain at the
// weight the model gives, read off the grid by linear interpolation. It
// returns the model and that mean. Coefficients named in fixed stay as
// they are in start.
func Fit(samples []Sample, grid []float64, start Model, fixed ...string) (Model, float64) {
	score := func(m Model) float64 {
		total, n := 0.0, 0.0
		for _, s := range samples {
			w, _ := m.Weight(s.P)
			share := s.Share
			if share == 0 {
				share = 1
			}
			total += share * interp(grid, s.Gain, w)
			n += share
		}
		if n == 0 {
			return 0
		}
		return total / n
	}
	best, bestScore := start, score(start)
	params := func(m *Model) []*float64 {
		ps := []*float64{&m.Bias}
		for i := range m.Coef {
			if !slices.Contains(fixed, Features[i]) {
				ps = append(ps, &m.Coef[i])
			}
		}
		return ps
	}
	for _, step := range []float64{0.4, 0.2, 0.1, 0.05, 0.025} {
		for improved := true; improved; {
			improved = false
			for j := range params(&best) {
				for _, d := range []float64{step, -step, 2 * step, -2 * step} {
					m := best
					*params(&m)[j] += d
					if s := score(m); s > bestScore+1e-9 {
						best, bestScore, improved = m, s, true
					}
				}
			}
		}
	}
	return best, bestScore
}

// interp is ys at x, linear between the grid points xs (ascending).
func interp(xs, ys []float64, x float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	if x <= xs[0] {
		return ys[0]
	}
	for i := 1; i < len(xs); i++ {
		if x <= xs[i] {
			t := (x - xs[i-1]) / (xs[i] - xs[i-1])
			return ys[i-1] + t*(ys[i]-ys[i-1])
		}
	}
	return ys[len(ys)-1]
}
