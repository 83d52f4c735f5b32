package index

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/blevesearch/bleve/v2/search/searcher"
	bleveindex "github.com/blevesearch/bleve_index_api"
	segment "github.com/blevesearch/scorch_segment_api/v2"
)

// The pruned search (MaxScore, Turtle and Flood 1995) answers a query of
// free words, the common case, with the scores and the top k bleve gives
// for bleveQuery's query, without scoring every posting: bleve scores
// every chunk that holds any query word, and a question in words holds
// common ones, whose postings grow with the corpus.
//
// A word's BM25 score in a chunk is below idf·k1·queryWeight whatever its
// frequency and the chunk's length, and bleve's coordination factors are
// at most 1, so a chunk's score is below the sum of these bounds over the
// words it holds. Once k chunks are kept, a chunk that holds only words
// whose bounds sum below the k-th score cannot enter, and the words with
// the smallest bounds (the common ones, of low idf) no longer lead: their
// postings are read only at the chunks the other words name (skipping
// through the posting lists). Each chunk that is scored gets bleve's own
// term scores (its term searchers), combined as bleve's searchers combine
// them; ties keep bleve's order (the earlier chunk), so the top k is the
// one bleve returns. How many chunks matched is counted from the posting
// lists' bitmaps, not by visiting them.

// prunable says whether searchPruned can answer r.
func (r Request) prunable() bool {
	return len(r.Query.Terms) > 0 && len(r.Query.Phrases) == 0 && len(r.Query.Excluded) == 0 &&
		r.Fuzziness == 0 && !r.Explain && r.Size > 0
}

// msTerm is one term searcher of the query: a query word in one field.
type msTerm struct {
	s     search.Searcher
	group int     // index into the query's field groups
	bound float64 // above any score the term gives a chunk
	cur   *search.DocumentMatch
	doc   uint64 // cur's document number; math.MaxUint64 when done
	count uint64
}

// msGroup is the query words in one field: a bleve disjunction with its
// coordination factor.
type msGroup struct {
	field string
	boost float64
	terms []int // indexes into the terms, in the order bleve sums them
}

// maxScore is the state of one pruned search.
type maxScore struct {
	terms  []*msTerm
	groups []msGroup
	order  []int     // terms by bound, smallest first
	prefix []float64 // prefix[i]: the sum of the bounds of order[:i]
	sctx   *search.SearchContext
	idbuf  []byte
}

const msDone = math.MaxUint64

// searchPruned answers r (see prunable) as search does through bleve,
// with ok false where it cannot (an index that is not scorch's); stats
// are the collection statistics, filters r's filters.
func (l *Lexical) searchPruned(ctx context.Context, r Request, stats *search.BM25Stats, filters []query.Query) (out []Candidate, total int, ok bool, err error) {
	adv, err := l.idx.Advanced()
	if err != nil {
		return nil, 0, false, err
	}
	rd, err := adv.Reader()
	if err != nil {
		return nil, 0, false, err
	}
	defer rd.Close()
	snap, isScorch := rd.(*scorch.IndexSnapshot)
	if !isScorch {
		return nil, 0, false, nil
	}
	ctx = context.WithValue(ctx, search.BM25StatsKey, stats)
	ctx = context.WithValue(ctx, search.GetScoringModelCallbackKey,
		search.GetScoringModelCallbackFn(func() string { return bleveindex.BM25Scoring }))

	var words [][]byte
	for _, t := range analyzer().Analyze([]byte(joinTerms(r.Query.Terms))) {
		words = append(words, t.Term)
	}
	if len(words) == 0 {
		return nil, 0, true, nil // bleve's match query matches nothing
	}
	ms := &maxScore{idbuf: make([]byte, 8)}
	defer ms.close()
	fields := []msGroup{{field: fieldContent, boost: 1}}
	if r.TitleWeight > 0 {
		fields = append(fields, msGroup{field: fieldTitle, boost: r.TitleWeight})
	}
	if r.HeadingWeight > 0 {
		fields = append(fields, msGroup{field: fieldHeadings, boost: r.HeadingWeight})
	}
	opts := search.SearcherOptions{}
	for g, f := range fields {
		for _, w := range words {
			s, err := searcher.NewTermSearcherBytes(ctx, rd, w, f.field, f.boost, opts)
			if err != nil {
				return nil, 0, false, fmt.Errorf("lexical search: %w", err)
			}
			ms.terms = append(ms.terms, &msTerm{s: s, group: g, count: s.Count()})
			f.terms = append(f.terms, len(ms.terms)-1)
		}
		// A disjunction of more than searcher.DisjunctionHeapTakeover
		// terms sums them in query order, a smaller one by posting count.
		if len(f.terms) <= searcher.DisjunctionHeapTakeover {
			slices.SortStableFunc(f.terms, func(a, b int) int { return cmpUint(ms.terms[a].count, ms.terms[b].count) })
		}
		ms.groups = append(ms.groups, f)
	}
	// The query norm, summed as bleve's searchers sum their weights: the
	// content disjunction, then the title and headings disjunctions.
	var content, should float64
	for g, f := range ms.groups {
		var w float64
		for _, i := range f.terms {
			w += ms.terms[i].s.Weight()
		}
		if g == 0 {
			content = w
		} else {
			should += w
		}
	}
	norm := 1 / math.Sqrt(content+should)
	for _, t := range ms.terms {
		t.s.SetQueryNorm(norm)
		f := ms.groups[t.group]
		avg := avgFieldLength(stats, f.field)
		if avg <= 0 && t.count > 0 {
			return nil, 0, false, nil // bleve scores such a field by TF-IDF
		}
		n, df := stats.DocCount, float64(t.count)
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		// idf · tf·k1/(tf + k1·(1-b+b·len/avg)) < idf·k1, times the
		// query weight boost·idf·norm; a margin over rounding.
		t.bound = idf * search.BM25_k1 * (f.boost * idf * norm) * (1 + 1e-9)
		if t.count == 0 {
			t.bound = 0
		}
	}
	var keep []*roaring.Bitmap // per segment; nil without filters
	if len(filters) > 0 {
		if keep, err = filterBitmaps(ctx, rd, l.idx.Mapping(), snap, filters); err != nil {
			return nil, 0, false, err
		}
	}
	n, countable, err := ms.count(snap, words, keep)
	if err != nil || !countable {
		return nil, 0, false, err
	}
	hits, err := ms.run(ctx, r.Size, snap, keep)
	if err != nil {
		return nil, 0, false, err
	}
	out = make([]Candidate, 0, len(hits))
	for _, h := range hits {
		id, err := rd.ExternalID(h.id)
		if err != nil {
			return nil, 0, false, fmt.Errorf("lexical search: %w", err)
		}
		out = append(out, Candidate{ChunkID: id, Score: h.score})
	}
	return out, int(n), true, nil
}

func joinTerms(terms []string) string {
	var b bytes.Buffer
	for i, t := range terms {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(t)
	}
	return b.String()
}

func cmpUint(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// avgFieldLength is the average field length bleve's BM25 takes from
// stats (searcher's bm25ScoreMetrics).
func avgFieldLength(stats *search.BM25Stats, field string) float64 {
	c := stats.FieldCardinality[field]
	if stats.DocCount == 0 && c == 0 {
		return 0
	}
	return math.Ceil(float64(c) / float64(uint64(stats.DocCount)))
}

func (ms *maxScore) close() {
	for _, t := range ms.terms {
		t.s.Close()
	}
}

type msHit struct {
	id    bleveindex.IndexInternalID
	score float64
	seq   uint64 // the order bleve's collector would have seen it in
}

// worse says whether a is worse than b in bleve's top k: a lower score,
// or an equal one seen later.
func worse(a, b msHit) bool {
	if a.score != b.score {
		return a.score < b.score
	}
	return a.seq > b.seq
}

// topK keeps the k best hits, the worst at the root.
type topK struct {
	k int
	h []msHit
}

func (t *topK) full() bool { return len(t.h) == t.k }

// offer keeps h when it is better than the worst kept, and says so.
func (t *topK) offer(h msHit) bool {
	if len(t.h) < t.k {
		t.h = append(t.h, h)
		for i := len(t.h) - 1; i > 0; {
			p := (i - 1) / 2
			if !worse(t.h[i], t.h[p]) {
				break
			}
			t.h[i], t.h[p] = t.h[p], t.h[i]
			i = p
		}
		return true
	}
	if !worse(t.h[0], h) {
		return false
	}
	t.h[0] = h
	for i := 0; ; {
		c := 2*i + 1
		if c >= len(t.h) {
			break
		}
		if c+1 < len(t.h) && worse(t.h[c+1], t.h[c]) {
			c++
		}
		if !worse(t.h[c], t.h[i]) {
			break
		}
		t.h[i], t.h[c] = t.h[c], t.h[i]
		i = c
	}
	return true
}

// advance moves t to its first document at or after doc.
func (ms *maxScore) advance(t *msTerm, doc uint64) error {
	if t.doc >= doc {
		return nil
	}
	if t.cur != nil {
		ms.sctx.DocumentMatchPool.Put(t.cur)
	}
	binary.BigEndian.PutUint64(ms.idbuf, doc)
	var err error
	t.cur, err = t.s.Advance(ms.sctx, ms.idbuf)
	t.setDoc()
	return err
}

func (ms *maxScore) next(t *msTerm) error {
	if t.cur != nil {
		ms.sctx.DocumentMatchPool.Put(t.cur)
	}
	var err error
	t.cur, err = t.s.Next(ms.sctx)
	t.setDoc()
	return err
}

func (t *msTerm) setDoc() {
	if t.cur == nil {
		t.doc = msDone
	} else {
		t.doc = binary.BigEndian.Uint64(t.cur.IndexInternalID)
	}
}

// run is the MaxScore loop: the k best chunks, best first.
func (ms *maxScore) run(ctx context.Context, k int, snap *scorch.IndexSnapshot, keep []*roaring.Bitmap) ([]msHit, error) {
	ms.sctx = &search.SearchContext{DocumentMatchPool: search.NewDocumentMatchPool(2*len(ms.terms)+4, 0)}
	ms.order = make([]int, len(ms.terms))
	for i := range ms.order {
		ms.order[i] = i
	}
	slices.SortStableFunc(ms.order, func(a, b int) int { return cmpFloat(ms.terms[a].bound, ms.terms[b].bound) })
	ms.prefix = make([]float64, len(ms.order)+1)
	for i, o := range ms.order {
		ms.prefix[i+1] = ms.prefix[i] + ms.terms[o].bound
	}
	for _, t := range ms.terms {
		if err := ms.next(t); err != nil {
			return nil, err
		}
	}
	offsets := segmentOffsets(snap)
	top := &topK{k: k}
	essential := 0 // order[essential:] lead; the others cannot reach the k-th score alone
	scores := make([]float64, len(ms.terms))
	matched := make([]bool, len(ms.terms))
	var seq uint64
	for visits := 0; ; visits++ {
		if visits%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		doc := uint64(msDone)
		for _, o := range ms.order[essential:] {
			doc = min(doc, ms.terms[o].doc)
		}
		if doc == msDone {
			break
		}
		if keep == nil || kept(keep, offsets, doc) {
			score, ok, err := ms.score(doc, essential, top, scores, matched)
			if err != nil {
				return nil, err
			}
			if ok && top.offer(msHit{id: binary.BigEndian.AppendUint64(nil, doc), score: score, seq: seq}) && top.full() {
				theta := top.h[0].score
				for essential < len(ms.order) && ms.prefix[essential+1] < theta {
					essential++
				}
			}
			seq++
		}
		for _, o := range ms.order[essential:] {
			if t := ms.terms[o]; t.doc == doc {
				if err := ms.next(t); err != nil {
					return nil, err
				}
			}
		}
	}
	slices.SortFunc(top.h, func(a, b msHit) int {
		if worse(a, b) {
			return 1
		}
		if worse(b, a) {
			return -1
		}
		return 0
	})
	return top.h, nil
}

// score is doc's score as bleve computes it, with ok false where doc is
// no match (no content word) or cannot enter the top k.
func (ms *maxScore) score(doc uint64, essential int, top *topK, scores []float64, matched []bool) (float64, bool, error) {
	clear(matched)
	var sum float64
	for _, o := range ms.order[essential:] {
		if t := ms.terms[o]; t.doc == doc {
			scores[o], matched[o] = t.cur.Score, true
			sum += t.cur.Score
		}
	}
	for i := essential - 1; i >= 0; i-- {
		if top.full() && sum+ms.prefix[i+1] < top.h[0].score {
			return 0, false, nil
		}
		o := ms.order[i]
		t := ms.terms[o]
		if err := ms.advance(t, doc); err != nil {
			return 0, false, err
		}
		if t.doc == doc {
			scores[o], matched[o] = t.cur.Score, true
			sum += t.cur.Score
		}
	}
	// bleve's sum: the content disjunction (a must clause), plus the
	// should clause's disjunction of the title and headings disjunctions,
	// each times its coordination factor.
	var total, should float64
	shouldMatched := 0
	for g, f := range ms.groups {
		var s float64
		n := 0
		for _, i := range f.terms {
			if matched[i] {
				s += scores[i]
				n++
			}
		}
		if n == 0 {
			if g == 0 {
				return 0, false, nil
			}
			continue
		}
		s *= float64(n) / float64(len(f.terms))
		if g == 0 {
			total = s
		} else {
			should += s
			shouldMatched++
		}
	}
	if shouldMatched > 0 {
		total += should * (float64(shouldMatched) / float64(len(ms.groups)-1))
	}
	return total, true, nil
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// segmentOffsets are the first document numbers of snap's segments, as
// scorch numbers them.
func segmentOffsets(snap *scorch.IndexSnapshot) []uint64 {
	segs := snap.Segments()
	out := make([]uint64, len(segs))
	var running uint64
	for i, s := range segs {
		out[i] = running
		running += uint64(s.FullSize())
	}
	return out
}

func locate(offsets []uint64, doc uint64) (int, uint32) {
	i := sort.Search(len(offsets), func(x int) bool { return offsets[x] > doc }) - 1
	return i, uint32(doc - offsets[i])
}

func kept(keep []*roaring.Bitmap, offsets []uint64, doc uint64) bool {
	i, local := locate(offsets, doc)
	return keep[i] != nil && keep[i].Contains(local)
}

// filterBitmaps are the documents the filters all keep, per segment of
// snap.
func filterBitmaps(ctx context.Context, rd bleveindex.IndexReader, m mapping.IndexMapping, snap *scorch.IndexSnapshot, filters []query.Query) ([]*roaring.Bitmap, error) {
	q := bleve.NewConjunctionQuery(filters...)
	s, err := q.Searcher(ctx, rd, m, search.SearcherOptions{Score: "none"})
	if err != nil {
		return nil, fmt.Errorf("lexical search: filters: %w", err)
	}
	defer s.Close()
	offsets := segmentOffsets(snap)
	out := make([]*roaring.Bitmap, len(offsets))
	for i := range out {
		out[i] = roaring.New()
	}
	sctx := &search.SearchContext{DocumentMatchPool: search.NewDocumentMatchPool(s.DocumentMatchPoolSize()+1, 0)}
	for n := 0; ; n++ {
		if n%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		d, err := s.Next(sctx)
		if err != nil {
			return nil, fmt.Errorf("lexical search: filters: %w", err)
		}
		if d == nil {
			break
		}
		i, local := locate(offsets, binary.BigEndian.Uint64(d.IndexInternalID))
		out[i].Add(local)
		sctx.DocumentMatchPool.Put(d)
	}
	return out, nil
}

// count is how many chunks hold a content word (and pass the filters,
// keep): the union of the words' posting bitmaps, segment by segment,
// without their deleted documents. countable is false where a segment's
// postings are not bitmaps.
func (ms *maxScore) count(snap *scorch.IndexSnapshot, words [][]byte, keep []*roaring.Bitmap) (n uint64, countable bool, err error) {
	for i, ss := range snap.Segments() {
		dict, err := ss.Segment().Dictionary(fieldContent)
		if err != nil {
			return 0, false, fmt.Errorf("lexical search: count: %w", err)
		}
		var bms []*roaring.Bitmap
		one := roaring.New()
		for _, w := range words {
			pl, err := dict.PostingsList(w, ss.Deleted(), nil)
			if err != nil {
				return 0, false, fmt.Errorf("lexical search: count: %w", err)
			}
			if pl == nil || pl.Count() == 0 {
				continue
			}
			it, ok := pl.Iterator(false, false, false, nil).(segment.OptimizablePostingsIterator)
			if !ok {
				return 0, false, nil
			}
			if d, ok := it.DocNum1Hit(); ok {
				one.Add(uint32(d))
			} else if bm := it.ActualBitmap(); bm != nil {
				bms = append(bms, bm)
			}
		}
		u := roaring.FastOr(append(bms, one)...)
		if keep != nil {
			n += u.AndCardinality(keep[i])
		} else {
			n += u.GetCardinality()
		}
	}
	return n, true, nil
}
