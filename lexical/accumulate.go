package lexical

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"
)

// Accumulation: where the Lexical keeps a segment's postings of the
// query's words (blockmax.go), reading every one of them is cheaper than
// MaxScore's loop over the chunks it must score. On braid bench's
// questions at 100k chunks MaxScore with block bounds still scores some
// 12,000 chunks a question, about half a microsecond each (advancing
// each word to the chunk, its bounds, its score), where adding a kept
// posting's estimated score to its chunk's sum costs about a nanosecond,
// and the question's postings, common words and all, are a few hundred
// thousand.
//
// So a segment where the words' postings not kept hold at most
// 1/accumulateUnkept of its chunks is searched term at a time: each
// word's estimated score (its kept saturation, quantized to 16 bits
// and rounded up, times its idf and query weight; a rare word's posting,
// not kept, is scored as score does; a word not kept in the segment but
// common enough, keepRatio, is read and kept then, even at its first
// ask: its postings are read whole anyway) is added to its chunk's sum
// in its field's disjunction, and its matches counted there; each
// chunk's estimate is then the sums with bleve's coordination factors,
// as score combines them. Each word adds at most three float32 roundings
// to an estimate (6e-8 each, of a sum of scores that are never negative)
// and a field's disjunction is accumulated only up to 255 words, so an
// estimate is at least the score less 2e-5 of it, and at most that
// plus over, the sum of the kept words' quantization steps (each
// 1/65535 of the word's largest score in the segment). A chunk whose
// estimate falls below the k-th score so far by more than
// estimateMargin cannot enter the top k, nor one below k other
// estimates of the segment, less over, by more than it; the others, a
// few more than k, are scored as score scores them, from the same counts
// and norms, so the top k and the scores are exactly MaxScore's and
// bleve's. How many chunks matched is counted from the content words'
// posting bitmaps (contentMatches), as MaxScore's loop counts them.
//
// The commonest words hold most of a question's postings and add the
// least to a score (their idf is low). Where a cut is known (the top k
// full from the segments searched before, or the other workers' floor:
// cut), the kept words whose bounds (their largest estimate in the
// segment) sum to at most neShare of the cut are left out of the sums:
// a chunk whose sums without them, plus that sum of bounds, fall short
// of the cut cannot enter, and the few others have those words'
// estimates and counts added one chunk at a time before they are
// weighed (a dense word's kept postings carry a bitmap of its chunks
// with the postings before each 64, so that lookup takes constant
// time). On braid bench's questions at a million chunks the adds to the
// sums took 82% less CPU (docs/benchmarks.md).

const (
	// accumulateUnkept: a segment is accumulated where the query words'
	// postings not kept there (read through zap's iterators, some 25 ns
	// a posting) are at most 1/accumulateUnkept of its chunks.
	accumulateUnkept = 2
	// estimateMargin is above how far a chunk's estimate may be below
	// its score, relative to it (2e-5 at most, see above).
	estimateMargin = 1e-4
)

// accumulators are the sums and match counts of one segment's chunks,
// per field disjunction (group) and chunk: group g's of chunk d at
// g·docs+d.
type accumulators struct {
	sum []float32
	n   []uint8
}

var accPool = sync.Pool{New: func() any { return new(accumulators) }}

// accumulable says whether segment seg, its bounds set (setBounds), is
// best searched by accumulate.
func (ms *maxScore) accumulable(seg int) bool {
	if !ms.blocked || ms.noAccumulate {
		return false
	}
	for _, g := range ms.groups {
		if len(g.terms) > 255 { // counted in a byte
			return false
		}
	}
	var unkept uint64
	for _, t := range ms.terms {
		if t.blocks == nil {
			unkept += t.lists[seg].Count()
		}
	}
	return unkept*accumulateUnkept <= uint64(ms.segs[seg].FullSize())
}

// accumulate searches segment seg term at a time (see above), its
// documents numbered from offset in the index, keep those the filters
// keep (nil without filters), keeping the best chunks in ms.top.
func (ms *maxScore) accumulate(ctx context.Context, seg int, offset uint64, keep *roaring.Bitmap) error {
	ss := ms.segs[seg]
	docs := int(ss.FullSize())
	groups := len(ms.groups)
	a := accPool.Get().(*accumulators)
	defer accPool.Put(a)
	if need := groups * docs; cap(a.sum) < need+addSlack || cap(a.n) < need+addSlack {
		a.sum, a.n = make([]float32, need, need+addSlack), make([]uint8, need, need+addSlack)
	} else {
		a.sum, a.n = a.sum[:need], a.n[:need]
		clear(a.sum)
		clear(a.n)
	}
	// over: above how much an estimate may be over the score, from the
	// kept saturations' quantization (to which estimateMargin adds the
	// float32 roundings).
	over := 0.0
	var keptTerms []*msTerm
	for _, t := range ms.terms {
		if err := ctx.Err(); err != nil {
			return err
		}
		sum, n := a.sum[t.group*docs:(t.group+1)*docs], a.n[t.group*docs:(t.group+1)*docs]
		if t.blocks != nil {
			keptTerms = append(keptTerms, t)
			continue
		}
		pl := t.lists[seg]
		if pl.Count() == 0 {
			continue
		}
		if ms.cache != nil && pl.Count()*keepRatio >= uint64(docs) {
			// Read whole all the same: kept at once (the ask rule
			// spares a search that would not read them).
			tb, err := ms.keepPostings(seg, t)
			if err != nil {
				return err
			}
			t.blocks = tb
			keptTerms = append(keptTerms, t)
			continue
		}
		it := pl.Iterator(true, true, false, nil)
		for {
			p, err := it.Next()
			if err != nil {
				return fmt.Errorf("lexical search: read postings: %w", err)
			}
			if p == nil {
				break
			}
			d := p.Number()
			if d >= uint64(docs) {
				return fmt.Errorf("lexical search: read postings: posting %d past the segment's %d documents: the lexical index is damaged; run braid doctor", d, docs)
			}
			sum[d] += float32(t.scoreOf(p.Frequency(), p.Norm()))
			n[d]++
		}
	}
	// The kept words' postings, a start's 65,536 chunks at a time for
	// every word: that start's sums stay in the core's cache while each
	// word adds to them, where a word at a time would take every sum of
	// a large segment through memory once a word.
	for _, t := range keptTerms {
		over += t.idf * t.weight * t.blocks.satWeight() * (1 + 1e-6)
	}
	// The commonest kept words, ne, are left out of the sums where a cut
	// is known (nonEssential): a chunk's
	// sums without them plus neBound bound its sums with them, so only
	// the chunks that reach the cut that way have those words' estimates
	// and counts added (addAt), one chunk at a time, before they are
	// weighed as every chunk is.
	ne, neBound := ms.nonEssential(keptTerms)
	for h := 0; h<<16 < docs; h++ {
		for _, t := range keptTerms[len(ne):] {
			addStart(t.blocks, h, keptWeight(t), a.sum[t.group*docs:(t.group+1)*docs], a.n[t.group*docs:(t.group+1)*docs])
		}
	}
	nePos := make([]int, len(ne))
	neW := make([]float32, len(ne))
	neSum, neN := make([][]float32, len(ne)), make([][]uint8, len(ne))
	for i, t := range ne {
		neW[i] = keptWeight(t)
		neSum[i], neN[i] = a.sum[t.group*docs:(t.group+1)*docs], a.n[t.group*docs:(t.group+1)*docs]
	}
	// coord[g][m]: group g's coordination factor with m of its words.
	coord := make([][]float64, groups)
	for g, f := range ms.groups {
		coord[g] = make([]float64, len(f.terms)+1)
		for m := range coord[g] {
			coord[g][m] = float64(m) / float64(len(f.terms))
		}
	}
	del := ss.Deleted()
	if del != nil && del.IsEmpty() {
		del = nil
	}
	cut := 0.0 // below it (less the margin) a chunk cannot enter
	if c, ok := ms.cut(); ok {
		cut = c
	}
	var cands []uint32
	var est []float64
	local := topEstimates{k: ms.top.k}
	content, contentN := a.sum[:docs], a.n[:docs]
	var second []float32 // the second group's sums, where there is one
	if groups > 1 {
		second = a.sum[docs : 2*docs]
	}
	// lim32: a chunk whose sums add up below it (float32, rounded by
	// less than 1e-6) falls short of the cut less the margin; the
	// coordination factors are at most 1.
	lim := cut * (1 - estimateMargin)
	lim32 := float32(lim * (1 - 1e-6))
	sumAt := func(d int) float32 {
		up := content[d]
		if second != nil {
			up += second[d]
		}
		for g := 2; g < groups; g++ {
			up += a.sum[g*docs+d]
		}
		return up
	}
	// The chunks are scanned a window at a time for sums that reach the
	// cut (scanSums, with the cut at the window's start: it only rises),
	// and those are weighed one by one.
	win := make([]uint32, 0, scanWindow)
	for w0 := 0; w0 < docs; w0 += scanWindow {
		thr := lim32
		if ne != nil {
			thr = floor32((float64(lim32)*(1-1e-5) - neBound*(1+1e-5)) * (1 - 1e-9))
		}
		win = scanSums(win[:0], a.sum, docs, groups, w0, min(w0+scanWindow, docs), thr)
		for _, d32 := range win {
			d := int(d32)
			var up float32
			nc := contentN[d]
			if ne != nil {
				// A chunk holding none of the other words (its sums 0) falls
				// short as well: neBound is below the cut. The margins are
				// over float32's rounding of the sums.
				if up = sumAt(d); float64(up)+neBound*(1+1e-5) < float64(lim32)*(1-1e-5) {
					continue
				}
				ms.neChecked++
				for i, t := range ne {
					nePos[i] = addAt(t.blocks, nePos[i], uint32(d), neW[i], neSum[i], neN[i])
				}
				if nc = contentN[d]; nc == 0 {
					continue
				}
				up = sumAt(d)
			} else {
				if nc == 0 {
					continue
				}
				up = sumAt(d)
			}
			if up < lim32 {
				continue
			}
			e := float64(content[d]) * coord[0][nc]
			if groups > 1 {
				var should float64
				shouldMatched := 0
				for g := 1; g < groups; g++ {
					if m := a.n[g*docs+d]; m > 0 {
						should += float64(a.sum[g*docs+d]) * coord[g][m]
						shouldMatched++
					}
				}
				if shouldMatched > 0 {
					e += should * (float64(shouldMatched) / float64(groups-1))
				}
			}
			if e < lim || (del != nil && del.Contains(uint32(d))) || (keep != nil && !keep.Contains(uint32(d))) {
				continue
			}
			cands, est = append(cands, uint32(d)), append(est, e)
			if local.offer(e) { // k chunks score at least the k-th estimate, less its rounding and over
				cut = max(cut, local.h[0]*(1-estimateMargin/2)-over)
				lim = cut * (1 - estimateMargin)
				lim32 = float32(lim * (1 - 1e-6))
			}
		}
	}
	// Score the candidates, ascending, as MaxScore scores a chunk.
	for _, t := range ms.terms {
		t.del, t.pos = del, 0
		if t.blocks != nil {
			t.skipDeleted()
			continue
		}
		t.it = t.lists[seg].Iterator(true, true, false, nil)
		if err := t.next(); err != nil {
			return err
		}
	}
	for i, d := range cands {
		if c, ok := ms.cut(); ok {
			cut = max(cut, c)
		}
		if est[i] < cut*(1-estimateMargin) {
			continue
		}
		for _, t := range ms.terms {
			if err := t.advance(uint64(d)); err != nil {
				return err
			}
		}
		score, ok, err := ms.score(uint64(d), 0)
		if err != nil {
			return err
		}
		if ok {
			ms.top.offer(msHit{score: score, seq: offset + uint64(d)})
		}
	}
	return nil
}

// addStart adds each of tb's postings of start h (chunks h·65,536 and
// up), its quantized saturation times ws (the word's idf and query
// weight, times tb.satWeight), to its chunk's sum, and counts it. An
// estimate it adds is over the score by at most ws/65535 (1 + 1e-6),
// its quantization's step.
//
// sum and n must have room (capacity) for addSlack values past their
// length: a start's 65,536 chunks are then addressed as arrays, which a
// posting's low 16 bits index with no bounds check.
func addStart(tb *termBlocks, h int, ws float32, sum []float32, n []uint8) {
	if h+1 >= len(tb.hi) {
		return
	}
	from, to := tb.hi[h], tb.hi[h+1]
	if from == to {
		return
	}
	base := h << 16
	s := (*[addSlack]float32)(sum[base : base+addSlack])
	c := (*[addSlack]uint8)(n[base : base+addSlack])
	lo := tb.lo[from:to]
	sats := tb.sats[from:to]
	sats = sats[:len(lo)]
	for i, d := range lo {
		s[d] += ws * float32(sats[i])
		c[d]++
	}
}

// scanWindow is how many chunks accumulate scans for sums at a time.
const scanWindow = 4096

// scanSums appends to win the chunks from w0 to w1 whose sums over the
// groups (g·docs+d in sum), added in order in float32 as accumulate
// adds them, are at least thr.
func scanSums(win []uint32, sum []float32, docs, groups, w0, w1 int, thr float32) []uint32 {
	switch groups {
	case 1:
		for i, v := range sum[w0:w1] {
			if v >= thr {
				win = append(win, uint32(w0+i))
			}
		}
	case 2:
		c, t := sum[w0:w1], sum[docs+w0:docs+w1]
		t = t[:len(c)]
		for i, v := range c {
			if v+t[i] >= thr {
				win = append(win, uint32(w0+i))
			}
		}
	default:
		for d := w0; d < w1; d++ {
			v := sum[d]
			for g := 1; g < groups; g++ {
				v += sum[g*docs+d]
			}
			if v >= thr {
				win = append(win, uint32(d))
			}
		}
	}
	return win
}

// floor32 is the largest float32 at most x.
func floor32(x float64) float32 {
	f := float32(x)
	if float64(f) > x {
		f = math.Nextafter32(f, float32(math.Inf(-1)))
	}
	return f
}

// keptWeight is what addStart multiplies t's kept saturations by.
func keptWeight(t *msTerm) float32 { return float32(t.idf * t.weight * t.blocks.satWeight()) }

// keptBound is above the most t's estimate adds to a chunk's sum (a
// quantized saturation is at most 65,535), float32's rounding included.
func keptBound(t *msTerm) float64 {
	return float64(keptWeight(t)) * math.MaxUint16 * (1 + 1e-6)
}

// nonEssential sorts kept, the kept words of a segment, by their bounds
// (keptBound), smallest first, and says how many of the first, ne,
// accumulate leaves out of its sums at first: those whose bounds sum to
// at most neShare of the cut less its margin, a cut being known; at
// least one word stays. None where no cut is known.
func (ms *maxScore) nonEssential(kept []*msTerm) (ne []*msTerm, bound float64) {
	cut, ok := ms.cut()
	if !ok || len(kept) < 2 || ms.noSplit {
		return nil, 0
	}
	slices.SortStableFunc(kept, func(a, b *msTerm) int { return cmp.Compare(keptBound(a), keptBound(b)) })
	lim := cut * (1 - estimateMargin) * neShare
	n := 0
	for _, t := range kept[:len(kept)-1] {
		b := keptBound(t)
		if bound+b > lim {
			break
		}
		bound += b
		n++
	}
	if n == 0 {
		return nil, 0
	}
	return kept[:n], bound
}

// neShare is the share of the cut the words accumulate leaves out may
// reach together: the higher, the more words left out, and the more
// chunks whose sums without them reach the cut less theirs.
const neShare = 0.5

// addAt adds tb's estimate at chunk d, where it has a posting there, to
// sum[d] and counts it in n[d], as addStart would, seeking from posting
// i (d ascending from one call to the next); it returns where it got
// to.
func addAt(tb *termBlocks, i int, d uint32, ws float32, sum []float32, n []uint8) int {
	if tb.has != nil {
		w := d >> 6
		if int(w) >= len(tb.has) {
			return i
		}
		b, m := tb.has[w], uint64(1)<<(d&63)
		if b&m != 0 {
			j := int(tb.hi[d>>16]) + int(tb.rank[w]) + bits.OnesCount64(b&(m-1))
			sum[d] += ws * float32(tb.sats[j])
			n[d]++
		}
		return i
	}
	i = tb.seek(i, d)
	if h := int(d >> 16); h+1 < len(tb.hi) && i < int(tb.hi[h+1]) && tb.lo[i] == uint16(d) {
		sum[d] += ws * float32(tb.sats[i])
		n[d]++
	}
	return i
}

// addSlack is the room past the accumulators that add needs: one start's
// chunks (a posting's low 16 bits).
const addSlack = 1 << 16

// topEstimates keeps the k largest estimates offered, the smallest at
// the root.
type topEstimates struct {
	k int
	h []float64
}

// offer keeps e where it is among the k largest, and says whether the
// k are full after it.
func (t *topEstimates) offer(e float64) bool {
	if len(t.h) < t.k {
		t.h = append(t.h, e)
		for i := len(t.h) - 1; i > 0; {
			p := (i - 1) / 2
			if t.h[p] <= t.h[i] {
				break
			}
			t.h[i], t.h[p] = t.h[p], t.h[i]
			i = p
		}
		return len(t.h) == t.k
	}
	if e <= t.h[0] {
		return true
	}
	t.h[0] = e
	for i := 0; ; {
		c := 2*i + 1
		if c >= len(t.h) {
			break
		}
		if c+1 < len(t.h) && t.h[c+1] < t.h[c] {
			c++
		}
		if t.h[i] <= t.h[c] {
			break
		}
		t.h[i], t.h[c] = t.h[c], t.h[i]
		i = c
	}
	return true
}

// keepPostings reads t's postings in segment seg into kept postings and
// block bounds (makeBlocks), and keeps them.
func (ms *maxScore) keepPostings(seg int, t *msTerm) (*termBlocks, error) {
	ss := ms.segs[seg]
	field := ms.groups[t.group].field
	d, err := ss.Segment().Dictionary(field)
	if err != nil {
		return nil, fmt.Errorf("lexical search: %w", err)
	}
	pl, err := d.PostingsList(t.word, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("lexical search: %w", err)
	}
	docs := uint64(ss.FullSize())
	tb, err := makeBlocks(pl, docs, t.avg, ms.cache.fieldNorms(ss.Id(), field, docs))
	if err != nil {
		return nil, err
	}
	ms.cache.put(ss.Id(), field+"\x00"+string(t.word), tb)
	return tb, nil
}
