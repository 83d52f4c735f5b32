package lexical

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	blevequery "github.com/blevesearch/bleve/v2/search/query"
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
// A word's BM25 score in a chunk is below idf·saturation·queryWeight
// whatever its count and the chunk's length (see saturation), and bleve's
// coordination factors are at most 1, so a chunk's score is below the sum
// of these bounds over the words it holds. Once k chunks are kept, a chunk
// that holds only words whose bounds sum below the k-th score cannot
// enter, and the words with the smallest bounds (the common ones, of low
// idf) no longer lead: their postings are read only at the chunks the
// other words name, skipping through the posting lists, and not even
// there once the words read so far leave a chunk short of the k-th score.
//
// It reads scorch's segments directly (their term dictionaries and
// posting iterators), scores a posting as bleve's TermQueryScorer does,
// with the query norm and idf bleve's searchers compute, and combines the
// words' scores as bleve's searchers combine them (the content
// disjunction and its coordination factor, plus the title and headings
// disjunctions'); ties keep bleve's order (the earlier chunk), so the top
// k is bleve's. One difference is left: a field's disjunction of more
// than ten words (bleve's heap disjunction) sums in an order bleve's heap
// happens to pop, so scores may differ in the last bit (1e-16) and two
// chunks that close may swap (one pair in one of SciFact's 300 test
// queries). How many chunks matched is counted from the posting lists'
// bitmaps, not by visiting them. Phrases, exclusions, fuzzy matching and
// explanations go through bleve (searchWith).
//
// Block-Max MaxScore (Ding and Suel 2011; Chakrabarti et al. 2011): the
// bounds above are loose for the middling and common words (their
// largest saturation is rare), so those stay leading and a third of the
// chunks are visited on braid bench's questions. Where the Lexical keeps
// a word's postings in a segment (blockmax.go: from the second time the
// word is asked of it), the search reads them from memory instead of
// zap's iterators, takes the word's bound in the segment from its largest
// saturation there, and has a bound per block of 16 document numbers.
// Before scoring a chunk it adds, over all the query's words, the bound
// of the chunk's block (termBound: 0 for a word whose next posting lies
// past the block, whatever it keeps) and skips the whole block, the
// leading words jumping past it, where the sum is below the k-th score;
// and a chunk that is scored stops as soon as what it has plus the
// per-block bounds of the words not yet read fall short. The bounds have
// a margin over rounding and the scores are computed from the same
// counts and norms as before, so the results are those above, exactly.
//
// Where a segment's postings of the query's words are kept, nearly all
// of them, the segment is not searched by this loop but term at a time
// (accumulate.go): every posting's estimated score added to its chunk,
// and the chunks whose estimates can reach the top k scored as here.

// prunable says whether searchPruned can answer r.
func (r Request) prunable() bool {
	return len(r.Query.Terms) > 0 && len(r.Query.Phrases) == 0 && len(r.Query.Excluded) == 0 &&
		r.Fuzziness == 0 && !r.Explain && r.Size > 0
}

// msTerm is a query word in one field's disjunction.
type msTerm struct {
	group int                    // index into the query's field groups
	word  []byte                 // the analysed word
	lists []segment.PostingsList // its postings, per segment
	df    uint64                 // the chunks that hold it, over the index
	// idf and the query weight, as bleve's TermQueryScorer has them.
	idf, weight, avg float64
	bound            float64 // above any score the term gives a chunk

	// In the segment being searched:
	it     segment.PostingsIterator // where blocks is nil
	p      segment.Posting          // at doc, read from it
	doc    uint64                   // a local document number; msDone when done
	blocks *termBlocks              // its kept postings and block bounds, or nil
	pos    int                      // in blocks, at doc
	del    *roaring.Bitmap          // the segment's deleted documents, nil for none
	// segBound is above any score the term gives a chunk of the segment
	// (from blocks' scale where it has them); blocks.q[b]·blockWeight is
	// above any it gives a chunk of block b.
	segBound, blockWeight float64
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
	terms []*msTerm
	segs  []*scorch.SegmentSnapshot
	cache *blockCache // nil: no block bounds
	// blocked: some term has kept postings in the segment being
	// searched; without, it is searched as MaxScore alone.
	blocked bool
	groups  []msGroup
	order   []int     // terms by bound, smallest first
	prefix  []float64 // prefix[i]: the sum of the bounds of order[:i]
	top     topK
	// essential: order[essential:] lead; the others cannot reach the
	// k-th score alone.
	essential int
	scores    []float64
	matched   []bool
	bounds    []float64 // score's per-chunk bounds, by order

	// workers is the most goroutines searchSegments runs (Request's).
	workers int
	// noAccumulate: search every segment with MaxScore (for tests);
	// noSplit: accumulate every kept word (for tests).
	noAccumulate, noSplit bool

	blocksSkipped, docsScored, accumulated, neChecked int // for tests

	// floor, where workers search the segments (searchSegments), is the
	// highest k-th score any of them has published (float64 bits): no
	// chunk below it enters the top k they make together.
	floor *atomic.Uint64
}

// cut is the score below which a chunk cannot enter the top k, with ok
// false where none is known yet: the k-th score kept where k are, or
// the workers' floor where that is higher.
func (ms *maxScore) cut() (cut float64, ok bool) {
	if ms.top.full() {
		cut, ok = ms.top.h[0].score, true
	}
	if ms.floor != nil {
		if f := math.Float64frombits(ms.floor.Load()); f > cut {
			cut, ok = f, true
		}
	}
	return cut, ok
}

// publish raises the workers' floor to ms's k-th score, where it keeps
// k chunks.
func (ms *maxScore) publish() {
	if ms.floor == nil || !ms.top.full() {
		return
	}
	s := ms.top.h[0].score
	for {
		old := ms.floor.Load()
		if math.Float64frombits(old) >= s || ms.floor.CompareAndSwap(old, math.Float64bits(s)) {
			return
		}
	}
}

const msDone = math.MaxUint64

// searchPruned answers r (see prunable) as search does through bleve,
// with ok false where it cannot (an index that is not scorch's); stats
// are the collection statistics, filters r's filters.
func (l *Index) searchPruned(ctx context.Context, r Request, stats *search.BM25Stats, filters []blevequery.Query) (out []Candidate, total int, ok bool, err error) {
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
	var words [][]byte
	for _, t := range analyzer().Analyze([]byte(strings.Join(r.Query.Terms, " "))) {
		words = append(words, t.Term)
	}
	if len(words) == 0 {
		return nil, 0, true, nil // bleve's match query matches nothing
	}
	segs := snap.Segments()
	ms := &maxScore{top: topK{k: r.Size}, segs: segs, cache: l.blocks, noAccumulate: l.noAccumulate, noSplit: l.noSplit, workers: r.Workers}
	if ms.cache != nil {
		live := make([]uint64, len(segs))
		for i, ss := range segs {
			live[i] = ss.Id()
		}
		ms.cache.keep(live)
	}
	fields := []msGroup{{field: fieldContent, boost: 1}}
	if r.TitleWeight > 0 {
		fields = append(fields, msGroup{field: fieldTitle, boost: r.TitleWeight})
	}
	if r.HeadingWeight > 0 {
		fields = append(fields, msGroup{field: fieldHeadings, boost: r.HeadingWeight})
	}
	dicts := make([]segment.TermDictionary, len(segs))
	for g, f := range fields {
		if _, ok := stats.FieldCardinality[f.field]; !ok {
			return nil, 0, false, fmt.Errorf("lexical search: no BM25 statistics for field %s; run braid index to count them", f.field)
		}
		for i, ss := range segs {
			if dicts[i], err = ss.Segment().Dictionary(f.field); err != nil {
				return nil, 0, false, fmt.Errorf("lexical search: %w", err)
			}
		}
		avg := avgFieldLength(stats, f.field)
		for _, w := range words {
			t := &msTerm{group: g, word: w, avg: avg, lists: make([]segment.PostingsList, len(segs))}
			for i, ss := range segs {
				pl, err := dicts[i].PostingsList(w, ss.Deleted(), nil)
				if err != nil {
					return nil, 0, false, fmt.Errorf("lexical search: %w", err)
				}
				t.lists[i] = pl
				t.df += pl.Count()
			}
			if avg <= 0 && t.df > 0 {
				return nil, 0, false, nil // bleve scores such a field by TF-IDF
			}
			t.idf = idf(uint64(stats.DocCount), t.df, avg)
			ms.terms = append(ms.terms, t)
			f.terms = append(f.terms, len(ms.terms)-1)
		}
		// A disjunction of more than searcher.DisjunctionHeapTakeover
		// terms sums them in query order, a smaller one by posting count.
		if len(f.terms) <= searcher.DisjunctionHeapTakeover {
			slices.SortStableFunc(f.terms, func(a, b int) int { return cmp.Compare(ms.terms[a].df, ms.terms[b].df) })
		}
		ms.groups = append(ms.groups, f)
	}
	// The query norm, summed as bleve's searchers sum their weights: the
	// content disjunction, then the title and headings disjunctions.
	var content, should float64
	for g, f := range ms.groups {
		var w float64
		for _, i := range f.terms {
			bi := f.boost * ms.terms[i].idf
			w += bi * bi
		}
		if g == 0 {
			content = w
		} else {
			should += w
		}
	}
	norm := 1 / math.Sqrt(content+should)
	for _, t := range ms.terms {
		t.weight = ms.groups[t.group].boost * t.idf * norm
		t.bound = t.idf * saturation(t.avg) * t.weight * (1 + 1e-9) // a margin over rounding
		if t.df == 0 {
			t.bound = 0
		}
	}
	var keep []*roaring.Bitmap // per segment; nil without filters
	if len(filters) > 0 {
		if keep, err = l.filters.bitmaps(ctx, rd, l.idx.Mapping(), snap, filters); err != nil {
			return nil, 0, false, err
		}
	}
	n, countable, err := ms.searchSegments(ctx, segmentOffsets(snap), keep)
	if err != nil || !countable {
		return nil, 0, false, err
	}
	if ms.cache != nil {
		ms.cache.note(ms.blocksSkipped, ms.docsScored, ms.accumulated, ms.neChecked)
	}
	hits := ms.top.sorted()
	out = make([]Candidate, 0, len(hits))
	for _, h := range hits {
		id, err := rd.ExternalID(binary.BigEndian.AppendUint64(nil, h.seq))
		if err != nil {
			return nil, 0, false, fmt.Errorf("lexical search: %w", err)
		}
		out = append(out, Candidate{ChunkID: id, Score: h.score})
	}
	return out, int(n), true, nil
}

// parallelDocs: an index of at least this many chunks is searched on
// up to GOMAXPROCS goroutines, its segments shared out among them (a
// variable for tests).
var parallelDocs int64 = 1 << 16

// searchSegments searches every segment (segment), offsets numbering
// their documents in the index and keep what the filters keep of each
// (nil without filters), keeping the best chunks in ms.top, and returns
// how many chunks match. An index of parallelDocs chunks or more is
// searched by a worker per core (at most ms.workers, where set), each a
// maxScore of its own (its top k, its terms' places) taking the next
// segment not yet taken; their tops are then merged, so the top k is the
// one a single worker would keep.
// After each segment a worker publishes its k-th score, and each prunes
// with the highest published where that is above its own (cut).
func (ms *maxScore) searchSegments(ctx context.Context, offsets []uint64, keep []*roaring.Bitmap) (n uint64, countable bool, err error) {
	kept := func(i int) *roaring.Bitmap {
		if keep == nil {
			return nil
		}
		return keep[i]
	}
	var docs int64
	for _, ss := range ms.segs {
		docs += ss.FullSize()
	}
	workers := runtime.GOMAXPROCS(0)
	if ms.workers > 0 {
		workers = ms.workers
	}
	workers = min(workers, len(ms.segs))
	if workers < 2 || docs < parallelDocs {
		for i := range ms.segs {
			c, countable, err := ms.segment(ctx, i, offsets[i], kept(i))
			if err != nil || !countable {
				return 0, false, err
			}
			n += c
		}
		return n, true, nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ws := make([]*maxScore, workers)
	counts := make([]uint64, workers)
	floor := new(atomic.Uint64)
	var next atomic.Int64
	var wg sync.WaitGroup
	var stop sync.Once // the first worker that fails or cannot count
	countable = true
	for w := range ws {
		ws[w] = ms.worker()
		ws[w].floor = floor
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(ms.segs) {
					return
				}
				c, ok, e := ws[w].segment(ctx, i, offsets[i], kept(i))
				if e != nil || !ok {
					stop.Do(func() { countable, err = ok, e; cancel() })
					return
				}
				counts[w] += c
				ws[w].publish()
			}
		}()
	}
	wg.Wait()
	if err != nil || !countable {
		return 0, false, err
	}
	for w := range ws {
		n += counts[w]
		for _, h := range ws[w].top.h {
			ms.top.offer(h)
		}
		ms.blocksSkipped += ws[w].blocksSkipped
		ms.docsScored += ws[w].docsScored
		ms.accumulated += ws[w].accumulated
		ms.neChecked += ws[w].neChecked
	}
	return n, true, nil
}

// worker is a maxScore for the same question with a top k and terms'
// places of its own (searchSegments).
func (ms *maxScore) worker() *maxScore {
	w := &maxScore{segs: ms.segs, cache: ms.cache, groups: ms.groups, top: topK{k: ms.top.k},
		noAccumulate: ms.noAccumulate, noSplit: ms.noSplit, terms: make([]*msTerm, len(ms.terms))}
	for i, t := range ms.terms {
		c := *t
		w.terms[i] = &c
	}
	return w
}

// idf is a word's inverse document frequency as bleve's TermQueryScorer
// has it: BM25's where the field has an average length, else TF-IDF's (a
// field no chunk holds words in, whose words weigh in the query norm all
// the same).
func idf(docs, df uint64, avg float64) float64 {
	if avg > 0 {
		return math.Log(1 + (float64(docs)-float64(df)+0.5)/(float64(df)+0.5))
	}
	return 1.0 + math.Log(float64(docs)/float64(df+1.0))
}

// saturation bounds BM25's term frequency part, tf·k1/(tf + k1·(1-b +
// b·len/avg)) with tf the square root of the term's count in the field
// (as bleve has it), over every count and field length len: a field holds
// at least as many words as any one of them, so len ≥ tf², less the
// rounding of the length bleve keeps (a float32 norm), and the
// expression k1·tf/(tf + A + B·tf²) is largest at tf² = A/B.
func saturation(avg float64) float64 {
	k1, b := search.BM25_k1, search.BM25_b
	a, bb := k1*(1-b), k1*b*(1-1e-6)/avg
	tf := math.Sqrt(a / bb)
	return k1 * tf / (tf + 2*a)
}

// score is t's score at its posting, computed as bleve's TermQueryScorer
// computes it.
func (t *msTerm) score() float64 {
	if t.blocks != nil {
		return t.scoreOf(t.blocks.freq(t.pos), t.blocks.norm(t.pos))
	}
	return t.scoreOf(t.p.Frequency(), t.p.Norm())
}

// scoreOf is t's score at a posting of count freq in a field of norm.
func (t *msTerm) scoreOf(freq uint64, norm float64) float64 {
	tf := sqrtFreq(freq)
	fieldLength := 1 / (norm * norm)
	score := t.idf * (tf * search.BM25_k1) /
		(tf + search.BM25_k1*(1-search.BM25_b+(search.BM25_b*fieldLength/t.avg)))
	if t.weight != 1.0 {
		score = score * t.weight
	}
	return score
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

type msHit struct {
	score float64
	seq   uint64 // the chunk's document number: the order bleve's collector sees it in
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

// sorted is the hits kept, best first.
func (t *topK) sorted() []msHit {
	out := slices.Clone(t.h)
	slices.SortFunc(out, func(a, b msHit) int {
		if worse(a, b) {
			return 1
		}
		if worse(b, a) {
			return -1
		}
		return 0
	})
	return out
}

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

func (t *msTerm) next() (err error) {
	if t.blocks != nil {
		t.pos++
		t.skipDeleted()
		return nil
	}
	t.p, err = t.it.Next()
	t.setDoc()
	return err
}

// advance moves t to its first document at or after doc.
func (t *msTerm) advance(doc uint64) (err error) {
	if t.doc >= doc {
		return nil
	}
	if t.blocks != nil {
		t.pos = t.blocks.seek(t.pos, uint32(doc))
		t.skipDeleted()
		return nil
	}
	t.p, err = t.it.Advance(doc)
	t.setDoc()
	return err
}

// skipDeleted moves t from pos in its kept postings to the first that is
// not deleted, and sets doc.
func (t *msTerm) skipDeleted() {
	tb := t.blocks
	for t.del != nil && t.pos < tb.len() && t.del.Contains(tb.doc(t.pos)) {
		t.pos++
	}
	if t.pos >= tb.len() {
		t.doc = msDone
	} else {
		t.doc = uint64(tb.doc(t.pos))
	}
}

func (t *msTerm) setDoc() {
	if t.p == nil {
		t.doc = msDone
	} else {
		t.doc = t.p.Number()
	}
}

// prepare orders the terms by their bounds in the segment being
// searched, and sets which lead for the k-th score so far.
func (ms *maxScore) prepare() {
	if ms.order == nil {
		ms.order = make([]int, len(ms.terms))
		ms.prefix = make([]float64, len(ms.terms)+1)
		ms.bounds = make([]float64, len(ms.terms)+1)
		ms.scores = make([]float64, len(ms.terms))
		ms.matched = make([]bool, len(ms.terms))
	}
	for i := range ms.order {
		ms.order[i] = i
	}
	slices.SortStableFunc(ms.order, func(a, b int) int { return cmp.Compare(ms.terms[a].segBound, ms.terms[b].segBound) })
	for i, o := range ms.order {
		ms.prefix[i+1] = ms.prefix[i] + ms.terms[o].segBound
	}
	ms.essential = 0
	ms.raise()
}

// raise takes the terms whose bounds, with those of the terms before
// them, sum below the k-th score out of the lead.
func (ms *maxScore) raise() {
	theta, ok := ms.cut()
	if !ok {
		return
	}
	for ms.essential < len(ms.order) && ms.prefix[ms.essential+1] < theta {
		ms.essential++
	}
}

// setBounds gives each term its bounds in segment seg, reading its
// block bounds from the cache or making them (see blockmax.go).
func (ms *maxScore) setBounds(seg int) error {
	ss := ms.segs[seg]
	docs := uint64(ss.FullSize())
	var asked map[string]bool // the words this search asked once
	// What this search reads to keep: a word's postings cost a pass
	// through zap's, so a search reads at most a segment's worth of
	// postings for later ones (one common word's); the rest wait for
	// their next ask.
	budget := docs
	ms.blocked = false
	for _, t := range ms.terms {
		t.blocks, t.segBound, t.blockWeight = nil, t.bound, 0
		n := t.lists[seg].Count()
		if n == 0 {
			t.segBound = 0
			continue
		}
		if ms.cache == nil || n*keepRatio < docs {
			continue
		}
		field := ms.groups[t.group].field
		key := field + "\x00" + string(t.word)
		tb := ms.cache.get(ss.Id(), key, t.avg)
		if tb == nil && (asked[key] || !ms.cache.ask(ss.Id(), key)) {
			if asked == nil {
				asked = map[string]bool{}
			}
			asked[key] = true // a word twice in a query is asked once
			continue
		}
		if tb == nil && n > budget {
			continue
		}
		if tb == nil {
			budget -= n
			d, err := ss.Segment().Dictionary(field)
			if err != nil {
				return fmt.Errorf("lexical search: %w", err)
			}
			pl, err := d.PostingsList(t.word, nil, nil)
			if err != nil {
				return fmt.Errorf("lexical search: %w", err)
			}
			if tb, err = makeBlocks(pl, docs, t.avg, ms.cache.fieldNorms(ss.Id(), field, docs)); err != nil {
				return err
			}
			ms.cache.put(ss.Id(), key, tb)
		}
		t.blocks, ms.blocked = tb, true
		w := t.idf * t.weight * (1 + 1e-9) // a margin over rounding
		t.segBound = min(t.bound, tb.scale*w)
		t.blockWeight = tb.scale / 255 * w * (1 + 1e-12)
	}
	return nil
}

// termBound is above t's score in any chunk from doc to the end of doc's
// block b. Every term stands at its first posting at or after some
// document number no later than doc (the essential ones past the chunks
// already visited, the others where score last advanced them), so one
// standing past doc has no posting between doc and where it stands.
func (ms *maxScore) termBound(t *msTerm, b, doc uint64) float64 {
	if !ms.blocked {
		return t.segBound
	}
	if t.doc >= doc && t.doc>>blockShift != b {
		return 0
	}
	if t.blocks != nil {
		if b >= uint64(len(t.blocks.q)) {
			return 0
		}
		return float64(t.blocks.q[b]) * t.blockWeight
	}
	return t.segBound
}

// segment runs the MaxScore loop over one segment (number seg, its
// documents numbered from offset in the index, keep those the filters
// keep, nil without filters), keeping the best chunks in ms.top, and
// returns how many chunks of it match: the union of the content words'
// posting bitmaps. countable is false where they are not bitmaps.
//
// With block bounds, a block where the bounds of all terms sum below the
// k-th score is skipped: the leading terms advance past it without
// scoring a chunk.
func (ms *maxScore) segment(ctx context.Context, seg int, offset uint64, keep *roaring.Bitmap) (n uint64, countable bool, err error) {
	if err := ms.setBounds(seg); err != nil {
		return 0, false, err
	}
	ms.prepare()
	if n, countable = ms.contentMatches(seg, keep); !countable {
		return 0, false, nil
	}
	if ms.accumulable(seg) {
		ms.accumulated++
		return n, true, ms.accumulate(ctx, seg, offset, keep)
	}
	del := ms.segs[seg].Deleted()
	if del != nil && del.IsEmpty() {
		del = nil
	}
	for _, t := range ms.terms {
		t.it = t.lists[seg].Iterator(true, true, false, nil)
		t.del, t.pos = del, 0
		if t.blocks != nil {
			t.skipDeleted()
		} else if err := t.next(); err != nil {
			return 0, false, err
		}
	}
	// The bound of the block of the last chunk visited and the first of
	// the terms that lead in it (blockLead), made at the first chunk
	// visited in it: they hold for the chunks after that one.
	lastBlock, ub, blockLead := uint64(msDone), 0.0, 0
	var from uint64 // every chunk before it is done
	for visits := 0; ; visits++ {
		if visits%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return 0, false, err
			}
		}
		doc := uint64(msDone)
		for _, o := range ms.order[ms.essential:] {
			t := ms.terms[o]
			if err := t.advance(from); err != nil {
				return 0, false, err
			}
			doc = min(doc, t.doc)
		}
		if doc == msDone {
			break
		}
		lead := ms.essential
		if theta, ok := ms.cut(); ms.blocked && ok {
			b := doc >> blockShift
			if b != lastBlock {
				lastBlock, ub, blockLead = b, 0, 0
				for i, o := range ms.order {
					bound := ms.termBound(ms.terms[o], b, doc)
					ms.bounds[i+1] = ms.bounds[i] + bound
					ub += bound
				}
				for blockLead < len(ms.order) && ms.bounds[blockLead+1] < theta {
					blockLead++
				}
			}
			if ub < theta {
				from = (b + 1) << blockShift
				ms.blocksSkipped++
				continue
			}
			// In this block a chunk that holds none of the terms from
			// blockLead on falls short: the others follow.
			if lead = max(lead, blockLead); lead > ms.essential {
				doc = msDone
				for _, o := range ms.order[lead:] {
					doc = min(doc, ms.terms[o].doc)
				}
				if doc>>blockShift != b {
					from = (b + 1) << blockShift
					continue
				}
			}
		}
		if keep == nil || keep.Contains(uint32(doc)) {
			score, ok, err := ms.score(doc, lead)
			if err != nil {
				return 0, false, err
			}
			if ok && ms.top.offer(msHit{score: score, seq: offset + doc}) {
				ms.raise()
			}
		}
		for _, o := range ms.order[max(lead, ms.essential):] {
			if t := ms.terms[o]; t.doc == doc {
				if err := t.next(); err != nil {
					return 0, false, err
				}
			}
		}
		from = doc + 1
	}
	return n, true, nil
}

// contentMatches is how many chunks of segment seg hold a content word,
// of those keep keeps (nil: all): the union of the words' posting
// bitmaps, less the deleted chunks (the lists' exceptions). ok is false
// where the postings are not bitmaps.
func (ms *maxScore) contentMatches(seg int, keep *roaring.Bitmap) (n uint64, ok bool) {
	var bms []*roaring.Bitmap
	one := roaring.New()
	for _, t := range ms.terms {
		pl := t.lists[seg]
		if t.group != 0 || pl.Count() == 0 {
			continue
		}
		o, ok := pl.Iterator(false, false, false, nil).(segment.OptimizablePostingsIterator)
		if !ok {
			return 0, false
		}
		if d, ok := o.DocNum1Hit(); ok {
			one.Add(uint32(d))
		} else if bm := o.ActualBitmap(); bm != nil {
			bms = append(bms, bm)
		}
	}
	u := roaring.FastOr(append(bms, one)...)
	if keep != nil {
		return u.AndCardinality(keep), true
	}
	return u.GetCardinality(), true
}

// score is doc's score as bleve computes it, with ok false where doc is
// no match (no content word) or cannot enter the top k; the terms from
// lead on stand at doc or past it, the others are advanced to it.
func (ms *maxScore) score(doc uint64, lead int) (float64, bool, error) {
	ms.docsScored++
	scores, matched := ms.scores, ms.matched
	clear(matched)
	var sum float64
	for _, o := range ms.order[lead:] {
		if t := ms.terms[o]; t.doc == doc {
			s := t.score()
			scores[o], matched[o] = s, true
			sum += s
		}
	}
	theta, full := ms.cut()
	if full {
		b := doc >> blockShift
		for i, o := range ms.order[:lead] {
			bound := 0.0
			// One standing past doc does not hold it (see termBound).
			if t := ms.terms[o]; !ms.blocked || t.doc <= doc {
				bound = ms.termBound(t, b, doc)
			}
			ms.bounds[i+1] = ms.bounds[i] + bound
		}
	}
	for i := lead - 1; i >= 0; i-- {
		if full && sum+ms.bounds[i+1] < theta {
			return 0, false, nil
		}
		o := ms.order[i]
		t := ms.terms[o]
		if err := t.advance(doc); err != nil {
			return 0, false, err
		}
		if t.doc == doc {
			s := t.score()
			scores[o], matched[o] = s, true
			sum += s
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

// filterBitmaps are the documents the filters all keep, per segment of
// snap.
func filterBitmaps(ctx context.Context, rd bleveindex.IndexReader, m mapping.IndexMapping, snap *scorch.IndexSnapshot, filters []blevequery.Query) ([]*roaring.Bitmap, error) {
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
