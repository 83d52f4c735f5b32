package braid

import (
	"context"
	"slices"

	"github.com/braidsearch/braid/fusion"
	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/settings"
)

// signals reranks fused candidates by what braid knows beyond the two
// retrievers: how much of a document matched (fusion.DocEvidence), and
// how many notes link to it (fusion.LinkPrior). A keyword search (vector
// weight 0) stays plain BM25. Each chunk keeps its fused score in fused;
// its score becomes (fused + document evidence) × link prior.
func (e *Engine) signals(ctx context.Context, cands []scored, opt SearchOptions) ([]scored, error) {
	for i := range cands {
		cands[i].fused = cands[i].score
	}
	beta, gamma := settings.DefaultDocEvidence, settings.DefaultLinkPrior
	if opt.DocEvidence != nil {
		beta = *opt.DocEvidence
	}
	if opt.LinkPrior != nil {
		gamma = *opt.LinkPrior
	}
	if beta == 0 && gamma == 0 || len(cands) < 2 {
		return cands, nil
	}
	docs, fused := make([]string, len(cands)), make([]float64, len(cands))
	for i, c := range cands {
		docs[i], fused[i] = index.ChunkDocID(c.chunkID), c.fused
	}
	if beta != 0 {
		for i, bonus := range fusion.DocEvidence(docs, fused, beta) {
			cands[i].docBonus = bonus
			cands[i].score += bonus
		}
	}
	if gamma != 0 {
		counts, err := e.ret.Backlinks(ctx, docs)
		if err != nil {
			return nil, err
		}
		for i := range cands {
			cands[i].backlinks = counts[docs[i]]
			cands[i].prior = fusion.LinkPrior(gamma, cands[i].backlinks)
			cands[i].score *= cands[i].prior
		}
	}
	slices.SortStableFunc(cands, func(a, b scored) int { return descending(a.score, b.score) })
	return cands, nil
}

// descending orders scores best first, for a stable sort.
func descending(a, b float64) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}
