package main

import (
	"cmp"
	"context"
	"encoding/json"
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

// evalRun is the score of one mode; Skipped runs say why.
type evalRun struct {
	Mode         string             `json:"mode"`
	VectorWeight float64            `json:"vector_weight"`
	Fusion       string             `json:"fusion,omitempty"`
	Normalize    string             `json:"normalize,omitempty"`
	Skipped      bool               `json:"skipped,omitempty"`
	Reason       string             `json:"reason,omitempty"`
	Queries      int                `json:"queries"`
	NDCG10       float64            `json:"ndcg@10"`
	Hit5         float64            `json:"hit@5"` // share of queries with their answer (top grade) in the top 5
	Recall10     float64            `json:"recall@10"`
	Recall100    float64            `json:"recall@100"`
	MRR10        float64            `json:"mrr@10"`
	TookMS       float64            `json:"took_ms"`
	P50MS        float64            `json:"p50_ms"`
	P95MS        float64            `json:"p95_ms"`
	Stages       map[string]float64 `json:"stages_p50_ms,omitempty"`
	Warnings     []string           `json:"warnings,omitempty"`
}

// key names a run for baseline matching.
func (r evalRun) key() string {
	if strings.HasPrefix(r.Mode, "hybrid") {
		return fmt.Sprintf("%s w=%g %s %s", r.Mode, r.VectorWeight, r.Fusion, r.Normalize)
	}
	return r.Mode
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
	var base []evalRun
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
	needVec := slices.ContainsFunc(modes, func(m string) bool { return m != "lexical" })
	needRerank := slices.Contains(modes, "hybrid+rerank")

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
	var runs []evalRun
	for _, m := range modes {
		ws := []float64{0}
		switch m {
		case "vector":
			ws = []float64{1}
		case "hybrid", "hybrid+rerank":
			ws = weights
		}
		for _, w := range ws {
			r := evalRun{Mode: m, VectorWeight: w, Queries: len(col.Queries)}
			if strings.HasPrefix(m, "hybrid") {
				r.Fusion = c.Fusion
				if c.Fusion == "linear" {
					r.Normalize = c.Normalize
				}
			}
			if why := skipReason(e, m); why != "" {
				r.Skipped, r.Reason = true, why
			} else if err := c.score(g, e, col, byPath, &r); err != nil {
				return err
			}
			runs = append(runs, r)
			if !g.JSON {
				printRun(g, r)
			}
		}
	}
	if g.JSON {
		if err := g.printJSON(runs); err != nil {
			return err
		}
	}
	if base != nil {
		return c.compare(g, runs, base)
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
	if mode == "lexical" {
		return ""
	}
	if why := e.VectorsUnavailable(); why != "" {
		return why
	}
	if mode == "hybrid+rerank" {
		return e.RerankUnavailable()
	}
	return ""
}

func printRun(g *Globals, r evalRun) {
	name := r.Mode
	if strings.HasPrefix(r.Mode, "hybrid") {
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

// score runs every query in one mode and fills in r's metrics.
func (c *EvalCmd) score(g *Globals, e *braid.Engine, col *eval.Collection, byPath bool, r *evalRun) error {
	opt := braid.SearchOptions{Limit: c.Depth, VectorWeight: &r.VectorWeight, Candidates: c.Candidates,
		Fusion: braid.Fusion(c.Fusion), Normalize: braid.Normalization(c.Normalize), NoRerank: r.Mode != "hybrid+rerank",
		DocEvidence: c.DocEvidence, LinkPrior: c.LinkPrior}
	return runQueries(g, e, col, byPath, opt, r)
}

// runQueries searches every query with opt and fills in r's metrics; a
// hit is named by its path (byPath) or its document id.
func runQueries(g *Globals, e *braid.Engine, col *eval.Collection, byPath bool, opt braid.SearchOptions, r *evalRun) error {
	sc, err := eval.Score(g.ctx, col, func(ctx context.Context, q eval.Query) (eval.Answer, error) {
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
	})
	if err != nil {
		return err
	}
	r.NDCG10, r.Hit5, r.Recall10, r.Recall100, r.MRR10 = sc.NDCG10, sc.Hit5, sc.Recall10, sc.Recall100, sc.MRR10
	r.TookMS, r.P50MS, r.P95MS, r.Stages = sc.TookMS, sc.P50MS, sc.P95MS, sc.Stages
	r.Warnings = append(r.Warnings, sc.Warnings...)
	return nil
}

// compare fails when a run scores below its baseline by more than the
// tolerance, and when a run the baseline scored was skipped (a gate that
// quietly skips its hybrid run because the model is missing is no gate).
// Runs the baseline lacks are not compared.
func (c *EvalCmd) compare(g *Globals, runs, base []evalRun) error {
	byKey := map[string]evalRun{}
	for _, b := range base {
		if !b.Skipped {
			byKey[b.key()] = b
		}
	}
	var worse []string
	compared := 0
	for _, r := range runs {
		b, ok := byKey[r.key()]
		if !ok {
			continue
		}
		if r.Skipped {
			worse = append(worse, fmt.Sprintf("%s was skipped (%s), baseline nDCG@10 %.4f", r.key(), r.Reason, b.NDCG10))
			continue
		}
		compared++
		for _, m := range []struct {
			name      string
			got, want float64
		}{{"nDCG@10", r.NDCG10, b.NDCG10}, {"recall@100", r.Recall100, b.Recall100}, {"MRR@10", r.MRR10, b.MRR10}} {
			if m.got < m.want-c.Tolerance {
				worse = append(worse, fmt.Sprintf("%s %s %.4f, baseline %.4f", r.key(), m.name, m.got, m.want))
			}
		}
	}
	if compared == 0 {
		return fmt.Errorf("--baseline %s has none of these runs to compare with (modes %s)", c.Baseline, strings.Join(c.Modes, ","))
	}
	if len(worse) > 0 {
		return fmt.Errorf("quality regression beyond %.3f: %s (if the change is intended, refresh the baseline with --json output)", c.Tolerance, strings.Join(worse, "; "))
	}
	if !g.Quiet && !g.JSON {
		fmt.Fprintf(g.stderr, "braid: %d run(s) within %.3f of the baseline %s\n", compared, c.Tolerance, c.Baseline)
	}
	return nil
}
