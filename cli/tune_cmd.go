package cli

import (
	"cmp"
	"context"
	"fmt"
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
	FieldWeights []float64 `help:"BM25 weights to try for a word in a note's title, then in its headings (0: counted as body text)." default:"0,0.3,0.5,1" placeholder:"F"`
	Passes       int       `help:"Rounds of coordinate ascent: each round tries every value of one setting with the others fixed, setting by setting." default:"2"`
}

// Run tunes, prints the best settings beside the current ones, and saves.
func (c *TuneCmd) Run(g *Globals) error {
	src := eval.Source(c.judged)
	split := cmp.Or(c.Split, src.TuneSplit())
	if c.Save && !g.indexSet && g.Backend == "" {
		return fmt.Errorf("--save keeps the settings in an index: name the one you search with --index DIR (or --backend URL)")
	}
	opt := eval.TuneOptions{VectorWeights: c.VectorWeight, Candidates: c.Candidates, DocEvidence: c.DocEvidence, LinkPrior: c.LinkPrior, FieldWeights: c.FieldWeights, Passes: c.Passes}
	if err := opt.Check(); err != nil {
		return err
	}
	if split == "test" && !g.Quiet {
		g.warn("tuning on the test split: its scores no longer measure how the settings do on queries they were not chosen for; tune on train (or your own tuning half) and report on test")
	}
	col, corpus, byPath, err := src.Load(split)
	if err != nil {
		return err
	}
	e, done, err := openJudged(g, "braid tune", corpus, true, false)
	if err != nil {
		return err
	}
	defer done()

	if why := e.Capabilities().NoVectors; why != "" {
		g.warn("only the lexical settings are tuned: %s", why)
		opt.Lexical = true
	}
	if !g.Quiet {
		opt.Tried = func(p eval.Point) {
			fmt.Fprintf(g.stderr, "braid: tune: %-60s nDCG@10 %.4f  hit@1 %.4f  hit@5 %.4f\n", p.String(), p.Score.NDCG10, p.Score.Hit1, p.Score.Hit5)
		}
	}
	res, err := eval.Tune(g.ctx, col, eval.Current(e.Config().Values()), opt, func(ctx context.Context, p eval.Point, q eval.Query) (eval.Answer, error) {
		w := &p.Weight
		if p.Auto {
			w = nil // chosen per query by p.Model
		}
		return answer(ctx, e, byPath, q, braid.SearchOptions{Limit: braid.DefaultLimit, VectorWeight: w, WeightModel: p.Model, Fusion: p.Fusion, Normalize: p.Normalize,
			Candidates: p.Candidates, DocEvidence: &p.DocEvidence, LinkPrior: &p.LinkPrior, QueryInstruction: &p.Instruction,
			TitleWeight: &p.Title, HeadingWeight: &p.Headings, NoRerank: true})
	})
	if err != nil {
		return err
	}
	res.From = src.Name(split)
	rep := struct {
		*eval.TuneResult
		Saved bool   `json:"saved"`
		Index string `json:"index,omitempty"`
	}{TuneResult: res}
	if c.Save {
		if err := e.Config().SaveTuned(res.Tuning(), res.Record(time.Now())); err != nil {
			return err
		}
		rep.Saved, rep.Index = true, g.Index
	}
	if g.JSON {
		return g.printJSON(rep)
	}
	fmt.Fprint(g.stdout, res.Text())
	if rep.Saved {
		fmt.Fprintf(g.stdout, "saved as the defaults of %s (braid stats shows them; braid config set or reset changes them)\n", g.Index)
	} else {
		fmt.Fprintf(g.stdout, "not saved: add --save (with --index DIR) to make these the index's defaults\n")
	}
	return nil
}
