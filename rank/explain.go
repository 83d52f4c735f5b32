package rank

import (
	"fmt"

	"github.com/braidsearch/braid/chunk"
	"github.com/braidsearch/braid/lexical"
	"github.com/braidsearch/braid/settings"
)

// Explanation breaks a hit's score down. A rank of 0 means the chunk was
// not in that retriever's candidates.
type Explanation struct {
	LexicalScore float64 `json:"lexical_score"` // raw BM25 (bleve)
	// FieldBonus is the part of LexicalScore a query word found again in
	// the title or headings added (SearchOptions.TitleWeight and
	// HeadingWeight).
	FieldBonus   float64 `json:"field_bonus,omitempty"`
	LexicalRank  int     `json:"lexical_rank"` // 1-based rank among the lexical candidates
	LexicalNorm  float64 `json:"lexical_norm"` // normalised BM25 as fused (lexical only: BM25 / best BM25)
	VectorScore  float64 `json:"vector_score"` // cosine similarity to the query embedding
	VectorRank   int     `json:"vector_rank"`
	VectorNorm   float64 `json:"vector_norm"`
	VectorWeight float64 `json:"vector_weight"`
	Fusion       string  `json:"fusion,omitempty"` // linear or rrf; empty for lexical only
	Fused        float64 `json:"fused"`
	// Weighting is how the search's vector weight was decided (adaptive
	// from the lists' predictors, or named); nil for a lexical search.
	Weighting *Weighting `json:"weighting,omitempty"`
	// Score is the score before reranking: (Fused + DocEvidence) ×
	// LinkPrior, what the hit ranked by unless Reranked.
	Score float64 `json:"score"`
	// DocEvidence is what the document's other matching chunks added to
	// Fused (SearchOptions.DocEvidence); LinkPrior the factor the score
	// was then multiplied by for Backlinks documents linking here (absent
	// when the prior is off). Score before reranking: (Fused +
	// DocEvidence) × LinkPrior.
	DocEvidence float64 `json:"doc_evidence,omitempty"`
	// NoQueryInstruction says the query was embedded without the model's
	// retrieval instruction (SearchOptions.QueryInstruction).
	NoQueryInstruction bool    `json:"no_query_instruction,omitempty"`
	LinkPrior          float64 `json:"link_prior,omitempty"`
	Backlinks          int     `json:"backlinks,omitempty"`
	// Reranked says the cross-encoder read this hit: RerankScore is its
	// logit (the hit's score), RankBefore and RankAfter its chunk's place
	// among the candidates before and after reranking.
	// Guarded says the adaptive weighting's guard moved this hit up
	// (Weighting.Guard says why): it ranks above hits of higher score.
	Guarded     bool    `json:"guarded,omitempty"`
	Reranked    bool    `json:"reranked"`
	RerankScore float64 `json:"rerank_score,omitempty"`
	RankBefore  int     `json:"rank_before,omitempty"`
	RankAfter   int     `json:"rank_after,omitempty"`
	// BM25 breaks LexicalScore down by the terms matched (lexical.BM25);
	// absent when the chunk was not a lexical candidate, and on a cluster.
	BM25 *lexical.BM25 `json:"bm25,omitempty"`
	// First says, on the first hit only, why it is first (First).
	First string `json:"first,omitempty"`
	// RerankSlow says, on the first hit only, that the cross-encoder took
	// longer than its 50 ms target in this search, and names the registry
	// reranker predicted to keep it.
	RerankSlow string `json:"rerank_slow,omitempty"`
}

// Explain breaks c's score down, for a search at vector weight w fused by
// how (settings.FusionLinear when empty); noInstruction says the query
// was embedded without the model's retrieval instruction, and rank is
// c's 1-based place in the final order.
func (c Candidate) Explain(w float64, how settings.Fusion, noInstruction bool, rank int, wt *Weighting) *Explanation {
	x := &Explanation{
		LexicalScore: c.Lexical.Raw, LexicalRank: c.Lexical.Rank, LexicalNorm: c.Lexical.Norm,
		VectorScore: c.Vector.Raw, VectorRank: c.Vector.Rank, VectorNorm: c.Vector.Norm,
		VectorWeight: w, Fused: c.Fused, Score: c.Score, Weighting: wt, BM25: c.BM25, FieldBonus: c.FieldBonus,
		DocEvidence: c.DocBonus, Backlinks: c.Backlinks, LinkPrior: c.Prior,
		NoQueryInstruction: w > 0 && noInstruction, Guarded: c.Guarded,
	}
	if w > 0 {
		x.Fusion = string(settings.FusionLinear)
		if how != "" {
			x.Fusion = string(how)
		}
	}
	if c.Reranked {
		x.Reranked, x.RerankScore = true, c.Rerank
		x.RankBefore, x.RankAfter = c.Before, rank
	}
	return x
}

// String is the breakdown on one line, as braid search --explain prints
// it: BM25 (raw, rank, normalised), then the vector side and the fusion
// when the search had one (how the weight was chosen), the signals that
// added to the fused score, adding up to the score the hit ranked by,
// then the reranker's score and move.
func (x *Explanation) String() string {
	rank := func(r int) string {
		if r == 0 {
			return "not in list"
		}
		return fmt.Sprintf("rank %d", r)
	}
	lex := fmt.Sprintf("bm25 %.4f (%s, normalised %.3f)", x.LexicalScore, rank(x.LexicalRank), x.LexicalNorm)
	if x.FieldBonus > 0 {
		lex = fmt.Sprintf("bm25 %.4f (%.4f of it from the title and headings; %s, normalised %.3f)", x.LexicalScore, x.FieldBonus, rank(x.LexicalRank), x.LexicalNorm)
	}
	line := fmt.Sprintf("%s, vector_weight %.2f, score %.4f", lex, x.VectorWeight, x.Fused)
	if x.Fusion != "" {
		w := fmt.Sprintf("w %.2f", x.VectorWeight)
		switch {
		case x.Weighting != nil && x.Weighting.Adaptive:
			w = fmt.Sprintf("w %.2f adaptive [%s]", x.VectorWeight, x.Weighting.Why)
		case x.Weighting != nil && x.Weighting.Why != "":
			w = fmt.Sprintf("w %.2f (%s)", x.VectorWeight, x.Weighting.Why)
		}
		line = fmt.Sprintf("%s; cosine %.4f (%s, normalised %.3f); %s, %s fused %.4f",
			lex, x.VectorScore, rank(x.VectorRank), x.VectorNorm, w, x.Fusion, x.Fused)
		switch {
		case x.LinkPrior != 0:
			line += fmt.Sprintf(" + doc_evidence %.4f, x link_prior %.4f (%d backlinks) = score %.4f", x.DocEvidence, x.LinkPrior, x.Backlinks, x.Score)
		case x.DocEvidence != 0:
			line += fmt.Sprintf(" + doc_evidence %.4f = score %.4f", x.DocEvidence, x.Score)
		}
	}
	if x.Guarded && x.Weighting != nil && x.First == "" { // First says it on the first hit
		line += "; kept up by the guard: " + x.Weighting.Guard
	}
	if x.Reranked {
		line += fmt.Sprintf("; rerank %.4f (rank %d -> %d)", x.RerankScore, x.RankBefore, x.RankAfter)
	}
	if x.First != "" {
		line += "; first: " + x.First
	}
	if x.RerankSlow != "" {
		line += "; " + x.RerankSlow
	}
	return line
}

// First says why cands[0], a search's first hit, is first, against the
// next hit (the next candidate of another document, or the next
// candidate when chunks): the guard kept it there, the cross-encoder
// scored it highest, or its score is the higher; where it is not BM25's
// best, also why the guard did not keep BM25's (wt, nil for a search
// without both lists).
func First(cands []Candidate, wt *Weighting, chunks bool) string {
	if len(cands) == 0 {
		return ""
	}
	c := cands[0]
	var next *Candidate
	for i := 1; i < len(cands) && next == nil; i++ {
		if chunks || chunk.DocID(cands[i].ChunkID) != chunk.DocID(c.ChunkID) {
			next = &cands[i]
		}
	}
	var why string
	switch {
	case c.Guarded && wt != nil:
		return "the guard: " + wt.Guard
	case c.Reranked && next != nil && next.Reranked:
		why = fmt.Sprintf("the cross-encoder scored it %.4f, the next hit %.4f", c.Rerank, next.Rerank)
	case c.Reranked:
		why = fmt.Sprintf("the cross-encoder scored it %.4f, the best it read", c.Rerank)
	case next == nil:
		why = "the only hit"
	default:
		why = fmt.Sprintf("score %.4f above the next hit's %.4f", c.Score, next.Score)
	}
	if wt != nil && wt.Unguarded != "" && c.Lexical.Rank != 1 {
		why += "; BM25's best not kept first: " + wt.Unguarded
	}
	return why
}
