package rank

import (
	"context"
	"slices"

	"github.com/braidsearch/braid/chunk"
	"github.com/braidsearch/braid/fusion"
	"github.com/braidsearch/braid/lexical"
	"github.com/braidsearch/braid/rerank"
	"github.com/braidsearch/braid/settings"
)

// Candidate is a chunk ranked by one retriever or by fusion, with what
// each retriever and each later stage said about it.
type Candidate struct {
	ChunkID         string
	Score           float64       // its score now: fused, then with signals
	Lexical, Vector fusion.Part   // Rank 0: not in that retriever's list
	BM25            *lexical.BM25 // the BM25 score by term, with Explain
	FieldBonus      float64       // what the title and headings added to BM25, with Explain
	Terms           []string      // index terms a fuzzy match hit

	Fused     float64 // the score fusion gave, before signals
	DocBonus  float64 // what document evidence added
	Backlinks int     // documents linking to its document, with the link prior
	Prior     float64 // the factor the link prior multiplied by (0: not applied)

	Guarded bool // moved up by the adaptive weighting's guard (Weighting.Guard)

	Reranked bool    // the cross-encoder scored it
	Rerank   float64 // its score
	Before   int     // 1-based rank before reranking
}

// Fuse combines the two candidate lists at vector weight w: at 0 it ranks
// the lexical list by plain BM25 (fusion.Lexical); otherwise by weighted
// RRF (k = 60) when how is settings.FusionRRF, else linearly
// (fusion.Linear) with norm's normalisation, min-max unless it is
// settings.NormZScore.
func Fuse(lex []lexical.Candidate, vec []fusion.Candidate, w float64, how settings.Fusion, norm settings.Normalization) []Candidate {
	lexF := make([]fusion.Candidate, len(lex))
	byID := make(map[string]lexical.Candidate, len(lex))
	for i, c := range lex {
		lexF[i] = fusion.Candidate{ID: c.ChunkID, Score: c.Score}
		byID[c.ChunkID] = c
	}
	var fused []fusion.Hit
	switch {
	case w == 0:
		fused = fusion.Lexical(lexF)
	case how == settings.FusionRRF:
		fused = fusion.RRF(lexF, vec, w, 60)
	case norm == settings.NormZScore:
		fused = fusion.Linear(lexF, vec, w, fusion.ZScore)
	default:
		fused = fusion.Linear(lexF, vec, w, fusion.MinMax)
	}
	out := make([]Candidate, len(fused))
	for i, h := range fused {
		c := byID[h.ID]
		out[i] = Candidate{ChunkID: h.ID, Score: h.Score, Fused: h.Score, Lexical: h.Lexical, Vector: h.Vector, BM25: c.BM25, Terms: c.Terms, FieldBonus: c.FieldBonus}
	}
	return out
}

// Matched keeps, in order, the vector candidates the lexical query
// matched too: with phrases or exclusions, which only the lexical index
// enforces. It reuses vec's array.
func Matched(vec []fusion.Candidate, lex []lexical.Candidate) []fusion.Candidate {
	inLex := make(map[string]bool, len(lex))
	for _, c := range lex {
		inLex[c.ChunkID] = true
	}
	kept := vec[:0]
	for _, c := range vec {
		if inLex[c.ID] {
			kept = append(kept, c)
		}
	}
	return kept
}

// Signals reranks fused candidates by what braid knows beyond the two
// retrievers: how much of a document matched (fusion.DocEvidence, of
// strength docEvidence), and how many documents link to it
// (fusion.LinkPrior, of strength linkPrior, the counts from backlinks,
// called only when the prior is on). nil strengths mean
// settings.DefaultDocEvidence and settings.DefaultLinkPrior. Each
// candidate keeps its fused score in Fused; its Score becomes (Fused +
// document evidence) × link prior, and the list is sorted by it, stably.
// The engine applies it where vectors take part: a keyword search stays
// plain BM25.
func Signals(ctx context.Context, cands []Candidate, docEvidence, linkPrior *float64, backlinks func(ctx context.Context, docIDs []string) (map[string]int, error)) ([]Candidate, error) {
	for i := range cands {
		cands[i].Fused = cands[i].Score
	}
	beta, gamma := settings.Or(docEvidence, settings.DefaultDocEvidence), settings.Or(linkPrior, settings.DefaultLinkPrior)
	if beta == 0 && gamma == 0 || len(cands) < 2 {
		return cands, nil
	}
	docs, fused := make([]string, len(cands)), make([]float64, len(cands))
	for i, c := range cands {
		docs[i], fused[i] = chunk.DocID(c.ChunkID), c.Fused
	}
	if beta != 0 {
		for i, bonus := range fusion.DocEvidence(docs, fused, beta) {
			cands[i].DocBonus = bonus
			cands[i].Score += bonus
		}
	}
	if gamma != 0 {
		counts, err := backlinks(ctx, docs)
		if err != nil {
			return nil, err
		}
		for i := range cands {
			cands[i].Backlinks = counts[docs[i]]
			cands[i].Prior = fusion.LinkPrior(gamma, cands[i].Backlinks)
			cands[i].Score *= cands[i].Prior
		}
	}
	slices.SortStableFunc(cands, func(a, b Candidate) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return 0
	})
	return cands, nil
}

// Reranked is the candidates' order after the cross-encoder scored some
// (rerank.Order): at[j] is the place in cands of the passage scores[j]
// scored. Those come first, best score first, marked Reranked with their
// score in Rerank; the rest follow in their order. Each candidate's
// Before is its 1-based place in cands.
func Reranked(cands []Candidate, at []int, scores []float32) []Candidate {
	for j := range at {
		cands[at[j]].Reranked, cands[at[j]].Rerank = true, float64(scores[j])
	}
	ranked := make([]Candidate, 0, len(cands))
	for _, i := range rerank.Order(len(cands), at, scores) {
		c := cands[i]
		c.Before = i + 1
		ranked = append(ranked, c)
	}
	return ranked
}

// Label names the ranking of a search at vector weight w, as a hit's
// source: "lexical", "vector" or "hybrid".
func Label(w float64) string {
	switch w {
	case 0:
		return "lexical"
	case 1:
		return "vector"
	}
	return "hybrid"
}

// Weighting is how a hybrid search's vector weight was decided: named by
// the search or the index's settings, or adaptive, from the predictors of
// the two candidate lists (fusion.Predict, fusion.Model.Weight). Why is
// the model's arithmetic: its bias and each predictor's term.
type Weighting struct {
	Weight     float64           `json:"vector_weight"`
	Adaptive   bool              `json:"adaptive"`
	Why        string            `json:"why,omitempty"`
	Predictors fusion.Predictors `json:"predictors"`
	// Guard says which list's best candidate the adaptive weighting kept
	// in the fused top, and why (fusion.Model.Guarded); empty when none.
	// Unguarded says why BM25's best was not kept (fusion.Model.Unguarded).
	Guard     string `json:"guard,omitempty"`
	Unguarded string `json:"unguarded,omitempty"`

	keepLex, keepVec string // the chunks the guard keeps, by id
	keepAt           int    // within this 1-based rank
}

// Weigh reads the predictors of the two lists and fuses d, the weight
// decided at retrieval (fusion.Choice), at its final weight: m's when
// adaptive (fusion.Decision.Fuse), else as named.
func Weigh(lex []lexical.Candidate, vec []fusion.Candidate, d fusion.Decision, m fusion.Model) *Weighting {
	lexF := make([]fusion.Candidate, len(lex))
	for i := range lexF {
		lexF[i] = fusion.Candidate{ID: lex[i].ChunkID, Score: lex[i].Score}
	}
	p := fusion.Predict(lexF, vec, chunk.DocID) // gaps and places between notes, not chunks
	d = d.Fuse(m, p)
	wt := &Weighting{Weight: d.Weight, Adaptive: d.Adaptive, Why: d.Why, Predictors: p}
	if d.Adaptive {
		lex, vec2, why := m.Guarded(wt.Predictors)
		if lex && len(lexF) > 0 {
			wt.keepLex = lexF[0].ID
		}
		if vec2 && len(vec) > 0 {
			wt.keepVec = vec[0].ID
		}
		if wt.keepLex != "" || wt.keepVec != "" {
			wt.Guard, wt.keepAt = why, m.Guard.Rank
		}
		wt.Unguarded = m.Unguarded(wt.Predictors)
	}
	return wt
}

// Keep moves the chunks the weighting's guard keeps (Weigh) up to its
// rank where the fused order put them lower, marking them Guarded; the
// rest keep their order. With no guard it returns cands as they are.
func (wt *Weighting) Keep(cands []Candidate) []Candidate {
	if wt == nil || wt.keepAt <= 0 {
		return cands
	}
	// BM25's best first, so that where both lists' bests are kept it
	// ends up above the vectors'.
	for _, id := range []string{wt.keepVec, wt.keepLex} {
		if id == "" {
			continue
		}
		i := slices.IndexFunc(cands, func(c Candidate) bool { return c.ChunkID == id })
		to := min(wt.keepAt, len(cands)) - 1
		if i <= to {
			continue // already there, or not a candidate
		}
		c := cands[i]
		c.Guarded = true
		copy(cands[to+1:i+1], cands[to:i])
		cands[to] = c
	}
	return cands
}
