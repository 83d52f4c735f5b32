package braid

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/braidsearch/braid/doctor"
	"github.com/braidsearch/braid/rank"
	"github.com/braidsearch/braid/rerank"
)

// rerank reorders the best candidates by the cross-encoder's scores
// (rerankTop) and notes on res how many it reranked and the time it took.
// Its warning is for res.Warning: that no cross-encoder could be loaded,
// said as "not reranked either" where res.Warning names the same cause.
// slow is, for an explained search, doctor.SlowNote's note on the call.
func (e *Engine) rerank(ctx context.Context, text string, cands []rank.Candidate, opt SearchOptions, res *Results) (ranked []rank.Candidate, warn, slow string, err error) {
	t := time.Now()
	ranked, warn, slow, err = e.rerankTop(ctx, text, cands, opt, res)
	if err != nil {
		return nil, "", "", err
	}
	res.Timings.Rerank = msSince(t)
	if warn != "" && e.opt.NoRerank != "" && strings.Contains(res.Warning, e.opt.NoRerank) {
		warn = "results are not reranked either" // the same cause as the vector warning: say it once
	}
	return ranked, warn, slow, nil
}

// rerankTop reorders the best candidates by the cross-encoder's scores:
// the reranked prefix by its score, the rest after it in fused order
// (rank.Reranked). It sets how many were reranked and of how many asked
// for on res, and returns a warning when the engine has no reranker
// though the user asked for one (rerankWarning), and for an explained
// search the note on a slow cross-encoder call (doctor.SlowNote).
func (e *Engine) rerankTop(ctx context.Context, text string, cands []rank.Candidate, opt SearchOptions, res *Results) (ranked []rank.Candidate, warn, slow string, err error) {
	if opt.NoRerank || opt.Keyword {
		return cands, "", "", nil
	}
	if e.opt.Reranker == nil {
		return cands, e.rerankWarning(opt), "", nil
	}
	top := min(len(cands), e.opt.Reranker.Top())
	if top == 0 {
		return cands, "", "", nil
	}
	ids := make([]string, top)
	for i := range ids {
		ids[i] = cands[i].ChunkID
	}
	chunks, err := e.chunks(ctx, ids)
	if err != nil {
		return nil, "", "", err
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
	t := time.Now()
	out, err := e.opt.Reranker.RerankWithin(ctx, text, ps, budget)
	if err != nil {
		return nil, "", "", fmt.Errorf("rerank: %w", err)
	}
	if opt.Explain {
		slow = doctor.SlowNote(time.Since(t), out.Reranked-out.Cached, e.opt.Reranker.Scorer())
	}
	res.Reranked, res.RerankOf = out.Reranked, top
	return rank.Reranked(cands, at[:out.Reranked], out.Scores[:out.Reranked]), "", slow, nil
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
