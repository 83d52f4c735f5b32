package lexical

import (
	"container/list"
	"fmt"
	"math"
	"math/bits"
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
// postings are kept as the document numbers, counts and norms zap gives
// (5 bytes a posting, see termBlocks; the norms once per segment and
// field), so a score computed from them is the one computed from zap's,
// with each one's saturation quantized to 16 bits, rounded up, for
// accumulate's estimates.
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
	// lexical index may hold: 5 bytes a posting (and 4 a chunk for a
	// field's norms, 0.16 for a dense word's rank bitmap), so the
	// postings of some 60 words each in every chunk of a million; braid
	// bench's 100 questions in words at a million keep 272 MB. At 14
	// bytes a posting (before) they did not fit, and each pass read most
	// of them again.
	blockCacheBytes = 320 << 20

	// keepRatio: a word's postings and block bounds are kept in a
	// segment where it is in at least one document in keepRatio. A rarer
	// word costs more in bounds than its postings are worth (16 bytes of
	// bounds a posting and more), it is cheap to read through zap, and
	// where the search stands in its postings already says in which
	// blocks it has none.
	keepRatio = 128
)

// termBlocks are one word's postings and block bounds in one field of
// one segment, 5 bytes a posting: a document number's low 16 bits (its
// high ones by where the posting stands, hi), its count in a byte and its
// saturation quantized to 16 bits. The field's norms are the segment's
// (a norm is the field's length in the chunk, whatever the word:
// fieldNorms), kept once for all its words.
type termBlocks struct {
	avg   float64 // the field's average length they were made for
	scale float64 // the largest saturation of any of the word's postings
	q     []uint8 // per block: ⌈255 · its largest saturation / scale⌉

	// The postings' document numbers, ascending: posting i's is
	// h<<16 | lo[i] for the h where hi[h] <= i < hi[h+1].
	lo []uint16
	hi []int32
	// freqs are their counts, satFreq for satFreq and more: then the
	// count is in big, by posting.
	freqs []uint8
	big   map[int32]uint32
	// sats are their saturations, ⌈65535 · saturation / scale⌉, for
	// accumulate's estimates: above the saturation, by less than
	// scale/65535.
	sats []uint16
	// norms are the field's norms in the segment, by document; own
	// where a norm of the word's differed from the segment's (never
	// seen: a safeguard), by posting.
	norms *fieldNorms
	own   []float32
	// For a word in at least one document in rankRatio, where its
	// postings are: bit d&63 of has[d>>6] is set where document d holds
	// it, and the postings of its start before the word has[w] are
	// rank[w] (relative to hi), so accumulate finds a posting of the
	// word at a chunk in constant time (addAt). Nil for a rarer word.
	has  []uint64
	rank []uint16
}

// rankRatio: a word's kept postings have has and rank (termBlocks) where
// it is in at least one document in rankRatio: they cost 0.16 bytes a
// document, some 30% over the postings at the least.
const rankRatio = 8

// satFreq is the byte count that stands for itself and every larger
// one.
const satFreq = math.MaxUint8

func (tb *termBlocks) len() int { return len(tb.lo) }

// high is the high 16 bits of posting i's document number.
func (tb *termBlocks) high(i int) uint32 {
	h := sort.Search(len(tb.hi)-1, func(h int) bool { return tb.hi[h+1] > int32(i) })
	return uint32(h)
}

// doc is posting i's document number.
func (tb *termBlocks) doc(i int) uint32 { return tb.high(i)<<16 | uint32(tb.lo[i]) }

// freq is posting i's count.
func (tb *termBlocks) freq(i int) uint64 {
	if f := tb.freqs[i]; f < satFreq {
		return uint64(f)
	}
	return uint64(tb.big[int32(i)])
}

// norm is posting i's field norm.
func (tb *termBlocks) norm(i int) float64 {
	if tb.own != nil {
		return float64(tb.own[i])
	}
	return float64(tb.norms.n[tb.doc(i)])
}

// satWeight is what a quantized saturation is multiplied by to be one.
func (tb *termBlocks) satWeight() float64 { return tb.scale / math.MaxUint16 }

// seek is the first index at or after i whose document is at or after
// doc: within doc's high 16 bits, a gallop, then a binary search.
func (tb *termBlocks) seek(i int, doc uint32) int {
	h := int(doc >> 16)
	if h+1 >= len(tb.hi) {
		return max(i, tb.len())
	}
	lo, end := max(i, int(tb.hi[h])), int(tb.hi[h+1])
	target := uint16(doc)
	if lo >= end || tb.lo[lo] >= target {
		return lo
	}
	step := 1
	hi := lo + step
	for hi < end && tb.lo[hi] < target {
		lo = hi
		step *= 2
		hi = lo + step
	}
	hi = min(hi, end)
	return lo + 1 + sort.Search(hi-lo-1, func(k int) bool { return tb.lo[lo+1+k] >= target })
}

// fieldNorms are one field's norms in one segment, by document, 0 where
// no word kept yet read the document's. Only a 0 is written (under mu),
// so a kept word's, written before it is kept, are read without it.
type fieldNorms struct {
	mu sync.Mutex
	n  []float32
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
	norms map[uint64]map[string]*fieldNorms   // by segment id, then field
	asked map[uint64]map[string]bool          // words asked once, by segment id
	nAsk  int                                 // the words in asked
	// For tests: entries made and dropped past max, blocks skipped,
	// chunks scored and segments accumulated.
	made, evicted, skipped, scored, accumulated, neChecked int
}

// note counts what a search skipped, scored and accumulated.
func (c *blockCache) note(skipped, scored, accumulated, neChecked int) {
	c.mu.Lock()
	c.neChecked += neChecked
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
	return &blockCache{max: max, segs: map[uint64]map[string]*list.Element{}, norms: map[uint64]map[string]*fieldNorms{}, asked: map[uint64]map[string]bool{}}
}

func (c *blockCache) size(tb *termBlocks) int {
	return len(tb.q) + 5*tb.len() + 4*len(tb.hi) + 4*len(tb.own) + 16*len(tb.big) + 8*len(tb.has) + 2*len(tb.rank) + 128
}

// fieldNorms is the norms of field in the segment with id seg, of docs
// documents, made empty (and counted in the bytes) the first time.
func (c *blockCache) fieldNorms(seg uint64, field string, docs uint64) *fieldNorms {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := c.norms[seg]
	if m == nil {
		m = map[string]*fieldNorms{}
		c.norms[seg] = m
	}
	fn := m[field]
	if fn == nil {
		fn = &fieldNorms{n: make([]float32, docs)}
		m[field] = fn
		c.bytes += 4 * int(docs)
	}
	return fn
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
		c.evicted++
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
	for seg, m := range c.norms {
		if !slices.Contains(live, seg) {
			for _, fn := range m {
				c.bytes -= 4 * len(fn.n)
			}
			delete(c.norms, seg)
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
// block bounds for a field of average length avg, its norms into norms.
func makeBlocks(pl segment.PostingsList, docs uint64, avg float64, norms *fieldNorms) (*termBlocks, error) {
	if docs > math.MaxUint32 {
		return nil, fmt.Errorf("lexical search: a segment of %d documents, past 2^32: the lexical index is damaged; run braid doctor", docs)
	}
	maxs := make([]float64, (docs+blockSize-1)>>blockShift)
	n := pl.Count()
	tb := &termBlocks{avg: avg, norms: norms, lo: make([]uint16, 0, n), hi: make([]int32, 1, (docs+0xffff)>>16+1),
		freqs: make([]uint8, 0, n), sats: make([]uint16, 0, n)}
	sp := satsPool.Get().(*[]float64)
	defer satsPool.Put(sp)
	satsF := (*sp)[:0]
	last := int64(-1)
	norms.mu.Lock()
	defer norms.mu.Unlock()
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
		if doc >= docs || f > math.MaxUint32 || int64(doc) <= last || len(tb.lo) >= math.MaxInt32 {
			return nil, fmt.Errorf("lexical search: read postings: posting %d (count %d) out of order or past the segment's %d documents: the lexical index is damaged; run braid doctor", doc, f, docs)
		}
		last = int64(doc)
		norm := p.Norm()
		s := saturation1(sqrtFreq(f), norm, avg)
		b := doc >> blockShift
		maxs[b] = max(maxs[b], s)
		tb.scale = max(tb.scale, s)
		for h := doc >> 16; uint64(len(tb.hi)) <= h; {
			tb.hi = append(tb.hi, int32(len(tb.lo)))
		}
		nf := float32(norm)
		switch m := norms.n[doc]; {
		case tb.own != nil:
			tb.own = append(tb.own, nf)
		case m == 0:
			norms.n[doc] = nf
		case m != nf: // the postings so far agree with the segment's
			tb.own = make([]float32, len(tb.lo), n)
			for j := range tb.own {
				tb.own[j] = norms.n[tb.doc(j)]
			}
			tb.own = append(tb.own, nf)
		}
		if f >= satFreq {
			if tb.big == nil {
				tb.big = map[int32]uint32{}
			}
			tb.big[int32(len(tb.lo))] = uint32(f)
		}
		tb.lo = append(tb.lo, uint16(doc))
		tb.freqs = append(tb.freqs, uint8(min(f, satFreq)))
		satsF = append(satsF, s)
	}
	*sp = satsF
	for uint64(len(tb.hi)) <= (docs+0xffff)>>16 {
		tb.hi = append(tb.hi, int32(len(tb.lo)))
	}
	tb.q = make([]uint8, len(maxs))
	for _, s := range satsF {
		tb.sats = append(tb.sats, quantize(s, tb.scale, math.MaxUint16))
	}
	if n*rankRatio >= docs {
		tb.has, tb.rank = make([]uint64, (docs+63)>>6), make([]uint16, (docs+63)>>6)
		for h := 0; h+1 < len(tb.hi); h++ {
			has := tb.has[h<<10:]
			for _, lo := range tb.lo[tb.hi[h]:tb.hi[h+1]] {
				has[lo>>6] |= 1 << (lo & 63)
			}
		}
		r := 0
		for w, b := range tb.has {
			if w&(1<<10-1) == 0 {
				r = 0 // a start's first word
			}
			tb.rank[w] = uint16(r)
			r += bits.OnesCount64(b)
		}
	}
	if tb.scale == 0 {
		return tb, nil
	}
	for b, m := range maxs {
		if m != 0 {
			tb.q[b] = uint8(max(quantize(m, tb.scale, 255), 1))
		}
	}
	return tb, nil
}

// satsPool holds makeBlocks' saturations before they are quantized.
var satsPool = sync.Pool{New: func() any { return new([]float64) }}

// quantize is ⌈top · s / scale⌉, at most top, made large enough that
// it times scale/top is not below s in float64.
func quantize(s, scale float64, top uint16) uint16 {
	if scale == 0 {
		return 0
	}
	t := float64(top)
	q := min(math.Ceil(t*s/scale), t)
	for q < t && q*scale/t < s {
		q++
	}
	return uint16(q)
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
