package braid

import (
	"cmp"
	"context"
	"fmt"

	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/rank"
	"github.com/braidsearch/braid/rerank"
)

// rerankTop reorders the best candidates by the cross-encoder's scores:
// the reranked prefix by its score, the rest after it in fused order
// (rank.Reranked). It
// returns how many were reranked and of how many asked for, and a warning
// when the engine has no reranker though one was wanted: once per
// engine, since every search would repeat it.
func (e *Engine) rerankTop(ctx context.Context, q index.Query, cands []rank.Candidate, opt SearchOptions) ([]rank.Candidate, int, int, string, error) {
	if opt.NoRerank {
		return cands, 0, 0, "", nil
	}
	if e.opt.Reranker == nil {
		if e.opt.NoRerank != "" && e.toldNoRerank.CompareAndSwap(false, true) {
			return cands, 0, 0, "results are not reranked: " + e.opt.NoRerank, nil
		}
		return cands, 0, 0, "", nil
	}
	top := e.opt.RerankTop
	if top <= 0 {
		top = DefaultRerankTop
	}
	top = min(len(cands), top)
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
	out, err := e.opt.Reranker.RerankWithin(ctx, q.Semantic(), ps, budget)
	if err != nil {
		return nil, 0, 0, "", fmt.Errorf("braid: rerank: %w", err)
	}
	ranked := rank.Reranked(cands, at[:out.Reranked], out.Scores[:out.Reranked])
	return ranked, out.Reranked, top, "", nil
}
