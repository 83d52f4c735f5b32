package braid

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/braidsearch/braid/rank"
	"github.com/braidsearch/braid/rerank"
)

// rerank reorders the best candidates by the cross-encoder's scores
// (rerankTop) and notes on res how many it reranked and the time it took.
// Its warning is for res.Warning: that no cross-encoder could be loaded,
// said as "not reranked either" where res.Warning names the same cause.
func (e *Engine) rerank(ctx context.Context, text string, cands []rank.Candidate, opt SearchOptions, res *Results) ([]rank.Candidate, string, error) {
	t := time.Now()
	ranked, n, of, warn, err := e.rerankTop(ctx, text, cands, opt)
	if err != nil {
		return nil, "", err
	}
	res.Timings.Rerank = msSince(t)
	res.Reranked, res.RerankOf = n, of
	if warn != "" && e.opt.NoRerank != "" && strings.Contains(res.Warning, e.opt.NoRerank) {
		warn = "results are not reranked either" // the same cause as the vector warning: say it once
	}
	return ranked, warn, nil
}

// rerankTop reorders the best candidates by the cross-encoder's scores:
// the reranked prefix by its score, the rest after it in fused order
// (rank.Reranked). It returns how many were reranked and of how many
// asked for, and a warning when the engine has no reranker though the
// user asked for one (rerankWarning).
func (e *Engine) rerankTop(ctx context.Context, text string, cands []rank.Candidate, opt SearchOptions) ([]rank.Candidate, int, int, string, error) {
	if opt.NoRerank || opt.Keyword {
		return cands, 0, 0, "", nil
	}
	if e.opt.Reranker == nil {
		return cands, 0, 0, e.rerankWarning(opt), nil
	}
	top := min(len(cands), e.opt.Reranker.Top())
	if top == 0 {
		return cands, 0, 0, "", nil
	}
	ids := make([]string, top)
	for i := range ids {
		ids[i] = cands[i].ChunkID
	}
	chunks, err := e.chunks(ctx, ids)
	if err != nil {
		return nil, 0, 0, "", err
	}
	var ps []rerank.Passage
	var at []int // position in cands of each passage
	for i, c := range chunks {
		if c != nil {
			ps = append(ps, rerank.Passage{ID: c.ID, Text: c.Text})
			at = append(at, i)
		}
	}
	budget := e.opt.Reranker.Budget()
	if b := cmp.Or(opt.RerankBudget, e.opt.RerankBudget); b != 0 { // this search's, else the engine's
		budget = max(b, 0)
	}
	out, err := e.opt.Reranker.RerankWithin(ctx, text, ps, budget)
	if err != nil {
		return nil, 0, 0, "", fmt.Errorf("rerank: %w", err)
	}
	ranked := rank.Reranked(cands, at[:out.Reranked], out.Scores[:out.Reranked])
	return ranked, out.Reranked, top, "", nil
}

// rerankWarning says why a search is not reranked when the user asked
// for the cross-encoder: by this search's Rerank, or by naming it
// (Options.RerankNamed) for a search not asked to be BM25 only (vector
// weight 0, by the search or the index's settings); a search on an engine
// whose default cross-encoder is not installed says nothing (braid doctor
// and braid stats say that). It is said once per engine, since every
// search would repeat it.
func (e *Engine) rerankWarning(opt SearchOptions) string {
	bm25 := opt.VectorWeight != nil && *opt.VectorWeight == 0
	asked := opt.Rerank || e.opt.RerankNamed && !bm25
	if !asked || e.opt.NoRerank == "" || !e.toldNoRerank.CompareAndSwap(false, true) {
		return ""
	}
	return "results are not reranked: " + e.opt.NoRerank
}
