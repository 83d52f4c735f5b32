package lexical

import (
	"container/list"
	"fmt"
	"math"
	"slices"
	"sort"
	"sync"

	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/scorer"
	segment "github.com/blevesearch/scorch_segment_api/v2"
)

// Block bounds and kept postings: zap keeps no largest score per block
// of a posting list, and decodes a list's postings one by one wherever
// the search advances through it, but a segment never changes once
// written, so the pruned search reads a word's postings in a segment
// once (at its second ask there, see blockCache) and keeps them in memory,
// per segment, field and word, with the bounds of their blocks.
//
// A block is blockSize consecutive document numbers of a segment, the
// same blocks for every word, so the bounds of all the query's words in
// one block add up to a bound on any chunk in it. For each block a word
// keeps the largest BM25 saturation (the term frequency part, see
// saturation) of its postings there, quantized to a byte and rounded up,
// relative to the largest saturation of the word's whole list in the
// segment (itself a bound tighter than saturation's, which holds for any
// count and length); 0 where the word has no posting in the block. The
// postings are kept as the document numbers, counts and norms zap gives,
// so a score computed from them is the one computed from zap's, with
// each one's saturation as a float32, for accumulate's estimates.
//
// The deleted chunks' postings are kept too, and the search skips them,
// so what is kept holds whatever is deleted later. The bounds depend on
// the field's average length, which the collection statistics give (an
// integer, bleve's ceiling), so an entry made for another average is
// made again.

const (
	blockShift = 4 // a block is 16 document numbers
	blockSize  = 1 << blockShift

	// blockCacheBytes is what the kept postings and bounds of one
	// lexical index may hold: 14 bytes a posting, so the postings of
	// some 18 words each in every chunk of a million.
	blockCacheBytes = 256 << 20

	// keepRatio: a word's postings and block bounds are kept in a
	// segment where it is in at least one document in keepRatio. A rarer
	// word costs more in bounds than its postings are worth (16 bytes of
	// bounds a posting and more), it is cheap to read through zap, and
	// where the search stands in its postings already says in which
	// blocks it has none.
	keepRatio = 128
)

// termBlocks are one word's postings and block bounds in one field of
// one segment.
type termBlocks struct {
	avg   float64 // the field's average length they were made for
	scale float64 // the largest saturation of any of the word's postings
	q     []uint8 // per block: ⌈255 · its largest saturation / scale⌉

	docs  []uint32  // the postings' document numbers, ascending
	freqs []uint16  // their counts
	norms []float32 // their field norms
	sats  []float32 // their saturations, rounded: for accumulate's estimates
}

// seek is the first index at or after i whose document is at or after
// doc: a gallop, then a binary search.
func (tb *termBlocks) seek(i int, doc uint32) int {
	if i >= len(tb.docs) || tb.docs[i] >= doc {
		return i
	}
	lo, step := i, 1
	hi := lo + step
	for hi < len(tb.docs) && tb.docs[hi] < doc {
		lo = hi
		step *= 2
		hi = lo + step
	}
	hi = min(hi, len(tb.docs))
	return lo + 1 + sort.Search(hi-lo-1, func(k int) bool { return tb.docs[lo+1+k] >= doc })
}

// blockCache keeps postings and block bounds, the least recently used
// dropped past max bytes, and those of segments a snapshot no longer has.
// A word's are made the second time it is asked of a segment: reading
// all its postings costs about what a whole pruned search does, which a
// process that searches once (braid search) would pay for nothing; and
// a search reads at most a segment's worth (maxScore.setBounds). It is
// safe for concurrent use.
type blockCache struct {
	mu    sync.Mutex
	max   int
	bytes int
	lru   list.List                           // of *blockEntry, the most recent first
	segs  map[uint64]map[string]*list.Element // by segment id, then field and word
	asked map[uint64]map[string]bool          // words asked once, by segment id
	nAsk  int                                 // the words in asked
	// For tests: entries made, blocks skipped, chunks scored and
	// segments accumulated.
	made, skipped, scored, accumulated int
}

// note counts what a search skipped, scored and accumulated.
func (c *blockCache) note(skipped, scored, accumulated int) {
	c.mu.Lock()
	c.skipped += skipped
	c.scored += scored
	c.accumulated += accumulated
	c.mu.Unlock()
}

// maxAsked bounds the words a cache remembers as asked once.
const maxAsked = 1 << 16

type blockEntry struct {
	seg uint64
	key string
	tb  *termBlocks
}

func newBlockCache(max int) *blockCache {
	return &blockCache{max: max, segs: map[uint64]map[string]*list.Element{}, asked: map[uint64]map[string]bool{}}
}

func (c *blockCache) size(tb *termBlocks) int {
	return len(tb.q) + 14*len(tb.docs) + 128
}

// get is the block bounds of word in field of the segment with id seg,
// made for the field's average length avg, or nil.
func (c *blockCache) get(seg uint64, key string, avg float64) *termBlocks {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.segs[seg][key]
	if !ok {
		return nil
	}
	tb := e.Value.(*blockEntry).tb
	if tb.avg != avg {
		return nil
	}
	c.lru.MoveToFront(e)
	return tb
}

// ask says whether word in field (key) was asked of the segment with id
// seg before, and remembers that it was.
func (c *blockCache) ask(seg uint64, key string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := c.asked[seg]
	if m[key] {
		return true
	}
	if c.nAsk >= maxAsked {
		clear(c.asked)
		c.nAsk = 0
	}
	if m == nil {
		m = map[string]bool{}
		c.asked[seg] = m
	}
	m[key] = true
	c.nAsk++
	return false
}

func (c *blockCache) put(seg uint64, key string, tb *termBlocks) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.made++
	m := c.segs[seg]
	if m == nil {
		m = map[string]*list.Element{}
		c.segs[seg] = m
	}
	if e, ok := m[key]; ok {
		c.remove(e)
	}
	m[key] = c.lru.PushFront(&blockEntry{seg: seg, key: key, tb: tb})
	c.bytes += c.size(tb)
	for c.bytes > c.max && c.lru.Len() > 1 {
		c.remove(c.lru.Back())
	}
}

func (c *blockCache) remove(e *list.Element) {
	be := e.Value.(*blockEntry)
	c.lru.Remove(e)
	c.bytes -= c.size(be.tb)
	m := c.segs[be.seg]
	delete(m, be.key)
	if len(m) == 0 {
		delete(c.segs, be.seg)
	}
}

// keep drops the bounds of every segment whose id is not in live: scorch
// numbers a new segment past all before it, so one merged away never
// comes back.
func (c *blockCache) keep(live []uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for seg, m := range c.segs {
		if !slices.Contains(live, seg) {
			for _, e := range m {
				c.remove(e)
			}
		}
	}
	for seg, m := range c.asked {
		if !slices.Contains(live, seg) {
			c.nAsk -= len(m)
			delete(c.asked, seg)
		}
	}
}

// makeBlocks reads every posting of pl, a list of a segment of docs
// documents without the deleted ones taken out, into kept postings and
// block bounds for a field of average length avg.
func makeBlocks(pl segment.PostingsList, docs uint64, avg float64) (*termBlocks, error) {
	maxs := make([]float64, (docs+blockSize-1)>>blockShift)
	n := pl.Count()
	tb := &termBlocks{avg: avg, docs: make([]uint32, 0, n), freqs: make([]uint16, 0, n), norms: make([]float32, 0, n), sats: make([]float32, 0, n)}
	it := pl.Iterator(true, true, false, nil)
	for {
		p, err := it.Next()
		if err != nil {
			return nil, fmt.Errorf("lexical search: read postings: %w", err)
		}
		if p == nil {
			break
		}
		doc, f := p.Number(), p.Frequency()
		if doc >= docs || f > math.MaxUint16 || (len(tb.docs) > 0 && uint32(doc) <= tb.docs[len(tb.docs)-1]) {
			return nil, fmt.Errorf("lexical search: read postings: posting %d (count %d) out of order or past the segment's %d documents: the lexical index is damaged; run braid doctor", doc, f, docs)
		}
		norm := p.Norm()
		s := saturation1(sqrtFreq(f), norm, avg)
		b := doc >> blockShift
		maxs[b] = max(maxs[b], s)
		tb.scale = max(tb.scale, s)
		tb.docs = append(tb.docs, uint32(doc))
		tb.freqs = append(tb.freqs, uint16(f))
		tb.norms = append(tb.norms, float32(norm))
		tb.sats = append(tb.sats, float32(s))
	}
	tb.q = make([]uint8, len(maxs))
	if tb.scale == 0 {
		return tb, nil
	}
	for b, m := range maxs {
		if m == 0 {
			continue
		}
		q := min(math.Ceil(255*m/tb.scale), 255)
		for q < 255 && q*tb.scale/255 < m {
			q++
		}
		tb.q[b] = uint8(max(q, 1))
	}
	return tb, nil
}

// saturation1 is the term frequency part of a score, with tf the square
// root of the count, as bleve's TermQueryScorer computes it (see
// msTerm.scoreOf).
func saturation1(tf, norm, avg float64) float64 {
	fieldLength := 1 / (norm * norm)
	return (tf * search.BM25_k1) / (tf + search.BM25_k1*(1-search.BM25_b+(search.BM25_b*fieldLength/avg)))
}

// sqrtFreq is the square root of a count, as bleve's TermQueryScorer
// takes it.
func sqrtFreq(f uint64) float64 {
	if f < scorer.MaxSqrtCache {
		return scorer.SqrtCache[int(f)]
	}
	return math.Sqrt(float64(f))
}
