package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/eval"
	"github.com/braidsearch/braid/settings"
)

// EvalCmd indexes a BEIR collection and scores search quality on it, one
// run per mode (and per vector weight for the hybrid modes).
type EvalCmd struct {
	judged
	Split         string   `help:"Which split to score (BEIR: the qrels file; --queries: the split column, or all)." default:"test"`
	Modes         []string `help:"Modes to score: lexical, vector, hybrid, hybrid+rerank." default:"lexical,vector,hybrid,hybrid+rerank" enum:"lexical,vector,hybrid,hybrid+rerank"`
	VectorWeight  []string `help:"Vector weights for the hybrid modes, auto (chosen per query) or 0..1 (repeatable or comma-separated; default the index's setting, else auto)." placeholder:"W"`
	PerQuery      bool     `hidden:"" help:"With --json, each run's per-query scores and fusion predictors (what braid tune fits the adaptive weight to)."`
	Fusion        string   `help:"Fusion for the hybrid modes, linear or rrf (default the index's setting, else linear)." enum:",linear,rrf" default:""`
	Normalize     string   `help:"Score normalisation for linear fusion, minmax or zscore (default the index's setting, else minmax)." enum:",minmax,zscore" default:""`
	Candidates    int      `help:"Candidates each retriever hands to fusion (default the index's setting, else 50)." placeholder:"K"`
	Depth         int      `help:"Results fetched per query; recall@100 needs 100." default:"100" placeholder:"N"`
	DocEvidence   *float64 `help:"Document-evidence strength, 0 (off) to 1 (default: the index's setting, else braid's)." placeholder:"B"`
	LinkPrior     *float64 `help:"Link-prior strength, 0 (off) to 1 (default: the index's setting, else braid's)." placeholder:"G"`
	TitleWeight   *float64 `help:"BM25 weight of a word in a note's title or path, 0 (counted as body text) to 5 (default: the index's setting, else braid's)." placeholder:"F"`
	HeadingWeight *float64 `help:"BM25 weight of a word in a chunk's headings, 0 (counted as body text) to 5 (default: the index's setting, else braid's)." placeholder:"F"`
	Baseline      string   `help:"Fail when a run's nDCG@10, recall@100 or MRR@10 is more than --tolerance below the same run in this JSON file (an earlier --json output)." type:"existingfile" placeholder:"FILE"`
	Tolerance     float64  `help:"How far below the baseline a metric may fall." default:"0.005"`
	FirstHit      bool     `name:"gate-first-hit" help:"Fail when the default ranking (hybrid at the adaptive weight) puts the answer first (hit@1) for fewer queries than the lexical run (--modes lexical,hybrid --vector-weight auto)."`
}

// judged are the inputs of eval and tune: queries with judgements and the
// corpus they judge.
type judged struct {
	BEIR    string `name:"beir" help:"BEIR directory: corpus.jsonl, queries.jsonl and qrels/SPLIT.tsv (e.g. ../shared/data/scifact)." type:"existingdir" placeholder:"DIR" xor:"input"`
	Queries string `help:"A query set in one TSV file (id, split, query, PATH=GRADE,...; e.g. bench/vaults/queries.tsv), judged against the files of --corpus." type:"existingfile" placeholder:"FILE" xor:"input"`
	Corpus  string `help:"With --queries: the directory indexed as one source, which the judged paths are relative to (e.g. ../shared/data/markdown)." type:"existingdir" placeholder:"DIR"`
}

// Run indexes the corpus, scores every mode and checks the baseline.
func (c *EvalCmd) Run(g *Globals) error {
	col, corpus, byPath, err := eval.Source(c.judged).Load(c.Split)
	if err != nil {
		return err
	}
	opt := eval.Options{Modes: c.Modes, Fusion: c.Fusion, Normalize: c.Normalize, PerQuery: c.PerQuery}
	for _, s := range c.VectorWeight {
		if s == settings.Auto {
			opt.Auto = true
			continue
		}
		w, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return fmt.Errorf("--vector-weight %q: want auto or a number strictly between 0 and 1", s)
		}
		opt.VectorWeights = append(opt.VectorWeights, w)
	}
	if c.Candidates < 0 || c.Depth < 10 {
		return fmt.Errorf("--candidates wants 1 or more and --depth 10 or more")
	} else if err := opt.Check(); err != nil {
		return err
	}
	var base []eval.Run
	if c.Baseline != "" {
		if base, err = eval.ReadRuns(c.Baseline); err != nil {
			return err
		}
	}
	needVec := slices.ContainsFunc(c.Modes, func(m string) bool { return m != eval.Lexical })
	e, done, err := openJudged(g, "braid eval", corpus, needVec, slices.Contains(c.Modes, eval.HybridRerank))
	if err != nil {
		return err
	}
	defer done()

	// What the flags leave open comes from the index's settings (braid
	// tune --save), as in a search.
	caps, cur := e.Capabilities(), eval.Current(e.Config().Values())
	candidates := cmp.Or(c.Candidates, cur.Candidates)
	runs, err := eval.Evaluate(g.ctx, col, opt, eval.Engine{NoVectors: caps.NoVectors, NoRerank: caps.NoRerank, Current: cur,
		Search: func(ctx context.Context, r eval.Run, q eval.Query) (eval.Answer, error) {
			w := &r.VectorWeight
			if r.Auto {
				w = nil // the adaptive weight, per query
			}
			return answer(ctx, e, byPath, q, braid.SearchOptions{Limit: c.Depth, VectorWeight: w, Candidates: candidates,
				Fusion: braid.Fusion(r.Fusion), Normalize: braid.Normalization(r.Normalize), NoRerank: r.Mode != eval.HybridRerank,
				DocEvidence: c.DocEvidence, LinkPrior: c.LinkPrior, TitleWeight: c.TitleWeight, HeadingWeight: c.HeadingWeight})
		}}, func(r eval.Run) {
		if !g.JSON {
			fmt.Fprintln(g.stdout, r)
			for _, warn := range r.Warnings {
				g.warn("%s", warn)
			}
		}
	})
	if err != nil {
		return err
	}
	if g.JSON {
		if err := g.printJSON(runs); err != nil {
			return err
		}
	}
	if c.FirstHit {
		say, err := eval.FirstHit(runs)
		if err != nil {
			return err
		}
		if !g.Quiet && !g.JSON {
			fmt.Fprintf(g.stderr, "braid: first hits kept: %s\n", say)
		}
	}
	if base == nil {
		return nil
	}
	compared, err := eval.Compare(runs, base, c.Tolerance)
	switch {
	case errors.Is(err, eval.ErrNoCommonRuns):
		return fmt.Errorf("--baseline %s has none of these runs to compare with (modes %s)", c.Baseline, strings.Join(c.Modes, ","))
	case err != nil:
		return fmt.Errorf("%w (if the change is intended, refresh the baseline with --json output)", err)
	}
	if !g.Quiet && !g.JSON {
		fmt.Fprintf(g.stderr, "braid: %d run(s) within %.3f of the baseline %s\n", compared, c.Tolerance, c.Baseline)
	}
	return nil
}

// openJudged opens --index (or a temporary index when none is named) and
// indexes corpus into it: a no-op when it is already indexed and
// unchanged.
func openJudged(g *Globals, purpose, corpus string, vectors, reranks bool) (*braid.Engine, func(), error) {
	sub, cleanup := *g, func() {}
	if !g.indexSet && g.Backend == "" {
		dir, err := os.MkdirTemp("", "braid-eval-")
		if err != nil {
			return nil, nil, err
		}
		sub.Index, cleanup = dir, func() { os.RemoveAll(dir) }
	}
	e, done, err := sub.openFor(false, purpose, vectors, reranks, false)
	if err == nil {
		if into := sub.Index; !g.Quiet {
			if g.Backend != "" {
				into = fmt.Sprintf("the cluster index %s at %s", g.BackendIndex, g.Backend)
			}
			fmt.Fprintf(g.stderr, "braid: indexing %s into %s\n", corpus, into)
		}
		pr := newProgress(g)
		_, err = e.Index(g.ctx, []braid.SourceSpec{{Path: corpus}}, pr.update)
		if pr.done(); err != nil {
			done()
		}
	}
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	return e, func() { done(); cleanup() }, nil
}

// answer searches e for q, naming each hit by its path (byPath) or its
// document id, as the judgements do.
func answer(ctx context.Context, e *braid.Engine, byPath bool, q eval.Query, opt braid.SearchOptions) (eval.Answer, error) {
	res, err := e.Search(ctx, q.Text, opt)
	if err != nil {
		return eval.Answer{}, err
	}
	t := res.Timings
	a := eval.Answer{TookMS: res.TookMS, Warning: res.Warning, IDs: make([]string, len(res.Results)),
		Stages: map[string]float64{"lexical": t.Lexical, "embed": t.Embed, "vector": t.Vector, "fusion": t.Fusion, "rerank": t.Rerank, "hydrate": t.Hydrate}}
	if wt := res.Weighting; wt != nil {
		a.Weight, a.Predictors = wt.Weight, &wt.Predictors
	}
	for i, h := range res.Results {
		a.IDs[i] = h.ID
		if byPath {
			a.IDs[i] = h.Path
		}
	}
	return a, nil
}
