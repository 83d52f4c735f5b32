package opensearch

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf16"

	"github.com/opensearch-project/opensearch-go/v4/opensearchapi"
)

// ErrEmptyQuery is wrapped by Lexical when the query has no terms and no
// phrases: there is nothing to score chunks by.
var ErrEmptyQuery = errors.New("opensearch: empty query")

// Filter restricts a search to some chunks; OpenSearch applies it while
// searching (for Vector, inside the k-NN search, so k hits come back even
// when few chunks pass). The zero Filter passes every chunk; every field
// set must pass.
type Filter struct {
	Sources []string // chunks from any of these sources
	DocIDs  []string // chunks of any of these documents
	Tags    []string // chunks whose document has all of these tags
	// PathGlob keeps chunks whose path matches this glob, with the
	// embedded index's meaning (index.Matcher): ** across directories, *
	// and ? within one, [...] a class ([!...] negated), and a glob with no
	// slash matches the base name at any depth.
	PathGlob string
	// PathRegexp keeps chunks whose whole path matches this Lucene regular
	// expression (OpenSearch's regexp query: anchored at both ends, no ^
	// or $, not Go's syntax), e.g. `notes/.*\.md`.
	PathRegexp string
}

// clauses is f as bool filter clauses.
func (f Filter) clauses() ([]any, error) {
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
	if f.PathGlob != "" {
		re, err := globRegexp(f.PathGlob)
		if err != nil {
			return nil, err
		}
		// No optional operators: every character the glob needs taken
		// literally is escaped anyway, and this rules out surprises.
		c = append(c, map[string]any{"regexp": map[string]any{fieldPath: map[string]any{"value": re, "flags": "NONE"}}})
	}
	if f.PathRegexp != "" {
		c = append(c, map[string]any{"regexp": map[string]any{fieldPath: map[string]any{"value": f.PathRegexp}}})
	}
	return c, nil
}

// Hit is a chunk found by Lexical or Vector.
type Hit struct {
	ChunkID string
	DocID   string
	// Score is BM25 for Lexical and the cosine similarity (-1..1) for
	// Vector.
	Score float64
	// Terms are the indexed terms the chunk's content matched, for
	// highlighting what a fuzzy match hit. Lexical fills them in only
	// when LexQuery.Fuzziness > 0 (otherwise the query's own terms are
	// what matched); nil otherwise and for Vector.
	Terms []string
	// FieldBonus is the part of a Lexical hit's Score its title and
	// headings matches added (LexQuery.TitleWeight, HeadingWeight).
	FieldBonus float64
}

func nonBlank(s []string) []string {
	var out []string
	for _, v := range s {
		if strings.TrimSpace(v) != "" {
			out = append(out, v)
		}
	}
	return out
}

// Marks around the words the highlighter found in content: private-use
// characters, which no analyzer makes part of a term.
const (
	markStart = "\ue000"
	markEnd   = "\ue001"
)

// matchedTerms sets each hit's Terms from the words marked in resp's
// highlights of content (hits is in resp's order): the marked words are
// analyzed as content is, in one request for all hits.
func (x *Index) matchedTerms(ctx context.Context, highlights []map[string][]string, hits []Hit) error {
	var (
		text   strings.Builder
		size   int                // of text, in UTF-16 code units
		starts []int              // UTF-16 offset in text of each distinct word
		word   = map[string]int{} // word -> its index in starts
		of     = make([][]int, len(hits))
	)
	for i, h := range highlights {
		for _, frag := range h[fieldContent] {
			for _, part := range strings.Split(frag, markStart)[1:] {
				w, _, ok := strings.Cut(part, markEnd)
				if !ok || w == "" {
					continue
				}
				n, seen := word[w]
				if !seen {
					n = len(starts)
					word[w] = n
					starts = append(starts, size)
					text.WriteString(w)
					text.WriteByte('\n')
					size += utf16Len(w) + 1
				}
				of[i] = append(of[i], n)
			}
		}
	}
	if len(starts) == 0 {
		return nil
	}
	ctx, cancel := x.bound(ctx)
	defer cancel()
	an, err := x.client.Indices.Analyze(ctx, opensearchapi.IndicesAnalyzeReq{
		Index: x.name,
		Body:  opensearchapi.IndicesAnalyzeBody{Analyzer: analyzer, Text: []string{text.String()}},
	})
	if err != nil {
		return fmt.Errorf("opensearch: lexical search in %s: analyze the matched words: %w", x.name, x.explain(err))
	}
	termsOf := make([][]string, len(starts))
	for _, t := range an.Tokens {
		n, _ := slices.BinarySearch(starts, t.StartOffset+1)
		if n > 0 {
			termsOf[n-1] = append(termsOf[n-1], t.Token)
		}
	}
	for i, ws := range of {
		for _, n := range ws {
			for _, t := range termsOf[n] {
				if !slices.Contains(hits[i].Terms, t) {
					hits[i].Terms = append(hits[i].Terms, t)
				}
			}
		}
	}
	return nil
}

// utf16Len is the length of s in UTF-16 code units, the unit of
// OpenSearch's offsets.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
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
	c, err := f.clauses()
	if err != nil {
		return nil, err
	}
	if len(c) > 0 {
		knn["filter"] = map[string]any{"bool": map[string]any{"filter": c}}
	}
	resp, err := x.query(ctx, "vector search", x.name, map[string]any{
		"size":             k,
		"query":            map[string]any{"knn": map[string]any{fieldVector: knn}},
		"_source":          false, // reading it would load the vector too
		"docvalue_fields":  []string{fieldDoc},
		"track_total_hits": false,
	})
	if err != nil {
		return nil, err
	}
	hits, err := x.hits(resp, "vector search")
	if err != nil {
		return nil, err
	}
	// The Lucene engine scores cosinesimil as (1 + cos) / 2.
	for i := range hits {
		hits[i].Score = 2*hits[i].Score - 1
	}
	sortHits(hits)
	return hits, nil
}

// query runs the search body on index and checks that every shard
// answered; what says what the search was for, in errors.
func (x *Index) query(ctx context.Context, what, index string, body map[string]any) (*opensearchapi.SearchResp, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("opensearch: %s: encode query: %w", what, err)
	}
	ctx, cancel := x.bound(ctx)
	defer cancel()
	resp, err := x.client.Search(ctx, &opensearchapi.SearchReq{Indices: []string{index}, Body: bytes.NewReader(b)})
	if err != nil {
		return nil, fmt.Errorf("opensearch: %s in %s: %w", what, index, x.explain(err))
	}
	if n := resp.Shards.Failed; n > 0 {
		reason := ""
		if len(resp.Shards.Failures) > 0 {
			r := resp.Shards.Failures[0].Reason
			reason = ": " + r.Type + ": " + r.Reason
		}
		return nil, fmt.Errorf("opensearch: %s in %s: %d of %d shards failed%s", what, index, n, resp.Shards.Total, reason)
	}
	return resp, nil
}

// pages runs q (which names its "size" and "sort") on index a page at a
// time, each after the last hit of the one before (search_after), and
// hands each page's hits to fn; it stops after a page shorter than size.
// Each request has its own time bound.
func (x *Index) pages(ctx context.Context, what, index string, q map[string]any, fn func(hits []opensearchapi.SearchHit) error) error {
	size, _ := q["size"].(int)
	for {
		resp, err := x.query(ctx, what, index, q)
		if err != nil {
			return err
		}
		hits := resp.Hits.Hits
		if err := fn(hits); err != nil {
			return err
		}
		if len(hits) < size {
			return nil
		}
		after := hits[len(hits)-1].Sort
		if len(after) == 0 {
			return fmt.Errorf("opensearch: %s in %s: OpenSearch returned no sort values to page on", what, index)
		}
		q["search_after"] = after
	}
}

// hits are resp's hits, in its order, with the doc of each _source.
func (x *Index) hits(resp *opensearchapi.SearchResp, what string) ([]Hit, error) {
	hits := make([]Hit, 0, len(resp.Hits.Hits))
	for _, h := range resp.Hits.Hits {
		var f docField
		if len(h.Fields) > 0 {
			if err := json.Unmarshal(h.Fields, &f); err != nil {
				return nil, fmt.Errorf("opensearch: %s in %s: chunk %s: %w", what, x.name, h.ID, err)
			}
		}
		hits = append(hits, Hit{ChunkID: h.ID, DocID: f.doc(), Score: float64(h.Score)})
	}
	return hits, nil
}

// docField is a hit's fields when the search asks for the doc field's
// doc values (cheaper than _source, which holds the vector).
type docField struct {
	Doc []string `json:"doc"`
}

func (f docField) doc() string {
	if len(f.Doc) == 0 {
		return ""
	}
	return f.Doc[0]
}

// sortHits puts hits best first, ties in chunk ID order.
func sortHits(hits []Hit) {
	slices.SortStableFunc(hits, func(a, b Hit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.ChunkID, b.ChunkID)
	})
}
