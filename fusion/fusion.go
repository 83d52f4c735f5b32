// Package fusion combines ranked candidate lists from several retrievers
// into one ranking under a vector weight w: 0 is the lexical list alone, 1
// the vector list alone.
//
// Linear fusion normalises each list's scores (min-max or z-score) and
// mixes them, w·vector + (1−w)·lexical. RRF (reciprocal rank fusion) uses
// ranks only: (1−w)/(k+rank_lexical) + w/(k+rank_vector). A candidate
// missing from one list takes nothing from it under RRF, and under linear
// fusion that list's lowest normalised score or 0, whichever is lower: it
// ranked below everything the retriever returned (a one-item min-max list
// scores its item 1 and everything missing 0).
//
// Lexical is the BM25 list alone, for a keyword search. DocEvidence and
// LinkPrior are the arithmetic of the ranking signals the engine applies
// after fusion: a document's evidence across its matching chunks, and a
// small prior for notes many others link to.
package fusion

import (
	"math"
	"slices"
	"strings"
)

// Candidate is one retriever's scored item, best first in its list.
type Candidate struct {
	ID    string
	Score float64
}

// Part is what one retriever said about a fused hit. Rank is 1-based; 0
// means the item was not in that retriever's list.
type Part struct {
	Rank int
	Raw  float64 // the retriever's own score
	Norm float64 // the score as fusion used it
}

// Hit is a fused item.
type Hit struct {
	ID      string
	Score   float64
	Lexical Part
	Vector  Part
}

// Normalizer maps a list's scores onto a common scale, in order.
type Normalizer func(scores []float64) []float64

// MinMax maps scores linearly onto [0, 1], the best to 1. A list whose
// scores are all equal maps to all 1.
func MinMax(scores []float64) []float64 {
	out := make([]float64, len(scores))
	if len(scores) == 0 {
		return out
	}
	lo, hi := slices.Min(scores), slices.Max(scores)
	for i, s := range scores {
		if hi > lo {
			out[i] = (s - lo) / (hi - lo)
		} else {
			out[i] = 1
		}
	}
	return out
}

// ZScore maps scores to standard scores (mean 0, standard deviation 1). A
// list whose scores are all equal maps to all 0.
func ZScore(scores []float64) []float64 {
	out := make([]float64, len(scores))
	if len(scores) == 0 {
		return out
	}
	mean := 0.0
	for _, s := range scores {
		mean += s
	}
	mean /= float64(len(scores))
	v := 0.0
	for _, s := range scores {
		v += (s - mean) * (s - mean)
	}
	sd := math.Sqrt(v / float64(len(scores)))
	for i, s := range scores {
		if sd > 0 {
			out[i] = (s - mean) / sd
		}
	}
	return out
}

// Linear fuses by normalised score: w·vector + (1−w)·lexical. With w = 0
// the vector list is ignored and with w = 1 the lexical one.
func Linear(lexical, vector []Candidate, w float64, norm Normalizer) []Hit {
	if norm == nil {
		norm = MinMax
	}
	lexical, vector = weighed(lexical, vector, w)
	hits, at := union(lexical, vector)
	fill := func(list []Candidate, weight float64, part func(*Hit) *Part) {
		if len(list) == 0 {
			return
		}
		scores := make([]float64, len(list))
		for i, c := range list {
			scores[i] = c.Score
		}
		n := norm(scores)
		floor := min(0, slices.Min(n))
		for i := range hits {
			hits[i].Score += weight * floor // overwritten below for members
		}
		for i, c := range list {
			h := &hits[at[c.ID]]
			if p := part(h); p.Rank == 0 {
				*p = Part{Rank: i + 1, Raw: c.Score, Norm: n[i]}
				h.Score += weight * (n[i] - floor)
			}
		}
	}
	fill(lexical, 1-w, func(h *Hit) *Part { return &h.Lexical })
	fill(vector, w, func(h *Hit) *Part { return &h.Vector })
	sortHits(hits)
	return hits
}

// RRF fuses by rank: (1−w)/(k+rank_lexical) + w/(k+rank_vector), a list
// counting nothing for items it does not hold. k ≤ 0 means 60.
func RRF(lexical, vector []Candidate, w float64, k int) []Hit {
	if k <= 0 {
		k = 60
	}
	lexical, vector = weighed(lexical, vector, w)
	hits, at := union(lexical, vector)
	fill := func(list []Candidate, weight float64, part func(*Hit) *Part) {
		for i, c := range list {
			h := &hits[at[c.ID]]
			if p := part(h); p.Rank == 0 {
				r := 1 / float64(k+i+1)
				*p = Part{Rank: i + 1, Raw: c.Score, Norm: r}
				h.Score += weight * r
			}
		}
	}
	fill(lexical, 1-w, func(h *Hit) *Part { return &h.Lexical })
	fill(vector, w, func(h *Hit) *Part { return &h.Vector })
	sortHits(hits)
	return hits
}

// weighed drops the list a weight of 0 or 1 leaves out.
func weighed(lexical, vector []Candidate, w float64) ([]Candidate, []Candidate) {
	if w <= 0 {
		vector = nil
	}
	if w >= 1 {
		lexical = nil
	}
	return lexical, vector
}

// union lists each id once, in first-seen order, with its position.
func union(lists ...[]Candidate) ([]Hit, map[string]int) {
	at := map[string]int{}
	var hits []Hit
	for _, list := range lists {
		for _, c := range list {
			if _, ok := at[c.ID]; !ok {
				at[c.ID] = len(hits)
				hits = append(hits, Hit{ID: c.ID})
			}
		}
	}
	return hits, at
}

// sortHits orders best first, ties by id so a ranking is reproducible.
func sortHits(hits []Hit) {
	slices.SortStableFunc(hits, func(a, b Hit) int {
		if a.Score != b.Score {
			if a.Score > b.Score {
				return -1
			}
			return 1
		}
		return strings.Compare(a.ID, b.ID)
	})
}

// Lexical ranks the lexical list alone, as it comes (best first): each
// hit keeps its raw score, and its Lexical part is normalised by the best
// score (score / best; 0 when the best is not above 0), so a keyword
// search ranks by plain BM25.
func Lexical(lexical []Candidate) []Hit {
	best := 0.0
	if len(lexical) > 0 {
		best = lexical[0].Score
	}
	out := make([]Hit, len(lexical))
	for i, c := range lexical {
		norm := 0.0
		if best > 0 {
			norm = c.Score / best
		}
		out[i] = Hit{ID: c.ID, Score: c.Score, Lexical: Part{Rank: i + 1, Raw: c.Score, Norm: norm}}
	}
	return out
}
