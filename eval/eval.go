// Package eval measures retrieval quality on BEIR-format test collections:
// queries.jsonl, qrels/<split>.tsv and the ranked document ids a system
// returns, scored with nDCG@k, recall@k and MRR@k as BEIR (pytrec_eval)
// scores them.
//
// It also holds the two loops behind braid eval and braid tune. Evaluate
// scores a search engine per mode (lexical, vector, hybrid at each vector
// weight, hybrid with reranking) and Compare holds the runs to a
// baseline; Tune climbs the fusion settings and signal strengths (a
// coordinate ascent, one setting at a time) towards the best nDCG@10 on
// judged queries. Source names the judged queries and the corpus to
// index.
//
// Caveats: the package never imports the root package braid. The caller
// opens the engine, indexes the corpus and hands in its search as a
// function (Engine.Search, Tune's search), which returns the judged ids
// of the hits: document ids for BEIR, paths within the corpus for a
// query set. Tune scores every point on the queries it is given, so tune
// on one split (Source.TuneSplit) and report on another, or the scores
// no longer say how the settings do on unseen queries.
package eval

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Query is one test question.
type Query struct {
	ID   string `json:"_id"`
	Text string `json:"text"`
}

// Qrels maps a query id to its judged documents and their relevance.
type Qrels map[string]map[string]int

// Collection is the queries of one split with their judgements.
type Collection struct {
	Queries []Query // only those with judgements in the split, in file order
	Qrels   Qrels
}

// LoadBEIR reads dir/queries.jsonl and dir/qrels/<split>.tsv.
func LoadBEIR(dir, split string) (*Collection, error) {
	qrels, err := LoadQrels(filepath.Join(dir, "qrels", split+".tsv"))
	if err != nil {
		return nil, err
	}
	f, err := os.Open(filepath.Join(dir, "queries.jsonl"))
	if err != nil {
		return nil, fmt.Errorf("eval: %w (a BEIR directory holds queries.jsonl, corpus.jsonl and qrels/)", err)
	}
	defer f.Close()
	c := &Collection{Qrels: qrels}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for n := 1; sc.Scan(); n++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var q Query
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			return nil, fmt.Errorf("eval: %s:%d: %w", f.Name(), n, err)
		}
		if _, ok := qrels[q.ID]; ok {
			c.Queries = append(c.Queries, q)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("eval: read %s: %w", f.Name(), err)
	}
	if len(c.Queries) == 0 {
		return nil, fmt.Errorf("eval: no query in %s has judgements in the %s split", f.Name(), split)
	}
	return c, nil
}

// LoadQrels reads a BEIR qrels file: a header line, then
// "query-id<TAB>corpus-id<TAB>score" lines.
func LoadQrels(path string) (Qrels, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("eval: %w", err)
	}
	defer f.Close()
	q := Qrels{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		fields := strings.Split(strings.TrimSpace(sc.Text()), "\t")
		if len(fields) != 3 {
			if fields[0] == "" {
				continue
			}
			return nil, fmt.Errorf("eval: %s:%d: want 3 tab-separated fields, got %d", path, n, len(fields))
		}
		score, err := strconv.Atoi(fields[2])
		if err != nil {
			if n == 1 {
				continue // header
			}
			return nil, fmt.Errorf("eval: %s:%d: score %q is not an integer", path, n, fields[2])
		}
		if q[fields[0]] == nil {
			q[fields[0]] = map[string]int{}
		}
		q[fields[0]][fields[1]] = score
	}
	return q, sc.Err()
}

// NDCG is nDCG@k of a ranking against judgements, with linear gain as
// pytrec_eval computes it.
func NDCG(ranked []string, rel map[string]int, k int) float64 {
	dcg := 0.0
	for i, id := range ranked[:min(k, len(ranked))] {
		if r := rel[id]; r > 0 {
			dcg += float64(r) / math.Log2(float64(i+2))
		}
	}
	var ideal []int
	for _, r := range rel {
		if r > 0 {
			ideal = append(ideal, r)
		}
	}
	sort.Sort(sort.Reverse(sort.IntSlice(ideal)))
	idcg := 0.0
	for i, r := range ideal[:min(k, len(ideal))] {
		idcg += float64(r) / math.Log2(float64(i+2))
	}
	if idcg == 0 {
		return 0
	}
	return dcg / idcg
}

// Recall is the share of relevant documents found in the top k.
func Recall(ranked []string, rel map[string]int, k int) float64 {
	want, found := 0, 0
	top := map[string]bool{}
	for _, id := range ranked[:min(k, len(ranked))] {
		top[id] = true
	}
	for id, r := range rel {
		if r > 0 {
			want++
			if top[id] {
				found++
			}
		}
	}
	if want == 0 {
		return 0
	}
	return float64(found) / float64(want)
}

// MRR is the reciprocal rank of the first relevant document in the top k.
func MRR(ranked []string, rel map[string]int, k int) float64 {
	for i, id := range ranked[:min(k, len(ranked))] {
		if rel[id] > 0 {
			return 1 / float64(i+1)
		}
	}
	return 0
}

// Percentile returns the p-th percentile (0..100) of xs by nearest rank.
func Percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	i := int(math.Ceil(p/100*float64(len(s)))) - 1
	return s[max(0, min(i, len(s)-1))]
}

// Hit is 1 when a document of the query's highest grade (the answer, where
// grades say which that is) is in the top k, else 0.
func Hit(ranked []string, rel map[string]int, k int) float64 {
	best := 0
	for _, g := range rel {
		best = max(best, g)
	}
	if best <= 0 {
		return 0
	}
	for _, id := range ranked[:min(k, len(ranked))] {
		if rel[id] == best {
			return 1
		}
	}
	return 0
}
