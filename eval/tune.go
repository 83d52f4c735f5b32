package eval

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/braidsearch/braid/fusion"
	"github.com/braidsearch/braid/settings"
)

// Point is one point of the space Tune searches: the fusion settings and
// the ranking signals' strengths a search uses, and, once scored, how it
// ranked the queries.
type Point struct {
	Weight float64 `json:"vector_weight"`
	// Auto says the weight is chosen per query from the lists' predictors
	// by Model (nil: fusion.DefaultModel), not Weight.
	Auto        bool                   `json:"auto,omitempty"`
	Model       *fusion.Model          `json:"weight_model,omitempty"`
	Fusion      settings.Fusion        `json:"fusion"`
	Normalize   settings.Normalization `json:"normalize,omitempty"` // "" under RRF, which reads ranks
	Candidates  int                    `json:"candidates"`
	DocEvidence float64                `json:"doc_evidence"`
	LinkPrior   float64                `json:"link_prior"`
	Instruction bool                   `json:"query_instruction"`
	Title       float64                `json:"title_weight"`
	Headings    float64                `json:"heading_weight"`
	Score       *TuneScore             `json:"score,omitempty"`
}

// TuneScore is how a Point ranked the queries, at 10 results without
// reranking.
type TuneScore struct {
	NDCG10 float64 `json:"ndcg@10"`
	Hit1   float64 `json:"hit@1"`
	Hit5   float64 `json:"hit@5"`
	MRR10  float64 `json:"mrr@10"`
}

// Current is the Point a search that names no settings of its own uses on
// an index with settings v: each of v's values, else the built-in default.
func Current(v settings.Values) Point {
	p := Point{
		Weight: settings.Or(v.VectorWeight, settings.DefaultVectorWeight), Fusion: settings.Or(v.Fusion, settings.FusionLinear),
		Normalize: settings.Or(v.Normalize, settings.NormMinMax), Candidates: settings.Or(v.Candidates, settings.DefaultCandidates),
		DocEvidence: settings.Or(v.DocEvidence, settings.DefaultDocEvidence), LinkPrior: settings.Or(v.LinkPrior, settings.DefaultLinkPrior),
		Instruction: settings.Or(v.QueryInstruction, true),
		Title:       settings.Or(v.TitleWeight, settings.DefaultTitleWeight), Headings: settings.Or(v.HeadingWeight, settings.DefaultHeadingWeight),
		Auto: v.VectorWeight == nil, Model: v.WeightModel,
	}
	if p.Fusion == settings.FusionRRF {
		p.Normalize = ""
	}
	return p
}

// String is p as tune's report names it.
func (p Point) String() string {
	w := strconv.FormatFloat(p.Weight, 'g', -1, 64)
	if p.Auto {
		w = "auto"
		if p.Model != nil {
			w = "auto (refitted)"
		}
	}
	s := fmt.Sprintf("vector_weight %s, fusion %s", w, p.Fusion)
	if p.Fusion == settings.FusionLinear {
		s += " (" + string(p.Normalize) + ")"
	}
	s += fmt.Sprintf(", candidates %d, doc_evidence %g, link_prior %g", p.Candidates, p.DocEvidence, p.LinkPrior)
	if p.Title != 0 || p.Headings != 0 {
		s += fmt.Sprintf(", title_weight %g, heading_weight %g", p.Title, p.Headings)
	}
	if !p.Instruction {
		s += ", no query instruction"
	}
	return s
}

// id is p's settings as a key: points that search alike share it.
func (p Point) id() string {
	if p.Fusion == settings.FusionRRF {
		p.Normalize = ""
	}
	w := strconv.FormatFloat(p.Weight, 'g', -1, 64)
	if p.Auto {
		w = fmt.Sprintf("auto%v", p.Model)
	}
	return fmt.Sprintf("%s/%s/%s/%d/%g/%g/%v/%g/%g", w, p.Fusion, p.Normalize, p.Candidates, p.DocEvidence, p.LinkPrior, p.Instruction, p.Title, p.Headings)
}

// fusions are the ways of combining the two lists that Tune tries.
var fusions = []struct {
	f settings.Fusion
	n settings.Normalization
}{{settings.FusionLinear, settings.NormMinMax}, {settings.FusionLinear, settings.NormZScore}, {settings.FusionRRF, ""}}

// TuneOptions are the values Tune tries for each setting and how long it
// climbs.
type TuneOptions struct {
	VectorWeights []float64 // 0 (keywords only) to 1 (meaning only)
	Candidates    []int     // chunks each retriever hands to fusion, 10 to 1000
	DocEvidence   []float64 // 0 (off) to 1
	LinkPrior     []float64 // 0 (off) to 1
	// FieldWeights are the BM25 weights tried for the title and for the
	// headings, each in turn: 0 (counted as body text) to
	// settings.MaxFieldWeight.
	FieldWeights []float64
	// Passes are the rounds of coordinate ascent, 1 or more: each tries
	// every value of one setting with the others fixed, setting by
	// setting, and the climb ends early when a round changes nothing.
	Passes int
	// Lexical tunes only what a keyword search reads, for an engine
	// without vectors: the weight is 0, and fusion, the signals and the
	// query instruction are left as they are.
	Lexical bool
	// Tried (nil: none) hears of each point once it is scored.
	Tried func(Point)
}

// Check says what is wrong with o: a setting with no value to try, or a
// value out of its range.
func (o TuneOptions) Check() error {
	if o.Passes < 1 || len(o.VectorWeights) == 0 || len(o.Candidates) == 0 || len(o.DocEvidence) == 0 || len(o.LinkPrior) == 0 || len(o.FieldWeights) == 0 {
		return fmt.Errorf("eval: TuneOptions.Passes, TuneOptions.VectorWeights, TuneOptions.Candidates, TuneOptions.DocEvidence, TuneOptions.LinkPrior and TuneOptions.FieldWeights want at least one value")
	}
	for _, v := range o.FieldWeights {
		if v < 0 || v > settings.MaxFieldWeight {
			return fmt.Errorf("eval: TuneOptions.FieldWeights %v: weights run from 0 (counted as body text) to %g", v, settings.MaxFieldWeight)
		}
	}
	for _, v := range append(slices.Clone(o.DocEvidence), o.LinkPrior...) {
		if v < 0 || v > 1 {
			return fmt.Errorf("eval: TuneOptions.DocEvidence and TuneOptions.LinkPrior take strengths from 0 (off) to 1, not %v", v)
		}
	}
	for _, w := range o.VectorWeights {
		if w < 0 || w > 1 {
			return fmt.Errorf("eval: TuneOptions.VectorWeights %v: weights run from 0 (keywords only) to 1 (meaning only)", w)
		}
	}
	for _, k := range o.Candidates {
		if k < 10 || k > 1000 {
			return fmt.Errorf("eval: TuneOptions.Candidates %d: want 10 to 1000", k)
		}
	}
	return nil
}

// TuneResult is what Tune found: braid tune --json prints it.
type TuneResult struct {
	From    string  `json:"from"` // the queries tuned on (Source.Name), for the caller to set
	Queries int     `json:"queries"`
	Metric  string  `json:"metric"`  // what was maximised: nDCG@10
	Current Point   `json:"current"` // the settings in effect before, scored
	Best    Point   `json:"best"`
	Tried   []Point `json:"tried"` // every point scored, in order
	lexical bool
}

// Text is the result as braid tune prints it: what was tuned on, then
// the current and the best settings with their scores, a line each.
func (r *TuneResult) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "tuned on %s (%d queries, %d settings tried; scored at 10 results, no rerank)\n", r.From, r.Queries, len(r.Tried))
	for _, p := range []struct {
		name string
		Point
	}{{"current", r.Current}, {"best", r.Best}} {
		fmt.Fprintf(&b, "  %-8s %-60s nDCG@10 %.4f  hit@1 %.4f  hit@5 %.4f  MRR@10 %.4f\n", p.name, p.String(), p.Score.NDCG10, p.Score.Hit1, p.Score.Hit5, p.Score.MRR10)
	}
	return b.String()
}

// Tune looks for the settings that rank col's queries best by nDCG@10,
// starting from cur, the settings in effect: a coordinate ascent that
// changes one setting at a time with the others fixed. A point replaces
// the best only when it scores higher, so ties keep what is in effect.
// search answers q with 10 results, without reranking, with every
// setting of p. Tune stops at the first error of a search, which names
// the query (see Score), or at ctx's end.
func Tune(ctx context.Context, col *Collection, cur Point, o TuneOptions, search func(ctx context.Context, p Point, q Query) (Answer, error)) (*TuneResult, error) {
	if err := o.Check(); err != nil {
		return nil, err
	}
	weights := o.VectorWeights
	if o.Lexical {
		weights, cur.Weight = []float64{0}, 0
	}
	res := &TuneResult{Queries: len(col.Queries), Metric: "nDCG@10", Current: cur, lexical: o.Lexical}
	scores := map[string]*TuneScore{}
	perQuery := map[string][]QueryScore{}
	score := func(p Point) (*TuneScore, error) {
		if s, ok := scores[p.id()]; ok {
			return s, nil
		}
		sc, err := Score(ctx, col, func(ctx context.Context, q Query) (Answer, error) { return search(ctx, p, q) })
		if err != nil {
			return nil, err
		}
		s := &TuneScore{NDCG10: sc.NDCG10, Hit1: sc.Hit1, Hit5: sc.Hit5, MRR10: sc.MRR10}
		scores[p.id()], perQuery[p.id()] = s, sc.PerQuery
		p.Score = s
		res.Tried = append(res.Tried, p)
		if o.Tried != nil {
			o.Tried(p)
		}
		return s, nil
	}
	var err error
	if res.Current.Score, err = score(cur); err != nil {
		return nil, err
	}
	best := res.Current
	// The settings tuned, one at a time: each a list of changes to the
	// best point so far.
	var dims [][]func(*Point)
	dim := func(n int, set func(p *Point, i int)) {
		var d []func(*Point)
		for i := range n {
			d = append(d, func(p *Point) { set(p, i) })
		}
		dims = append(dims, d)
	}
	// The weights, then the adaptive weight refitted to how each query
	// ranked at each of them (those just scored, at the best point's other
	// settings), where vectors take part.
	dim(len(weights), func(p *Point, i int) { p.Weight, p.Auto, p.Model = weights[i], false, nil })
	if !o.Lexical && len(weights) > 2 {
		dims[0] = append(dims[0], func(p *Point) {
			m := refit(col, weights, func(w float64) []QueryScore {
				q := *p
				q.Weight, q.Auto, q.Model = w, false, nil
				return perQuery[q.id()]
			})
			p.Auto, p.Model = true, m
		})
	}
	if !o.Lexical {
		// The guard, on an adaptive weighting: BM25's sure best note kept
		// first where the vectors lack it (fusion.KeepLexicalBest), or off.
		dim(1, func(p *Point, _ int) {
			if p.Auto && p.Model != nil {
				m := *p.Model
				if m.Guard == (fusion.Guard{}) {
					m.Guard = fusion.KeepLexicalBest
				} else {
					m.Guard = fusion.Guard{}
				}
				p.Model = &m
			}
		})
	}
	if len(weights) > 1 || weights[0] != 0 {
		dim(len(fusions), func(p *Point, i int) { p.Fusion, p.Normalize = fusions[i].f, fusions[i].n })
	}
	dim(len(o.Candidates), func(p *Point, i int) { p.Candidates = o.Candidates[i] })
	dim(len(o.FieldWeights), func(p *Point, i int) { p.Title = o.FieldWeights[i] })
	dim(len(o.FieldWeights), func(p *Point, i int) { p.Headings = o.FieldWeights[i] })
	if !o.Lexical { // the signals and the instruction apply where vectors take part
		dim(len(o.DocEvidence), func(p *Point, i int) { p.DocEvidence = o.DocEvidence[i] })
		dim(len(o.LinkPrior), func(p *Point, i int) { p.LinkPrior = o.LinkPrior[i] })
		dim(1, func(p *Point, _ int) { p.Instruction = !p.Instruction })
	}
	for range o.Passes {
		before := best.id()
		for _, d := range dims {
			for _, set := range d {
				p := best
				set(&p)
				s, err := score(p)
				if err != nil {
					return nil, err
				}
				if s.NDCG10 > best.Score.NDCG10+1e-9 {
					best, best.Score = p, s
				}
			}
		}
		if best.id() == before {
			break
		}
	}
	res.Best = best
	return res, nil
}

// Tuning is the best point as an index's settings keep it; tuned
// lexically, the vector weight and query instruction are left unset.
func (r *TuneResult) Tuning() settings.Tuning {
	b := r.Best
	t := settings.Tuning{Fusion: b.Fusion, Normalize: b.Normalize, Candidates: b.Candidates, DocEvidence: b.DocEvidence, LinkPrior: b.LinkPrior,
		TitleWeight: b.Title, HeadingWeight: b.Headings}
	if !r.lexical {
		t.VectorWeight, t.QueryInstruction = &b.Weight, &b.Instruction
		if b.Auto {
			t.VectorWeight, t.WeightModel = nil, b.Model
		}
	}
	return t
}

// Record is the note an index keeps of where its tuned settings came
// from, saved at at.
func (r *TuneResult) Record(at time.Time) settings.Tuned {
	return settings.Tuned{From: r.From, At: at.UTC().Format(time.RFC3339), Metric: r.Metric,
		Before: r.Current.Score.NDCG10, After: r.Best.Score.NDCG10, Queries: r.Queries}
}

// refit fits the adaptive weighting (fusion.Fit, from
// fusion.DefaultModel) to how col's queries ranked at each of weights
// (ascending; at(w) is that run's per-query scores, nil when it was not
// scored): nil when a run is missing.
func refit(col *Collection, weights []float64, at func(w float64) []QueryScore) *fusion.Model {
	grid := slices.Sorted(slices.Values(weights))
	runs := make([][]QueryScore, len(grid))
	for i, w := range grid {
		if runs[i] = at(w); len(runs[i]) != len(col.Queries) {
			return nil
		}
	}
	var samples []fusion.Sample
	for j := range col.Queries {
		s := fusion.Sample{Gain: make([]float64, len(grid))}
		for i := range grid {
			s.Gain[i] = runs[i][j].NDCG10
			if p := runs[i][j].Predictors; p != nil {
				s.P = *p
			}
		}
		samples = append(samples, s)
	}
	m, _ := fusion.Fit(samples, grid, fusion.DefaultModel, fusion.Unfitted()...)
	return &m
}
