package index

import (
	"encoding/json"
	"maps"

	"github.com/blevesearch/bleve/v2/search"
)

// keyTermCounts prefixes, in the lexical index's internal store, each
// chunk's termCounts as JSON, written in the batch that indexes the chunk
// and deleted with it. They let Apply move the BM25 statistics by what it
// adds and deletes instead of counting them again over the whole index
// (every term of every field: linear in the index, and the cost of every
// one-note change). A chunk indexed before they were kept has none; a
// batch that deletes such a chunk leaves the statistics to be counted.
const keyTermCounts = "braid.tc\x00"

// keyAllCounted marks a lexical index every chunk of which has its
// counts kept: one begun empty since they were. Without it (an index from
// an older braid) the statistics are counted again after each batch.
var keyAllCounted = []byte("braid.tc.all")

// countsKey is the internal key of chunk id's counts.
func countsKey(id string) []byte { return []byte(keyTermCounts + id) }

// termCounts is how many distinct terms bleve indexes in each field of a
// chunk: its share of the statistics' FieldCardinality (the number of
// (chunk, term) pairs of a field), _id included.
func termCounts(d lexDoc) map[string]int {
	a := analyzer()
	distinct := func(text string) int {
		seen := map[string]struct{}{}
		for _, t := range a.Analyze([]byte(text)) {
			seen[string(t.Term)] = struct{}{}
		}
		return len(seen)
	}
	c := map[string]int{"_id": 1}
	add := func(f string, n int) {
		if n > 0 {
			c[f] = n
		}
	}
	add(fieldContent, distinct(d.Content))
	add(fieldTitle, distinct(d.Title))
	add(fieldHeadings, distinct(d.Headings))
	for f, v := range map[string]string{fieldDoc: d.Doc, fieldSource: d.Source, fieldPath: d.Path} {
		if v != "" {
			add(f, 1) // a keyword field is one term
		}
	}
	tags := map[string]struct{}{}
	for _, t := range d.Tags {
		tags[t] = struct{}{}
	}
	add(fieldTags, len(tags))
	return c
}

// statsDelta moves st (the statistics before a batch) by the chunks the
// batch deletes (their kept counts, old) and adds (new): a new copy, or
// nil when a deleted chunk has no kept counts (then they are counted).
type statsDelta struct {
	st *search.BM25Stats
}

func newStatsDelta(st *search.BM25Stats) *statsDelta {
	if st == nil {
		return nil
	}
	c := &search.BM25Stats{DocCount: st.DocCount, FieldCardinality: maps.Clone(st.FieldCardinality)}
	return &statsDelta{st: c}
}

// remove takes a chunk's counts (as kept, JSON) out.
func (s *statsDelta) remove(kept []byte) bool {
	var c map[string]int
	if s == nil || json.Unmarshal(kept, &c) != nil {
		return false
	}
	s.st.DocCount--
	for f, n := range c {
		s.st.FieldCardinality[f] -= n
	}
	return true
}

// add puts a chunk's counts in.
func (s *statsDelta) add(c map[string]int) {
	s.st.DocCount++
	for f, n := range c {
		s.st.FieldCardinality[f] += n
	}
}

// startDelta is the statistics of the index as it is, to move by a batch:
// nil unless they are known without counting (in memory, or saved at this
// commit) and every chunk has its counts kept (keyAllCounted). An empty
// index is marked so here, in the batch's stead: all it will hold is
// counted.
func (l *Lexical) startDelta() *statsDelta {
	l.statsMu.Lock()
	st := l.stats
	l.statsMu.Unlock()
	if st == nil {
		gen, err := l.Gen()
		if err != nil {
			return nil
		}
		if st = l.savedStats(gen); st == nil {
			// An empty index's statistics cost nothing to count.
			if n, err := l.idx.DocCount(); err != nil || n != 0 {
				return nil
			}
			if st, err = l.countStats(); err != nil {
				return nil
			}
		}
	}
	all, err := l.idx.GetInternal(keyAllCounted)
	if err != nil {
		return nil
	}
	if all == nil {
		if n, err := l.idx.DocCount(); err != nil || n != 0 || st.DocCount != 0 {
			return nil
		}
		if err := l.idx.SetInternal(keyAllCounted, []byte("1")); err != nil {
			return nil
		}
	}
	return newStatsDelta(st)
}
