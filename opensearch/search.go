package opensearch

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"github.com/opensearch-project/opensearch-go/v4/opensearchapi"
)

// Filter restricts a search to some chunks; OpenSearch applies it while
// searching (for Vector, inside the k-NN search, so k hits come back even
// when few chunks pass). The zero Filter passes every chunk.
type Filter struct {
	Sources []string // chunks from any of these sources
	DocIDs  []string // chunks of any of these documents
	Tags    []string // chunks whose document has all of these tags
	// PathRegexp keeps chunks whose whole path matches this Lucene regular
	// expression (OpenSearch's regexp query: anchored at both ends, no ^
	// or $, not Go's syntax), e.g. `notes/.*\.md`.
	PathRegexp string
}

// clauses is f as bool filter clauses.
func (f Filter) clauses() []any {
	var c []any
	if len(f.Sources) > 0 {
		c = append(c, map[string]any{"terms": map[string]any{fieldSource: f.Sources}})
	}
	if len(f.DocIDs) > 0 {
		c = append(c, map[string]any{"terms": map[string]any{fieldDoc: f.DocIDs}})
	}
	for _, t := range f.Tags {
		c = append(c, map[string]any{"term": map[string]any{fieldTags: t}})
	}
	if f.PathRegexp != "" {
		c = append(c, map[string]any{"regexp": map[string]any{fieldPath: map[string]any{"value": f.PathRegexp}}})
	}
	return c
}

// Hit is a chunk found by Lexical or Vector.
type Hit struct {
	ChunkID string
	DocID   string
	// Score is BM25 for Lexical and the cosine similarity (-1..1) for
	// Vector.
	Score float64
}

// Lexical returns up to k chunks matching text by BM25, best first (ties
// by chunk ID): a match on content, title (boost 1.0) or headings (boost
// 0.3), the same weights as the embedded index. Empty text or k <= 0 gives
// no hits.
func (x *Index) Lexical(ctx context.Context, text string, f Filter, k int) ([]Hit, error) {
	if text == "" || k <= 0 {
		return nil, nil
	}
	match := func(field string, boost float64) any {
		return map[string]any{"match": map[string]any{field: map[string]any{"query": text, "boost": boost}}}
	}
	boolq := map[string]any{
		"should":               []any{match(fieldContent, 1), match(fieldTitle, titleBoost), match(fieldHeadings, headingBoost)},
		"minimum_should_match": 1,
	}
	if c := f.clauses(); len(c) > 0 {
		boolq["filter"] = c
	}
	hits, err := x.search(ctx, "lexical search", map[string]any{"bool": boolq}, k)
	if err != nil {
		return nil, err
	}
	return hits, nil
}

// Vector returns up to k chunks nearest vec by cosine similarity, best
// first (ties by chunk ID), searching the Lucene HNSW graph with the
// filter applied during the search. vec must have Options.Dim values.
func (x *Index) Vector(ctx context.Context, vec []float32, f Filter, k int) ([]Hit, error) {
	switch {
	case x.dim == 0:
		return nil, fmt.Errorf("opensearch: vector search in %s: the index has no vectors (Options.Dim 0)", x.name)
	case len(vec) != x.dim:
		return nil, fmt.Errorf("opensearch: vector search in %s: query has %d dimensions, want %d", x.name, len(vec), x.dim)
	case k <= 0:
		return nil, nil
	}
	var norm float64
	for i, v := range vec {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return nil, fmt.Errorf("opensearch: vector search in %s: query[%d] is %v, want a finite number", x.name, i, v)
		}
		norm += float64(v) * float64(v)
	}
	if norm == 0 {
		return nil, fmt.Errorf("opensearch: vector search in %s: the query vector is all zeros, which has no cosine similarity", x.name)
	}
	knn := map[string]any{"vector": vec, "k": k}
	if c := f.clauses(); len(c) > 0 {
		knn["filter"] = map[string]any{"bool": map[string]any{"filter": c}}
	}
	hits, err := x.search(ctx, "vector search", map[string]any{"knn": map[string]any{fieldVector: knn}}, k)
	if err != nil {
		return nil, err
	}
	// The Lucene engine scores cosinesimil as (1 + cos) / 2.
	for i := range hits {
		hits[i].Score = 2*hits[i].Score - 1
	}
	return hits, nil
}

// search runs query on the chunk index and returns its top k hits.
func (x *Index) search(ctx context.Context, what string, query map[string]any, k int) ([]Hit, error) {
	body, err := json.Marshal(map[string]any{
		"size":             k,
		"query":            query,
		"_source":          []string{fieldDoc},
		"track_total_hits": false,
	})
	if err != nil {
		return nil, fmt.Errorf("opensearch: %s: encode query: %w", what, err)
	}
	ctx, cancel := x.bound(ctx)
	defer cancel()
	resp, err := x.client.Search(ctx, &opensearchapi.SearchReq{Indices: []string{x.name}, Body: bytes.NewReader(body)})
	if err != nil {
		return nil, fmt.Errorf("opensearch: %s in %s: %w", what, x.name, x.explain(err))
	}
	if n := resp.Shards.Failed; n > 0 {
		reason := ""
		if len(resp.Shards.Failures) > 0 {
			r := resp.Shards.Failures[0].Reason
			reason = ": " + r.Type + ": " + r.Reason
		}
		return nil, fmt.Errorf("opensearch: %s in %s: %d of %d shards failed%s", what, x.name, n, resp.Shards.Total, reason)
	}
	hits := make([]Hit, 0, len(resp.Hits.Hits))
	for _, h := range resp.Hits.Hits {
		var src struct {
			Doc string `json:"doc"`
		}
		if len(h.Source) > 0 {
			if err := json.Unmarshal(h.Source, &src); err != nil {
				return nil, fmt.Errorf("opensearch: %s in %s: chunk %s: %w", what, x.name, h.ID, err)
			}
		}
		hits = append(hits, Hit{ChunkID: h.ID, DocID: src.Doc, Score: float64(h.Score)})
	}
	slices.SortStableFunc(hits, func(a, b Hit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.ChunkID, b.ChunkID)
	})
	return hits, nil
}
