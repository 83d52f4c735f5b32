package main

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/eval"
)

// TuneCmd searches the fusion settings for the ones that rank a set of
// judged queries best, and with --save keeps them as the index's defaults.
type TuneCmd struct {
	judged
	Split        string    `help:"Which split to tune on (default: train for --beir, tune for --queries). Never the split you report on." placeholder:"NAME"`
	Save         bool      `help:"Store the best settings in the index (--index) as the defaults of every later search; a search's own flags still win, braid stats shows them and where they came from, braid config set changes them."`
	VectorWeight []float64 `help:"Vector weights to try." default:"0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1" placeholder:"W"`
	Candidates   []int     `help:"Candidate depths to try (chunks each retriever hands to fusion)." default:"25,50,100,200" placeholder:"K"`
	DocEvidence  []float64 `help:"Document-evidence strengths to try (0 is off)." default:"0,0.1,0.2,0.3,0.5" placeholder:"B"`
	LinkPrior    []float64 `help:"Link-prior strengths to try (0 is off)." default:"0,0.05,0.1,0.2" placeholder:"G"`
	Passes       int       `help:"Rounds of coordinate ascent: each round tries every value of one setting with the others fixed, setting by setting." default:"2"`
}

// tuning is one point of the search space.
type tuning struct {
	Weight      float64             `json:"vector_weight"`
	Fusion      braid.Fusion        `json:"fusion"`
	Normalize   braid.Normalization `json:"normalize,omitempty"`
	Candidates  int                 `json:"candidates"`
	DocEvidence float64             `json:"doc_evidence"`
	LinkPrior   float64             `json:"link_prior"`
	Instruction bool                `json:"query_instruction"`
	Score       *tuneScore          `json:"score,omitempty"`
}

// tuneScore is how a setting ranked the queries (at 10 results, no rerank).
type tuneScore struct {
	NDCG10 float64 `json:"ndcg@10"`
	Hit5   float64 `json:"hit@5"`
	MRR10  float64 `json:"mrr@10"`
}

func (t tuning) String() string {
	s := fmt.Sprintf("vector_weight %s, fusion %s", strconv.FormatFloat(t.Weight, 'g', -1, 64), t.Fusion)
	if t.Fusion == braid.FusionLinear {
		s += " (" + string(t.Normalize) + ")"
	}
	s += fmt.Sprintf(", candidates %d, doc_evidence %g, link_prior %g", t.Candidates, t.DocEvidence, t.LinkPrior)
	if !t.Instruction {
		s += ", no query instruction"
	}
	return s
}

func (t tuning) id() string {
	if t.Fusion == braid.FusionRRF {
		t.Normalize = ""
	}
	return fmt.Sprintf("%g/%s/%s/%d/%g/%g/%v", t.Weight, t.Fusion, t.Normalize, t.Candidates, t.DocEvidence, t.LinkPrior, t.Instruction)
}

// tuneReport is what tune prints with --json.
type tuneReport struct {
	From    string   `json:"from"`
	Queries int      `json:"queries"`
	Metric  string   `json:"metric"`
	Current tuning   `json:"current"` // the settings in effect before
	Best    tuning   `json:"best"`
	Tried   []tuning `json:"tried"`
	Saved   bool     `json:"saved"`
	Index   string   `json:"index,omitempty"`
}

// fusions are the ways to combine the lists that tune tries.
var fusions = []struct {
	f braid.Fusion
	n braid.Normalization
}{{braid.FusionLinear, braid.NormMinMax}, {braid.FusionLinear, braid.NormZScore}, {braid.FusionRRF, ""}}

// Run tunes, prints the best settings beside the current ones, and saves.
func (c *TuneCmd) Run(g *Globals) error {
	split := c.Split
	if split == "" {
		split = "train"
		if c.Queries != "" {
			split = "tune"
		}
	}
	if c.Save && !g.indexSet && g.Backend == "" {
		return fmt.Errorf("--save keeps the settings in an index: name the one you search with --index DIR (or --backend URL)")
	}
	if c.Passes < 1 || len(c.VectorWeight) == 0 || len(c.Candidates) == 0 || len(c.DocEvidence) == 0 || len(c.LinkPrior) == 0 {
		return fmt.Errorf("--passes, --vector-weight, --candidates, --doc-evidence and --link-prior want at least one value")
	}
	for _, v := range append(slices.Clone(c.DocEvidence), c.LinkPrior...) {
		if v < 0 || v > 1 {
			return fmt.Errorf("--doc-evidence and --link-prior take strengths from 0 (off) to 1, not %v", v)
		}
	}
	for _, w := range c.VectorWeight {
		if w < 0 || w > 1 {
			return fmt.Errorf("--vector-weight %v: weights run from 0 (keywords only) to 1 (meaning only)", w)
		}
	}
	for _, k := range c.Candidates {
		if k < 10 || k > 1000 {
			return fmt.Errorf("--candidates %d: want 10 to 1000", k)
		}
	}
	if split == "test" && !g.Quiet {
		g.warn("tuning on the test split: its scores no longer measure how the settings do on queries they were not chosen for; tune on train (or your own tuning half) and report on test")
	}
	col, corpus, byPath, err := c.load(split)
	if err != nil {
		return err
	}
	e, done, err := openJudged(g, "braid tune", corpus, true, false)
	if err != nil {
		return err
	}
	defer done()

	cur := currentTuning(e)
	weights := c.VectorWeight
	why := e.Capabilities().NoVectors
	vectors := why == ""
	if !vectors {
		g.warn("only the lexical settings are tuned: %s", why)
		weights = []float64{0}
		cur.Weight = 0
	}
	rep := tuneReport{From: c.name(split), Queries: len(col.Queries), Metric: "nDCG@10", Current: cur}
	scores := map[string]*tuneScore{}
	score := func(t tuning) (*tuneScore, error) {
		if s, ok := scores[t.id()]; ok {
			return s, nil
		}
		w := t.Weight
		b, l, qi := t.DocEvidence, t.LinkPrior, t.Instruction
		opt := braid.SearchOptions{Limit: braid.DefaultLimit, VectorWeight: &w, Fusion: t.Fusion, Normalize: t.Normalize,
			Candidates: t.Candidates, DocEvidence: &b, LinkPrior: &l, QueryInstruction: &qi, NoRerank: true}
		sc, err := eval.Score(g.ctx, col, searcher(e, byPath, opt))
		if err != nil {
			return nil, err
		}
		s := &tuneScore{NDCG10: sc.NDCG10, Hit5: sc.Hit5, MRR10: sc.MRR10}
		scores[t.id()] = s
		t.Score = s
		rep.Tried = append(rep.Tried, t)
		if !g.Quiet {
			fmt.Fprintf(g.stderr, "braid: tune: %-60s nDCG@10 %.4f  hit@5 %.4f\n", t.String(), s.NDCG10, s.Hit5)
		}
		return s, nil
	}
	if rep.Current.Score, err = score(cur); err != nil {
		return err
	}
	best := rep.Current
	// Coordinate ascent: one setting at a time, the others fixed; a value
	// replaces the best only when it scores higher, so ties keep what is
	// in effect.
	try := func(t tuning) error {
		s, err := score(t)
		if err != nil {
			return err
		}
		if s.NDCG10 > best.Score.NDCG10+1e-9 {
			best, best.Score = t, s
		}
		return nil
	}
	// The settings tuned, one at a time: each a list of changes to the
	// best settings so far.
	var dims [][]func(*tuning)
	dim := func(n int, set func(t *tuning, i int)) {
		var d []func(*tuning)
		for i := range n {
			d = append(d, func(t *tuning) { set(t, i) })
		}
		dims = append(dims, d)
	}
	dim(len(weights), func(t *tuning, i int) { t.Weight = weights[i] })
	if len(weights) > 1 || weights[0] != 0 {
		dim(len(fusions), func(t *tuning, i int) { t.Fusion, t.Normalize = fusions[i].f, fusions[i].n })
	}
	dim(len(c.Candidates), func(t *tuning, i int) { t.Candidates = c.Candidates[i] })
	if vectors { // the signals and the instruction apply where vectors take part
		dim(len(c.DocEvidence), func(t *tuning, i int) { t.DocEvidence = c.DocEvidence[i] })
		dim(len(c.LinkPrior), func(t *tuning, i int) { t.LinkPrior = c.LinkPrior[i] })
		dim(1, func(t *tuning, _ int) { t.Instruction = !t.Instruction })
	}
	for range c.Passes {
		before := best.id()
		for _, d := range dims {
			for _, set := range d {
				t := best
				set(&t)
				if err := try(t); err != nil {
					return err
				}
			}
		}
		if best.id() == before {
			break
		}
	}
	rep.Best = best
	if c.Save {
		var w *float64
		if vectors {
			w = &best.Weight
		}
		t := braid.Tuning{VectorWeight: w, Fusion: best.Fusion, Normalize: best.Normalize,
			Candidates: best.Candidates, DocEvidence: best.DocEvidence, LinkPrior: best.LinkPrior}
		if vectors {
			t.QueryInstruction = &best.Instruction
		}
		err := e.Config().SaveTuned(t, braid.Tuned{
			From: rep.From, At: time.Now().UTC().Format(time.RFC3339), Metric: rep.Metric,
			Before: rep.Current.Score.NDCG10, After: best.Score.NDCG10, Queries: len(col.Queries)})
		if err != nil {
			return err
		}
		rep.Saved, rep.Index = true, g.Index
	}
	if g.JSON {
		return g.printJSON(rep)
	}
	fmt.Fprintf(g.stdout, "tuned on %s (%d queries, %d settings tried; nDCG@10 and hit@5 at 10 results, no rerank)\n", rep.From, rep.Queries, len(rep.Tried))
	fmt.Fprintf(g.stdout, "  current  %-60s nDCG@10 %.4f  hit@5 %.4f  MRR@10 %.4f\n", rep.Current.String(), rep.Current.Score.NDCG10, rep.Current.Score.Hit5, rep.Current.Score.MRR10)
	fmt.Fprintf(g.stdout, "  best     %-60s nDCG@10 %.4f  hit@5 %.4f  MRR@10 %.4f\n", best.String(), best.Score.NDCG10, best.Score.Hit5, best.Score.MRR10)
	switch {
	case rep.Saved:
		fmt.Fprintf(g.stdout, "saved as the defaults of %s (braid stats shows them; braid config set or reset changes them)\n", g.Index)
	default:
		fmt.Fprintf(g.stdout, "not saved: add --save (with --index DIR) to make these the index's defaults\n")
	}
	return nil
}

// currentTuning is the fusion settings a search with no options of its own
// uses on e: the index's settings, else braid's defaults.
func currentTuning(e *braid.Engine) tuning {
	s := e.Config().Values()
	orDefault := func(p *float64, d float64) float64 {
		if p != nil {
			return *p
		}
		return d
	}
	t := tuning{
		Weight: orDefault(s.VectorWeight, braid.DefaultVectorWeight), Fusion: braid.FusionLinear, Normalize: braid.NormMinMax,
		Candidates: braid.DefaultCandidates, DocEvidence: orDefault(s.DocEvidence, braid.DefaultDocEvidence),
		LinkPrior: orDefault(s.LinkPrior, braid.DefaultLinkPrior), Instruction: s.QueryInstruction == nil || *s.QueryInstruction,
	}
	if s.Fusion != nil {
		t.Fusion = *s.Fusion
	}
	if s.Normalize != nil {
		t.Normalize = *s.Normalize
	}
	if s.Candidates != nil {
		t.Candidates = *s.Candidates
	}
	if t.Fusion == braid.FusionRRF {
		t.Normalize = ""
	}
	return t
}
