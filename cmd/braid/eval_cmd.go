package main

import (
	"fmt"
	"time"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/eval"
)

// EvalCmd scores search quality on a BEIR collection whose corpus.jsonl is
// indexed.
type EvalCmd struct {
	Dir          string    `arg:"" help:"BEIR directory: queries.jsonl and qrels/SPLIT.tsv (index its corpus.jsonl first)." type:"existingdir"`
	Split        string    `help:"Which qrels split to score." default:"test"`
	VectorWeight []float64 `help:"Vector weights to score (repeatable or comma-separated)." default:"0,0.5,1" placeholder:"W"`
	Fusion       []string  `help:"Fusion methods to score (linear, rrf)." default:"linear" enum:"linear,rrf"`
	Normalize    []string  `help:"Score normalisations for linear fusion (minmax, zscore)." default:"minmax" enum:"minmax,zscore"`
	Candidates   int       `help:"Candidates each retriever hands to fusion." default:"50" placeholder:"K"`
	K            int       `help:"Cut-off for nDCG, recall and MRR: each query asks for this many results." default:"10"`
}

// evalRun is the score of one configuration.
type evalRun struct {
	VectorWeight float64  `json:"vector_weight"`
	Fusion       string   `json:"fusion"`
	Normalize    string   `json:"normalize,omitempty"`
	NDCG         float64  `json:"ndcg"`
	Recall       float64  `json:"recall_100"`
	MRR          float64  `json:"mrr"`
	P50MS        float64  `json:"p50_ms"`
	P95MS        float64  `json:"p95_ms"`
	Warnings     []string `json:"warnings,omitempty"`
}

// Run scores every configuration.
func (c *EvalCmd) Run(g *Globals) error {
	col, err := eval.LoadBEIR(c.Dir, c.Split)
	if err != nil {
		return err
	}
	if c.K < 1 || c.Candidates < 1 {
		return fmt.Errorf("--k and --candidates want 1 or more")
	}
	e, done, err := g.openWith(true, "braid eval")
	if err != nil {
		return err
	}
	defer done()
	var runs []evalRun
	for _, w := range c.VectorWeight {
		for _, f := range c.Fusion {
			norms := c.Normalize
			if f != "linear" || w == 0 || w == 1 {
				norms = norms[:1] // normalisation changes nothing there
			}
			for _, n := range norms {
				r, err := c.score(g, e, col, w, f, n)
				if err != nil {
					return err
				}
				runs = append(runs, r)
				if !g.JSON {
					fmt.Fprintf(g.stdout, "w %.2f %-6s %-6s  nDCG@%d %.4f  recall@%d %.4f  MRR@%d %.4f  p50 %.1f ms  p95 %.1f ms\n",
						w, f, r.Normalize, c.K, r.NDCG, c.K, r.Recall, c.K, r.MRR, r.P50MS, r.P95MS)
					for _, warn := range r.Warnings {
						g.warn("%s", warn)
					}
				}
			}
		}
	}
	if g.JSON {
		return g.printJSON(map[string]any{"dir": c.Dir, "split": c.Split, "queries": len(col.Queries), "runs": runs})
	}
	return nil
}

func (c *EvalCmd) score(g *Globals, e *braid.Engine, col *eval.Collection, w float64, f, n string) (evalRun, error) {
	r := evalRun{VectorWeight: w, Fusion: f}
	if f == "linear" && w > 0 && w < 1 {
		r.Normalize = n
	}
	seen := map[string]bool{}
	var lat []float64
	for _, q := range col.Queries {
		if err := g.ctx.Err(); err != nil {
			return r, err
		}
		start := time.Now()
		res, err := e.Search(g.ctx, q.Text, braid.SearchOptions{Limit: c.K, VectorWeight: &w,
			Fusion: braid.Fusion(f), Normalize: braid.Normalization(n), Candidates: c.Candidates})
		if err != nil {
			return r, fmt.Errorf("query %s: %w", q.ID, err)
		}
		lat = append(lat, float64(time.Since(start).Microseconds())/1000)
		if warn := res.Warning; warn != "" && !seen[warn] {
			seen[warn] = true
			r.Warnings = append(r.Warnings, warn)
		}
		ids := make([]string, len(res.Results))
		for i, h := range res.Results {
			ids[i] = h.ID
		}
		rel := col.Qrels[q.ID]
		r.NDCG += eval.NDCG(ids, rel, c.K)
		r.Recall += eval.Recall(ids, rel, c.K)
		r.MRR += eval.MRR(ids, rel, c.K)
	}
	n64 := float64(len(col.Queries))
	r.NDCG /= n64
	r.Recall /= n64
	r.MRR /= n64
	r.P50MS, r.P95MS = eval.Percentile(lat, 50), eval.Percentile(lat, 95)
	return r, nil
}
