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
// Adaptive weighting (Model.Weight) maps them to the vector weight, and
// the guard (Model.Guarded) reads them to keep a list's best first.
type Predictors struct {
	LexTop float64 `json:"lex_top"` // the best BM25 score (raw)
	// LexGap is how far BM25's best stands out from the best candidate of
	// another document, relative to it: (best − next document's best) /
	// best, 1 when no other document is listed.
	LexGap  float64 `json:"lex_gap"`
	LexLead float64 `json:"lex_lead"` // (best − mean of ranks 2..10) / best BM25
	VecTop  float64 `json:"vec_top"`  // the best cosine
	VecGap  float64 `json:"vec_gap"`  // best − the next document's best cosine
	VecLead float64 `json:"vec_lead"` // best − mean of ranks 2..10, cosine
	// Overlap is the share of the two lists' top 10 they hold in common
	// (|top10 ∩ top10| / 10); Agreement the Spearman correlation of their
	// ranks over the union of the two top 10s, a candidate missing from a
	// list ranked 11th there (1: the same order, −1: reversed).
	Overlap   float64 `json:"overlap"`
	Agreement float64 `json:"agreement"`
	// LexInVec is the place of BM25's best document among the documents
	// of the vector list (1: the vectors' best too), 0 when the vector
	// list does not hold it; VecInLex the same of the vectors' best in
	// BM25's list.
	LexInVec int `json:"lex_in_vec"`
	VecInLex int `json:"vec_in_lex"`
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
// doc names the document a candidate belongs to (a chunk's note), so that
// the gaps and LexInVec, VecInLex are read between documents; nil counts
// each candidate as its own document. An empty list predicts zeros for
// its side. It costs a few microseconds (maps over the lists).
func Predict(lexical, vector []Candidate, doc func(id string) string) Predictors {
	if doc == nil {
		doc = func(id string) string { return id }
	}
	var p Predictors
	p.LexTop, p.LexGap, p.LexLead = confidence(lexical, doc, true)
	p.VecTop, p.VecGap, p.VecLead = confidence(vector, doc, false)
	if len(lexical) > 0 && len(vector) > 0 {
		p.LexInVec = place(vector, doc(lexical[0].ID), doc)
		p.VecInLex = place(lexical, doc(vector[0].ID), doc)
	}
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

// place is the 1-based place of document d among the documents of list,
// in the order their first candidates come, or 0 when list has none of it.
func place(list []Candidate, d string, doc func(string) string) int {
	seen := make(map[string]bool, len(list))
	for _, c := range list {
		cd := doc(c.ID)
		if cd == d {
			return len(seen) + 1
		}
		seen[cd] = true
	}
	return 0
}

// confidence is a list's best score, its gap to the best candidate of
// another document and its lead over the mean of ranks 2..10, relative to
// the best when rel.
func confidence(list []Candidate, doc func(string) string, rel bool) (best, gap, lead float64) {
	if len(list) == 0 {
		return 0, 0, 0
	}
	best = list[0].Score
	next, found := 0.0, false
	d := doc(list[0].ID)
	for _, c := range list[1:] {
		if doc(c.ID) != d {
			next, found = c.Score, true
			break
		}
	}
	if len(list) == 1 {
		if rel {
			return best, 1, 1
		}
		return best, best, best
	}
	gap = best - next
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
		if !found {
			gap = 1
		}
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
// whatever the weight: the two lists' top 10s share at most Overlap, that
// list's best stands out from the next document's by at least LexGap
// (BM25, relative to the best) or VecGap (cosine), and, when Unshared is
// above 0, the other list does not hold its document among its first
// Unshared documents. Rank is the 1-based rank it is moved up to when
// fusion put it lower; 0 turns the guard off.
type Guard struct {
	LexGap   float64 `json:"lex_gap,omitempty"`
	VecGap   float64 `json:"vec_gap,omitempty"`
	Overlap  float64 `json:"overlap,omitempty"`
	Unshared int     `json:"unshared,omitempty"`
	Rank     int     `json:"rank,omitempty"`
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

// KeepLexicalBest is the guard of DefaultModel, and the one braid tune
// tries on or off for an index: BM25's best note stays first where it
// stands out from BM25's next note by 30% of its score and the vector list
// does not hold it among its first 8 notes. On the vault questions those
// are mostly BM25's right answers that the vectors, reading meaning, do not
// share, and that fusion ranked below the vectors' own picks; at a lower
// gap the guard also fires on SciFact, where such a confident BM25 pick is
// more often wrong (docs/benchmarks.md, issue 44).
var KeepLexicalBest = Guard{LexGap: 0.3, Overlap: 1, Unshared: 8, Rank: 1}

// Guarded says which lists' best candidates the guard keeps for a query
// with predictors p, and why, in a phrase for --explain.
func (m Model) Guarded(p Predictors) (lex, vec bool, why string) {
	g := m.Guard
	if g.Rank <= 0 || p.Overlap > g.Overlap {
		return false, false, ""
	}
	unshared := func(at int) bool { return g.Unshared <= 0 || at == 0 || at > g.Unshared }
	lex = g.LexGap > 0 && p.LexGap >= g.LexGap && unshared(p.LexInVec)
	vec = g.VecGap > 0 && p.VecGap >= g.VecGap && unshared(p.VecInLex)
	where := func(at int, list string) string {
		switch {
		case g.Unshared <= 0:
			return ""
		case at == 0:
			return ", not in " + list
		}
		return fmt.Sprintf(", %s %d > %d", list, at, g.Unshared)
	}
	var parts []string
	if lex {
		parts = append(parts, fmt.Sprintf("BM25's best (lex_gap %.3f >= %.3f%s)", p.LexGap, g.LexGap, where(p.LexInVec, "the vectors' notes")))
	}
	if vec {
		parts = append(parts, fmt.Sprintf("the vectors' best (vec_gap %.3f >= %.3f%s)", p.VecGap, g.VecGap, where(p.VecInLex, "BM25's notes")))
	}
	if len(parts) == 0 {
		return lex, vec, ""
	}
	kept := fmt.Sprintf("kept within the top %d", g.Rank)
	if g.Rank == 1 {
		kept = "kept first"
	}
	if g.Overlap < 1 {
		return lex, vec, fmt.Sprintf("the lists disagree (overlap %.2f <= %.2f): %s %s", p.Overlap, g.Overlap, strings.Join(parts, " and "), kept)
	}
	return lex, vec, fmt.Sprintf("%s %s", strings.Join(parts, " and "), kept)
}

// Unguarded says why the guard did not keep BM25's best for a query with
// predictors p, in a phrase for --explain; "" when the guard is off or
// kept it.
func (m Model) Unguarded(p Predictors) string {
	g := m.Guard
	if g.Rank <= 0 || g.LexGap <= 0 {
		return ""
	}
	if lex, _, _ := m.Guarded(p); lex {
		return ""
	}
	switch {
	case p.Overlap > g.Overlap:
		return fmt.Sprintf("the lists agree (overlap %.2f > %.2f)", p.Overlap, g.Overlap)
	case p.LexGap < g.LexGap:
		return fmt.Sprintf("BM25 is unsure of its best (lex_gap %.3f < %.3f)", p.LexGap, g.LexGap)
	}
	return fmt.Sprintf("the vectors share BM25's best (their note %d <= %d)", p.LexInVec, g.Unshared)
}

// DefaultModel is the adaptive weighting a search gets when it names no
// weight: the weight fitted on SciFact's train split and the tuning half
// of bench/vaults/queries.tsv (issue 31), and the guard KeepLexicalBest,
// chosen by cross-validation on the vault tuning questions (that half and
// vault-questions-x, 107) with SciFact train held within 0.001 nDCG@10 of
// the model without it (issue 44; docs/benchmarks.md). The held-back
// halves were read only after the choice.
var DefaultModel = Model{Bias: 0.65, Coef: [7]float64{0, 0, 0, 0, 0, 0, 0.225}, Min: 0.1, Max: 0.9, Guard: KeepLexicalBest}

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
