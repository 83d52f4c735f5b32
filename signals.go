package braid

import (
	"context"
	"math"
	"slices"

	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/settings"
)

// Built-in strengths of the ranking signals beyond BM25 and vectors (see
// SearchOptions.DocEvidence and LinkPrior; settings.DefaultDocEvidence
// says how they were chosen): document evidence on, the link prior off
// unless an index's settings (braid tune) turn it on.
const (
	DefaultDocEvidence = settings.DefaultDocEvidence
	DefaultLinkPrior   = settings.DefaultLinkPrior
)

// signals reranks fused candidates by what braid knows beyond the two
// retrievers: how much of a document matched, and how many notes link to
// it. A keyword search (vector weight 0) stays plain BM25. Each chunk keeps its fused score in fused; its score becomes
// (fused + document evidence) × link prior.
func (e *Engine) signals(ctx context.Context, cands []scored, opt SearchOptions) ([]scored, error) {
	for i := range cands {
		cands[i].fused = cands[i].score
	}
	beta, gamma := DefaultDocEvidence, DefaultLinkPrior
	if opt.DocEvidence != nil {
		beta = *opt.DocEvidence
	}
	if opt.LinkPrior != nil {
		gamma = *opt.LinkPrior
	}
	if beta == 0 && gamma == 0 || len(cands) < 2 {
		return cands, nil
	}
	docEvidence(cands, beta)
	if err := e.linkPrior(ctx, cands, gamma); err != nil {
		return nil, err
	}
	slices.SortStableFunc(cands, func(a, b scored) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return 0
	})
	return cands, nil
}

// docEvidence adds to each chunk's score beta times the scores of the
// best two other chunks of its document in the list (a note that matches
// in several places outranks one lucky paragraph).
func docEvidence(cands []scored, beta float64) {
	if beta == 0 {
		return
	}
	byDoc := map[string][]int{} // document → its chunks' places, best first
	for i, c := range cands {
		d := index.ChunkDocID(c.chunkID)
		byDoc[d] = append(byDoc[d], i)
	}
	for i := range cands {
		extra, n := 0.0, 0
		for _, j := range byDoc[index.ChunkDocID(cands[i].chunkID)] {
			if j == i {
				continue
			}
			if n == 2 {
				break
			}
			extra += cands[j].fused
			n++
		}
		cands[i].docBonus = beta * extra
		cands[i].score += cands[i].docBonus
	}
}

// linkPrior multiplies each chunk's score by 1 + gamma·ln(1 + the number
// of documents that link to its document).
func (e *Engine) linkPrior(ctx context.Context, cands []scored, gamma float64) error {
	if gamma == 0 {
		return nil
	}
	ids := make([]string, 0, len(cands))
	for _, c := range cands {
		ids = append(ids, index.ChunkDocID(c.chunkID))
	}
	counts, err := e.ret.Backlinks(ctx, ids)
	if err != nil {
		return err
	}
	for i := range cands {
		n := counts[index.ChunkDocID(cands[i].chunkID)]
		cands[i].backlinks = n
		cands[i].prior = 1 + gamma*math.Log1p(float64(n))
		cands[i].score *= cands[i].prior
	}
	return nil
}
