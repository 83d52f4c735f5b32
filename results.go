package braid

import (
	"time"

	"github.com/braidsearch/braid/rank"
	"github.com/braidsearch/braid/snippet"
)

// Range is a half-open byte range [Start, End) in a snippet.
type Range = snippet.Range

// Marked is the words of the hit's snippet that its highlights mark, as
// Notes().Excerpt takes them.
func (h Hit) Marked() []string {
	var words []string
	for _, r := range h.Highlights {
		if r.Start >= 0 && r.Start < r.End && r.End <= len(h.Snippet) {
			words = append(words, h.Snippet[r.Start:r.End])
		}
	}
	return words
}

// Hit is one search result.
type Hit struct {
	ID          string       `json:"id"` // document id
	ChunkID     string       `json:"chunk_id"`
	Path        string       `json:"path"`           // relative to its source; in a PDF with the page: "paper.pdf#page=7"
	Page        int          `json:"page,omitempty"` // the page of a PDF the chunk is on
	Title       string       `json:"title"`
	Score       float64      `json:"score"`
	Snippet     string       `json:"snippet"`
	Highlights  []Range      `json:"highlights"`
	Line        Lines        `json:"line"`
	Source      string       `json:"source"` // how it ranked: "lexical", "vector" or "hybrid" (rank.Label), with "+rerank" when the cross-encoder scored it; "hash" for a lookup
	SourceID    string       `json:"source_id"`
	HeadingPath []string     `json:"heading_path,omitempty"`
	Explain     *Explanation `json:"explain,omitempty"`
}

// Explanation breaks a hit's score down (rank.Explanation).
type Explanation = rank.Explanation

// Weighting is how a search's vector weight was decided (rank.Weighting).
type Weighting = rank.Weighting

// Results is a search's answer.
type Results struct {
	Results []Hit `json:"results"`
	// Total is how many chunks matched: BM25's matches, and where vectors
	// take part at least the chunks fused from both lists; never fewer
	// than the hits shown.
	Total  int     `json:"total"`
	TookMS float64 `json:"took_ms"`
	// Warning says when the search could not do what was asked, such as a
	// vector weight without an embedding model (it then ran BM25 only).
	// That no cross-encoder is loaded is said once per Engine, in the first
	// search that would have reranked; Capabilities says it at any time.
	Warning string `json:"warning,omitempty"`
	// Reranked is how many of the best RerankOf candidates the cross-encoder
	// read; fewer than RerankOf when the time budget ran out.
	Reranked int `json:"reranked"`
	RerankOf int `json:"rerank_of"`
	// Timings says where the time went.
	Timings Timings `json:"timings"`
	// Weighting is how a hybrid search's vector weight was decided, with
	// the predictors of its two lists; nil for a lexical search.
	Weighting *Weighting `json:"weighting,omitempty"`
	// Lookup is "hash" when the search was answered by content hash
	// (SearchOptions.Hash, or a query that is one) rather than ranked.
	Lookup string `json:"lookup,omitempty"`
}

// Timings is where a search spent its time, in milliseconds; a stage the
// search skipped is zero. TookMS also counts parsing and the loops that
// fetch more lexical candidates, so it can exceed the sum.
type Timings struct {
	Lexical float64 `json:"lexical_ms"` // BM25 candidates
	Embed   float64 `json:"embed_ms"`   // tokenizing and embedding the query
	Vector  float64 `json:"vector_ms"`  // HNSW neighbours and filters
	Fusion  float64 `json:"fusion_ms"`
	Rerank  float64 `json:"rerank_ms"`
	Hydrate float64 `json:"hydrate_ms"` // documents, snippets and highlights
}

// msSince is the time since t in milliseconds.
func msSince(t time.Time) float64 { return float64(time.Since(t).Nanoseconds()) / 1e6 }
