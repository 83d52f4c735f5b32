package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/eval"
)

// EvalCmd indexes a BEIR collection and scores search quality on it, one
// run per mode (and per vector weight for the hybrid modes).
type EvalCmd struct {
	judged
	Split        string    `help:"Which split to score (BEIR: the qrels file; --queries: the split column, or all)." default:"test"`
	Modes        []string  `help:"Modes to score: lexical, vector, hybrid, hybrid+rerank." default:"lexical,vector,hybrid,hybrid+rerank" enum:"lexical,vector,hybrid,hybrid+rerank"`
	VectorWeight []float64 `help:"Vector weights for the hybrid modes (repeatable or comma-separated; default the index's setting, else 0.6)." placeholder:"W"`
	Fusion       string    `help:"Fusion for the hybrid modes, linear or rrf (default the index's setting, else linear)." enum:",linear,rrf" default:""`
	Normalize    string    `help:"Score normalisation for linear fusion, minmax or zscore (default the index's setting, else minmax)." enum:",minmax,zscore" default:""`
	Candidates   int       `help:"Candidates each retriever hands to fusion (default the index's setting, else 50)." placeholder:"K"`
	Depth        int       `help:"Results fetched per query; recall@100 needs 100." default:"100" placeholder:"N"`
	DocEvidence  *float64  `help:"Document-evidence strength, 0 (off) to 1 (default: the index's setting, else braid's)." placeholder:"B"`
	LinkPrior    *float64  `help:"Link-prior strength, 0 (off) to 1 (default: the index's setting, else braid's)." placeholder:"G"`
	Baseline     string    `help:"Fail when a run's nDCG@10, recall@100 or MRR@10 is more than --tolerance below the same run in this JSON file (an earlier --json output)." type:"existingfile" placeholder:"FILE"`
	Tolerance    float64   `help:"How far below the baseline a metric may fall." default:"0.005"`
}

// judged are the inputs of eval and tune: queries with judgements and the
// corpus they judge.
type judged struct {
	BEIR    string `name:"beir" help:"BEIR directory: corpus.jsonl, queries.jsonl and qrels/SPLIT.tsv (e.g. ../shared/data/scifact)." type:"existingdir" placeholder:"DIR" xor:"input"`
	Queries string `help:"A query set in one TSV file (id, split, query, PATH=GRADE,...; e.g. bench/vaults/queries.tsv), judged against the files of --corpus." type:"existingfile" placeholder:"FILE" xor:"input"`
	Corpus  string `help:"With --queries: the directory indexed as one source, which the judged paths are relative to (e.g. ../shared/data/markdown)." type:"existingdir" placeholder:"DIR"`
}

// name says which queries these are, for reports.
func (c judged) name(split string) string {
	if c.BEIR != "" {
		return fmt.Sprintf("BEIR %s, split %s", filepath.Base(filepath.Clean(c.BEIR)), split)
	}
	return fmt.Sprintf("%s over %s, split %s", c.Queries, c.Corpus, split)
}

// load reads the judged queries of split and says what to index; a hit's
// id is what the judgements name (BEIR: the document id; a query set's
// file: the path within the corpus).
func (c judged) load(split string) (col *eval.Collection, corpus string, byPath bool, err error) {
	switch {
	case c.BEIR != "":
		if col, err = eval.LoadBEIR(c.BEIR, split); err != nil {
			return nil, "", false, err
		}
		corpus = filepath.Join(c.BEIR, "corpus.jsonl")
		if _, err := os.Stat(corpus); err != nil {
			return nil, "", false, fmt.Errorf("%w (a BEIR directory holds corpus.jsonl beside queries.jsonl)", err)
		}
		return col, corpus, false, nil
	case c.Queries != "":
		if c.Corpus == "" {
			return nil, "", false, fmt.Errorf("--queries %s wants --corpus DIR: the directory its judged paths are relative to", c.Queries)
		}
		col, err = eval.LoadTSV(c.Queries, split)
		return col, c.Corpus, true, err
	}
	return nil, "", false, fmt.Errorf("say what to score: --beir DIR (a BEIR collection) or --queries FILE --corpus DIR (a query set over a folder of files)")
}

// Run indexes the corpus, scores every mode and checks the baseline.
func (c *EvalCmd) Run(g *Globals) error {
	col, corpus, byPath, err := c.load(c.Split)
	if err != nil {
		return err
	}
	if c.Candidates < 0 || c.Depth < 10 {
		return fmt.Errorf("--candidates wants 1 or more and --depth 10 or more")
	}
	for _, w := range c.VectorWeight {
		if w <= 0 || w >= 1 {
			return fmt.Errorf("--vector-weight %v: the hybrid modes want a weight strictly between 0 and 1 (the lexical and vector modes are 0 and 1)", w)
		}
	}
	var base []eval.Run
	if c.Baseline != "" {
		data, err := os.ReadFile(c.Baseline)
		if err != nil {
			return err
		}
		if err := json.Unmarshal(data, &base); err != nil {
			return fmt.Errorf("--baseline %s: %w (want the JSON list braid eval --json prints)", c.Baseline, err)
		}
	}
	modes := slices.Compact(c.Modes)
	needVec := slices.ContainsFunc(modes, func(m string) bool { return m != eval.Lexical })
	needRerank := slices.Contains(modes, eval.HybridRerank)

	e, done, err := openJudged(g, "braid eval", corpus, needVec, needRerank)
	if err != nil {
		return err
	}
	defer done()

	// What the flags leave open comes from the index's settings (braid
	// tune --save), as in a search.
	cur := currentTuning(e)
	weights := c.VectorWeight
	if len(weights) == 0 {
		weights = []float64{cur.Weight}
	}
	if c.Fusion == "" {
		c.Fusion = string(cur.Fusion)
	}
	if c.Normalize == "" {
		c.Normalize = cmp.Or(string(cur.Normalize), string(braid.NormMinMax))
	}
	if c.Candidates == 0 {
		c.Candidates = cur.Candidates
	}
	runs := eval.Plan(modes, weights, c.Fusion, c.Normalize, len(col.Queries))
	for i := range runs {
		r := &runs[i]
		if why := skipReason(e, r.Mode); why != "" {
			r.Skipped, r.Reason = true, why
		} else {
			opt := braid.SearchOptions{Limit: c.Depth, VectorWeight: &r.VectorWeight, Candidates: c.Candidates,
				Fusion: braid.Fusion(c.Fusion), Normalize: braid.Normalization(c.Normalize), NoRerank: r.Mode != eval.HybridRerank,
				DocEvidence: c.DocEvidence, LinkPrior: c.LinkPrior}
			if err := r.Score(g.ctx, col, searcher(e, byPath, opt)); err != nil {
				return err
			}
		}
		if !g.JSON {
			printRun(g, *r)
		}
	}
	if g.JSON {
		if err := g.printJSON(runs); err != nil {
			return err
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
	dir := g.Index
	cleanup := func() {}
	if !g.indexSet && g.Backend == "" {
		var err error
		if dir, err = os.MkdirTemp("", "braid-eval-"); err != nil {
			return nil, nil, err
		}
		cleanup = func() { os.RemoveAll(dir) }
	}
	sub := *g
	sub.Index = dir
	e, done, err := sub.openFor(false, purpose, vectors, reranks)
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	if !g.Quiet {
		into := dir
		if g.Backend != "" {
			into = fmt.Sprintf("the cluster index %s at %s", g.BackendIndex, g.Backend)
		}
		fmt.Fprintf(g.stderr, "braid: indexing %s into %s\n", corpus, into)
	}
	pr := newProgress(g)
	_, err = e.Index(g.ctx, []braid.SourceSpec{{Path: corpus}}, pr.update)
	pr.done()
	if err != nil {
		done()
		cleanup()
		return nil, nil, err
	}
	return e, func() { done(); cleanup() }, nil
}

// skipReason says why the engine cannot run a mode, or "" when it can.
func skipReason(e *braid.Engine, mode string) string {
	if mode == eval.Lexical {
		return ""
	}
	if why := e.Capabilities().NoVectors; why != "" {
		return why
	}
	if mode == eval.HybridRerank {
		return e.Capabilities().NoRerank
	}
	return ""
}

func printRun(g *Globals, r eval.Run) {
	name := r.Mode
	if strings.HasPrefix(r.Mode, eval.Hybrid) {
		name = fmt.Sprintf("%s w=%.2f", r.Mode, r.VectorWeight)
	}
	if r.Skipped {
		fmt.Fprintf(g.stdout, "%-22s skipped: %s\n", name, r.Reason)
		return
	}
	fmt.Fprintf(g.stdout, "%-22s nDCG@10 %.4f  hit@5 %.4f  recall@10 %.4f  recall@100 %.4f  MRR@10 %.4f  %d queries in %.1f s (p50 %.1f ms, p95 %.1f ms)\n",
		name, r.NDCG10, r.Hit5, r.Recall10, r.Recall100, r.MRR10, r.Queries, r.TookMS/1000, r.P50MS, r.P95MS)
	for _, warn := range r.Warnings {
		g.warn("%s", warn)
	}
}

// searcher answers eval's queries with e, naming each hit by its path
// (byPath) or its document id, as the judgements do.
func searcher(e *braid.Engine, byPath bool, opt braid.SearchOptions) func(context.Context, eval.Query) (eval.Answer, error) {
	return func(ctx context.Context, q eval.Query) (eval.Answer, error) {
		res, err := e.Search(ctx, q.Text, opt)
		if err != nil {
			return eval.Answer{}, err
		}
		t := res.Timings
		a := eval.Answer{TookMS: res.TookMS, Warning: res.Warning, IDs: make([]string, len(res.Results)),
			Stages: map[string]float64{"lexical": t.Lexical, "embed": t.Embed, "vector": t.Vector, "fusion": t.Fusion, "rerank": t.Rerank, "hydrate": t.Hydrate}}
		for i, h := range res.Results {
			a.IDs[i] = h.ID
			if byPath {
				a.IDs[i] = h.Path
			}
		}
		return a, nil
	}
}
