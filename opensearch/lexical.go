package opensearch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/braidsearch/braid/lexical"
	osgo "github.com/opensearch-project/opensearch-go/v4"
)

// LexQuery is a lexical search.
type LexQuery struct {
	// Terms are free words, each scored where it matches (OR): in content,
	// where one must match, and in title and headings with the weights
	// below.
	Terms string
	// Phrases must each appear in content as a phrase.
	Phrases []string
	// Excluded drops the chunks whose content matches any of these words.
	Excluded []string
	// Fuzziness is the edit distance (0..2) within which Terms match.
	Fuzziness int
	// TitleWeight and HeadingWeight are the boosts of a term matched again
	// in the title and headings fields, added to its content match as in
	// the embedded index (lexical.Request); zero leaves the field out.
	TitleWeight, HeadingWeight float64
}

// similarity is the per-term score of the chunk index's text fields: the
// embedded index's (bleve's BM25 as braid configures it), so that both
// backends rank alike. It differs from Lucene's BM25 in three ways: the
// square root of the term frequency, the idf squared (bleve multiplies the
// term's score by a query weight that holds its idf again), and the
// average field length taken as the number of (chunk, term) pairs per
// chunk, the statistic braid gives bleve (lexical/index.go, CountStats).
// The query-wide normalisation bleve also applies is one factor per query
// and is left out.
const similarity = `double tf = Math.sqrt(doc.freq);
double n = field.docCount;
double idf = Math.log(1.0 + (n - term.docFreq + 0.5) / (term.docFreq + 0.5));
double avgdl = field.sumDocFreq / n;
double norm = 0.25 + 0.75 * doc.length / avgdl;
return query.boost * idf * idf * tf * 1.2 / (tf + 1.2 * norm);`

// similarityName names it in the index settings.
const similarityName = "braid_bm25"

// Lexical returns up to k chunks matching q, best first (ties by chunk
// ID), and how many chunks match in all, scored as the embedded index
// scores them: each query term is a clause per field, content (where one
// must match) and, as a bonus, title and headings where q weighs them
// above 0, combined as bleve combines them (coordinated). OpenSearch reports
// each clause's score by name; the coordination is applied here, over the
// best 2k (at least k+100) chunks by OpenSearch's own sum. Phrases must
// appear in content and add their scores; Excluded drops chunks. A query
// with neither terms nor phrases gives an error wrapping ErrEmptyQuery;
// terms that are all stop words match nothing. k <= 0 gives only the
// total.
func (x *Index) Lexical(ctx context.Context, q LexQuery, f Filter, k int) (hits []Hit, total int, err error) {
	phrases := nonBlank(q.Phrases)
	switch {
	case strings.TrimSpace(q.Terms) == "" && len(phrases) == 0:
		return nil, 0, fmt.Errorf("%w: no terms or phrases to search %s for; give at least one word", ErrEmptyQuery, x.name)
	case q.Fuzziness < 0 || q.Fuzziness > 2:
		return nil, 0, fmt.Errorf("opensearch: lexical search in %s: fuzziness %d, want 0, 1 or 2", x.name, q.Fuzziness)
	}
	var tokens []string
	for _, t := range lexical.Analyze(q.Terms) {
		tokens = append(tokens, t.Term)
	}
	if len(tokens) == 0 && len(phrases) == 0 {
		return nil, 0, nil // only stop words: the embedded index matches nothing either
	}
	boolq := map[string]any{}
	fields := q.fields()
	if len(tokens) > 0 {
		// As the embedded index: the terms must match in content; title
		// and headings add to that score where q weighs them.
		clauses := func(fd lexField) []any {
			var out []any
			for i, tok := range tokens {
				name := fd.letter + strconv.Itoa(i)
				if q.Fuzziness > 0 {
					// As bleve's fuzzy match: edit distance from the first
					// character, a transposition counting two edits.
					out = append(out, map[string]any{"fuzzy": map[string]any{fd.field: map[string]any{
						"value": tok, "fuzziness": q.Fuzziness, "prefix_length": 0, "transpositions": false, "boost": fd.boost, "_name": name}}})
				} else {
					out = append(out, map[string]any{"term": map[string]any{fd.field: map[string]any{"value": tok, "boost": fd.boost, "_name": name}}})
				}
			}
			return out
		}
		terms := map[string]any{"must": map[string]any{"bool": map[string]any{"should": clauses(fields[0]), "minimum_should_match": 1}}}
		var bonus []any
		for _, fd := range fields[1:] {
			bonus = append(bonus, clauses(fd)...)
		}
		if len(bonus) > 0 {
			terms["should"] = bonus
		}
		boolq["should"] = []any{map[string]any{"bool": terms}}
		if len(phrases) == 0 {
			boolq["minimum_should_match"] = 1
		}
	}
	if len(phrases) > 0 {
		var must []any
		for j, p := range phrases {
			must = append(must, map[string]any{"match_phrase": map[string]any{fieldContent: map[string]any{"query": p, "_name": "p" + strconv.Itoa(j)}}})
		}
		boolq["must"] = must
	}
	if ex := nonBlank(q.Excluded); len(ex) > 0 {
		var not []any
		for _, w := range ex {
			not = append(not, map[string]any{"match": map[string]any{fieldContent: w}})
		}
		boolq["must_not"] = not
	}
	c, err := f.clauses()
	if err != nil {
		return nil, 0, err
	}
	if len(c) > 0 {
		boolq["filter"] = c
	}
	pool := 0
	if k > 0 {
		pool = min(max(2*k, k+100), maxWindow)
	}
	body := map[string]any{
		"size":             pool,
		"query":            map[string]any{"bool": boolq},
		"_source":          false, // reading it would load the vector too
		"docvalue_fields":  []string{fieldDoc},
		"track_total_hits": true,
	}
	if q.Fuzziness > 0 && k > 0 {
		body["highlight"] = map[string]any{
			"fields":    map[string]any{fieldContent: map[string]any{"number_of_fragments": 0}},
			"pre_tags":  []string{markStart},
			"post_tags": []string{markEnd},
		}
	}
	resp, err := x.namedSearch(ctx, body)
	if err != nil {
		return nil, 0, err
	}
	hits = make([]Hit, len(resp.Hits.Hits))
	highlights := make([]map[string][]string, len(resp.Hits.Hits))
	for i, h := range resp.Hits.Hits {
		hits[i] = Hit{ChunkID: h.ID, DocID: h.Fields.doc()}
		hits[i].Score, hits[i].FieldBonus = coordinated(fields, h.Matched, len(tokens))
		highlights[i] = h.Highlight
	}
	if q.Fuzziness > 0 {
		if err := x.matchedTerms(ctx, highlights, hits); err != nil {
			return nil, 0, err
		}
	}
	sortHits(hits)
	if len(hits) > k {
		hits = hits[:max(k, 0)]
	}
	return hits, resp.Hits.Total.Value, nil
}

// maxWindow is OpenSearch's default index.max_result_window.
const maxWindow = 10000

// lexField is a field query terms are matched in, with the letter that
// names its clauses and its boost.
type lexField struct {
	field, letter string
	boost         float64
}

// fields are the fields q's terms are matched in: content, and title and
// headings where q weighs them.
func (q LexQuery) fields() []lexField {
	out := []lexField{{fieldContent, "c", 1}}
	if q.TitleWeight > 0 {
		out = append(out, lexField{fieldTitle, "t", q.TitleWeight})
	}
	if q.HeadingWeight > 0 {
		out = append(out, lexField{fieldHeadings, "h", q.HeadingWeight})
	}
	return out
}

// coordinated is a chunk's score from its matched clauses' scores (by
// name), as bleve combines them; n is the number of query terms. Each
// field's clauses are summed and multiplied by the share of the terms
// that matched there (the coordination factor bleve has and Lucene does
// not). The content field's sum is the terms' score; the bonus fields'
// sums (fields[1:]) are added, times the share of them that matched, and
// only to a chunk that matched in content, as the query requires.
// Phrases add their scores. bonus is what the bonus fields added.
func coordinated(fields []lexField, matched map[string]float64, n int) (score, bonus float64) {
	field := func(fd lexField) (float64, bool) {
		sum, hit := 0.0, 0
		for name, s := range matched {
			if strings.HasPrefix(name, fd.letter) {
				sum += s
				hit++
			}
		}
		return sum * float64(hit) / float64(n), hit > 0
	}
	score, inContent := field(fields[0])
	if inContent && len(fields) > 1 {
		hitFields := 0
		for _, fd := range fields[1:] {
			if s, ok := field(fd); ok {
				bonus += s
				hitFields++
			}
		}
		bonus *= float64(hitFields) / float64(len(fields)-1)
		score += bonus
	}
	for name, s := range matched {
		if strings.HasPrefix(name, "p") {
			score += s
		}
	}
	return score, bonus
}

// namedResp is a search response with each hit's named clauses' scores.
type namedResp struct {
	Shards struct {
		Total, Failed int
		Failures      []struct {
			Reason struct{ Type, Reason string }
		}
	} `json:"_shards"`
	Hits struct {
		Total struct {
			Value int `json:"value"`
		} `json:"total"`
		Hits []struct {
			ID        string              `json:"_id"`
			Fields    docField            `json:"fields"`
			Matched   map[string]float64  `json:"matched_queries"`
			Highlight map[string][]string `json:"highlight"`
		} `json:"hits"`
	} `json:"hits"`
}

// namedSearch runs a search on the chunk index that reports the score of
// each named clause a hit matched (include_named_queries_score, which the
// client's typed response cannot decode).
func (x *Index) namedSearch(ctx context.Context, body map[string]any) (*namedResp, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("opensearch: lexical search: encode query: %w", err)
	}
	ctx, cancel := x.bound(ctx)
	defer cancel()
	var out namedResp
	if _, err := osgo.Do(ctx, x.client.Client, http.MethodPost, namedSearchReq{index: x.name, body: b}, &out); err != nil {
		return nil, fmt.Errorf("opensearch: lexical search in %s: %w", x.name, x.explain(err))
	}
	if n := out.Shards.Failed; n > 0 {
		reason := ""
		if len(out.Shards.Failures) > 0 {
			r := out.Shards.Failures[0].Reason
			reason = ": " + r.Type + ": " + r.Reason
		}
		return nil, fmt.Errorf("opensearch: lexical search in %s: %d of %d shards failed%s", x.name, n, out.Shards.Total, reason)
	}
	return &out, nil
}

type namedSearchReq struct {
	index string
	body  []byte
}

func (r namedSearchReq) GetRequest(method string) (*http.Request, error) {
	req, err := http.NewRequest(method, "/"+url.PathEscape(r.index)+"/_search?include_named_queries_score=true", bytes.NewReader(r.body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	return req, nil
}
