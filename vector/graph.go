package vector

import (
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/braidsearch/braid/internal/half"
	"github.com/viterin/vek/vek32"
)

// none marks the absence of a node (no entry point yet).
const none = math.MaxUint32

// maxLevel caps the layer a node can be drawn into; with M=16 a level above
// 12 needs more nodes than fit in memory.
const maxLevel = 16

// graph is the HNSW graph proper: nodes are dense uint32 slots, vectors sit
// in one flat slice, and deleted nodes stay as tombstones (still walked
// through, never returned) until the Index rebuilds the graph. It has no
// locking of its own; Index guards it.
//
// Layer 0, where every node is, keeps each node's links as a row of
// stride = 2m+1 uint32s: the count, then the slots. The rows of a graph
// loaded from a version 3 file stay in the file, mapped (base), and a row
// that changes since is copied to the heap first (over), so the mapped
// file is never written; the rows of nodes added since, or of a graph
// built or decoded in memory, are in rows. The few nodes above layer 0
// (about one in m) keep those layers in up. Read links through
// neighbours, write them through setLinks and connect.
type graph struct {
	dim int
	m   int // max links per node above layer 0; layer 0 keeps 2m
	efc int // candidate list size while inserting
	ml  float64
	// The vectors (quant.go): a slot's full precision, fp16 (read to
	// rescore, to rebuild and by Vector), and its code (read by the walks
	// of a search and of a link, and by the neighbour heuristic). The
	// first filed slots' vectors lie in the file Load mapped: half, a
	// version 4 file's fp16 values, or vecs, a version 2 or 3 file's
	// float32s (rounded to fp16 as they are read), and a version 4 file's
	// codes are code, ncode rows of codeBytes(dim). The vectors of the
	// slots after them are in tail as fp16 values too (half the room of
	// float32s), and their codes in ctail (see pages): all of them in a
	// graph built in memory, and in one Load mapped those a change log
	// added and those added since (appendVec). The mapped ones
	// never move into memory: they never change, and the file is only ever
	// replaced by a rename, which leaves the mapping as it was.
	half   []uint16
	vecs   []float32
	filed  int
	tail   pages[uint16]
	code   []byte
	ncode  int
	ctail  pages[byte]
	cbytes int // codeBytes(dim)
	// mapped holds the file half, vecs and code (and base, and the
	// Index's ids) are mapped from (Load), nil when they are in memory;
	// vecOff is where the vectors start in a version 2 file.
	mapped *mapping
	vecOff int64
	// pread, set by a Load with Options.Pread, is the mapped file as a
	// search reads it instead (pread.go); nil otherwise.
	pread *fileReads
	// format is the version of the file the graph was decoded from, 0
	// for one built in memory.
	format uint32
	// saved is the number of slots the graph's file (and its log) hold;
	// dirty marks those of them whose links or tombstone changed since,
	// for the next Save to append (log.go). nil: none did.
	saved int
	dirty []uint64
	nodes int // slots, tombstones included
	// base holds the layer-0 rows of the first nbase slots, mapped from a
	// version 3 file and never written; over their copies on the heap once
	// changed (nil until one is); rows those of the slots from nbase on.
	// A row in base is the file's, so it is read with care: its count is
	// clamped to the row and a link past the graph is skipped (walk).
	base  []uint32
	nbase int
	over  *overlay
	rows  pages[uint32]         // see pages
	up    map[uint32][][]uint32 // layers 1..level of the nodes above layer 0
	dead  []uint64              // tombstones, a bit a slot
	entry uint32
	top   int // layer of the entry point
	live  int
	// rng state for level draws (splitmix64): deterministic per graph.
	seed uint64
	pool sync.Pool // *walk
	// lk guards the link lists while addBatch links nodes from several
	// goroutines, and entryMu the entry point; lk is nil otherwise, when
	// the Index's lock alone keeps the graph consistent.
	lk      *stripes
	entryMu sync.Mutex
}

// nstripes is the number of stripes of a parallel addBatch's locks, and of
// shards of the overlay: node i's lists, and its overlay row, are guarded
// by stripe i mod nstripes, so the workers never share a shard's map.
const nstripes = 1024

// stripes are the locks of the link lists during a parallel addBatch.
type stripes [nstripes]sync.Mutex

func (s *stripes) of(n uint32) *sync.Mutex { return &s[n%nstripes] }

// overlay holds the layer-0 rows of mapped nodes that changed since
// Load, slot → row, in shard slot mod nstripes.
type overlay [nstripes]map[uint32][]uint32

func newGraph(dim, m, efc int) *graph {
	return &graph{dim: dim, m: m, efc: efc, cbytes: codeBytes(dim), ml: 1 / math.Log(float64(m)), entry: none, seed: 0x9e3779b97f4a7c15, up: map[uint32][][]uint32{}}
}

func (g *graph) size() int { return g.nodes }

// stride is the length of a layer-0 row: the count and 2m links.
func (g *graph) stride() int { return 2*g.m + 1 }

// isDead says whether slot s is a tombstone.
func (g *graph) isDead(s uint32) bool { return g.dead[s/64]&(1<<(s%64)) != 0 }

func (g *graph) setDead(s uint32) { g.dead[s/64] |= 1 << (s % 64) }

// level is the top layer of node n.
func (g *graph) level(n uint32) int { return len(g.up[n]) }

// row0 is node n's layer-0 row (count, then links) as it is now: its copy
// in the overlay, its mapped row, or its row in memory.
func (g *graph) row0(n uint32) []uint32 {
	st := g.stride()
	if int(n) < g.nbase {
		if g.over != nil {
			if r, ok := g.over[n%nstripes][n]; ok {
				return r
			}
		}
		return g.base[int(n)*st : (int(n)+1)*st]
	}
	return g.rows.at(int(n)-g.nbase, st)
}

// links returns node n's links on layer l, without copying: nil when n
// is not on layer l. A mapped row's count is clamped to the row.
func (g *graph) links(n uint32, l int) []uint32 {
	if l > 0 {
		if ls := g.up[n]; len(ls) >= l {
			return ls[l-1]
		}
		return nil
	}
	r := g.row0(n)
	return r[1 : 1+min(int(r[0]), len(r)-1)]
}

// writableRow0 is node n's layer-0 row to change in place: a mapped row
// is copied to the overlay first, keeping only the links that name a
// node of the file (a damaged file's others are dropped, as walks skip
// them); with keep false the caller sets every link itself (setLinks),
// so the mapped row is not read and the copy holds none.
func (g *graph) writableRow0(n uint32, keep bool) []uint32 {
	if int(n) >= g.nbase {
		return g.row0(n)
	}
	if g.over == nil {
		g.over = new(overlay) // a parallel addBatch makes it before it starts
	}
	sh := &g.over[n%nstripes]
	if r, ok := (*sh)[n]; ok {
		return r
	}
	if *sh == nil {
		*sh = map[uint32][]uint32{}
	}
	st := g.stride()
	r := make([]uint32, st)
	if keep {
		src := g.base[int(n)*st : (int(n)+1)*st]
		c := 0
		for _, t := range src[1 : 1+min(int(src[0]), st-1)] {
			if int(t) < g.nbase {
				r[1+c] = t
				c++
			}
		}
		r[0] = uint32(c)
	}
	(*sh)[n] = r
	return r
}

// setLinks makes ls node n's links on layer l; n must reach layer l and
// ls hold at most maxLinks(l).
func (g *graph) setLinks(n uint32, l int, ls []uint32) {
	if l > 0 {
		g.up[n][l-1] = append(g.up[n][l-1][:0], ls...)
		return
	}
	r := g.writableRow0(n, false)
	r[0] = uint32(copy(r[1:], ls))
}

// grow appends a node drawn into layers 0..level, with no links, as a
// live node.
func (g *graph) grow(level int) {
	n := uint32(g.nodes)
	g.nodes++
	g.rows.grow(g.stride())
	if n%64 == 0 {
		g.dead = append(g.dead, 0)
	}
	if level > 0 {
		ls := make([][]uint32, level)
		for l := range ls {
			ls[l] = make([]uint32, 0, g.m+1)
		}
		g.up[n] = ls
	}
}

// vec is slot i's vector at full precision (fp16, as float32s), decoded
// into buf (allocated when short).
func (g *graph) vec(i uint32, buf []float32) []float32 {
	if len(buf) < g.dim {
		buf = make([]float32, g.dim)
	}
	buf = buf[:g.dim]
	if h := g.halfOf(i); h != nil {
		fromHalfs(buf, h)
	} else {
		o := int(i) * g.dim
		roundHalfs(buf, g.vecs[o:o+g.dim])
	}
	return buf
}

// halfOf is slot i's fp16 values, in memory or mapped; nil for a slot of
// a version 2 or 3 file, whose float32s are mapped (vecs).
func (g *graph) halfOf(i uint32) []uint16 {
	if int(i) >= g.filed {
		return g.tail.at(int(i)-g.filed, g.dim)
	}
	if g.half == nil {
		return nil
	}
	o := int(i) * g.dim
	return g.half[o : o+g.dim]
}

// quantizeFiled makes the codes of the filed slots, in ctail: those of a
// file of a version before codes.
func (g *graph) quantizeFiled() {
	buf := make([]float32, g.dim)
	for s := range uint32(g.filed) {
		quantize(g.ctail.grow(g.cbytes), g.vec(s, buf))
	}
}

// codeOf is slot i's code (codeBytes(dim) bytes).
func (g *graph) codeOf(i uint32) []byte {
	if int(i) < g.ncode {
		o := int(i) * g.cbytes
		return g.code[o : o+g.cbytes]
	}
	return g.ctail.at(int(i)-g.ncode, g.cbytes)
}

// touch records that slot s's links or tombstone changed, for the next
// Save: a slot past saved is new and written whole anyway.
func (g *graph) touch(s uint32) {
	if int(s) >= g.saved {
		return
	}
	g.makeDirty()
	// Atomic: addBatch's workers touch nodes of one word under different
	// stripes' locks (it makes dirty before they start).
	atomic.OrUint64(&g.dirty[s/64], 1<<(s%64))
}

// makeDirty makes the bitmap touch marks, one bit a saved slot, unless
// there is one.
func (g *graph) makeDirty() {
	if g.saved > 0 && g.dirty == nil {
		g.dirty = make([]uint64, (g.saved+63)/64)
	}
}

// isDirty says whether touch marked slot s since the last save.
func (g *graph) isDirty(s int) bool {
	return s < g.saved && g.dirty != nil && g.dirty[s/64]&(1<<(s%64)) != 0
}

// probe is what a walk measures distances from: a code (c, its scale
// s), a query's in a search, the node's own while linking it (ownProbe);
// rd, a search's of a graph loaded with Options.Pread, reads the file's
// nodes (pread.go). A probe is one goroutine's.
type probe struct {
	c  []int8
	s  float32
	rd *reads
}

// ownProbe probes from slot n's own code, as a search's walk probes from
// a query's: an insert measures its candidates, and the neighbour
// heuristic their pairs, by codes (dist).
func (g *graph) ownProbe(n uint32) probe {
	c := g.codeOf(n)
	return probe{c: int8s(c[:g.dim]), s: codeScale(c, g.dim)}
}

// codeProbe probes from q's code.
func (g *graph) codeProbe(q []float32) *probe {
	c := make([]byte, g.cbytes)
	quantize(c, q)
	p := &probe{c: int8s(c[:g.dim]), s: codeScale(c, g.dim)}
	if g.pread != nil {
		p.rd = g.newReads()
	}
	return p
}

// fetch asks for what dist(p, i) will read ahead of the call (prefetch).
func (g *graph) fetch(p *probe, i uint32) {
	if p.rd != nil {
		return // a Pread graph reads, and must not touch the mapping
	}
	c := g.codeOf(i)
	prefetch(unsafe.Pointer(&c[0]), len(c))
}

// fetchRow asks for node n's layer-0 row ahead of its use: the links a
// walk reads next. Above layer 0 it does nothing (those layers are few
// and small), nor on a Pread graph.
func (g *graph) fetchRow(n uint32, l int) {
	if l > 0 || int(n) >= g.nodes || g.pread != nil {
		return
	}
	var r []uint32
	if int(n) < g.nbase {
		if g.over != nil {
			return // the overlay's map is read under the node's lock
		}
		r = g.base[int(n)*g.stride() : (int(n)+1)*g.stride()]
	} else {
		r = g.rows.at(int(n)-g.nbase, g.stride())
	}
	prefetch(unsafe.Pointer(&r[0]), 4*len(r))
}

// dist is the negated dot product of p's code and node i's: lower is
// nearer, and for unit vectors -dist is about the cosine similarity,
// without rounding through 1-dot.
func (g *graph) dist(p *probe, i uint32) float32 {
	var c []byte
	if p.rd != nil && int(i) < g.ncode {
		if c = p.rd.code(g, i); c == nil {
			return float32(math.Inf(1)) // not read: Search fails
		}
	} else {
		c = g.codeOf(i)
	}
	return -float32(dotInt8(p.c, int8s(c[:g.dim]))) * p.s * codeScale(c, g.dim)
}

// dists appends dist(p, i) for each of ids to ds.
func (g *graph) dists(p *probe, ids []uint32, ds []float32) []float32 {
	for _, i := range ids {
		ds = append(ds, g.dist(p, i))
	}
	return ds
}

func (g *graph) maxLinks(layer int) int {
	if layer == 0 {
		return 2 * g.m
	}
	return g.m
}

// randomLevel draws a node's top layer from the geometric distribution of
// the HNSW paper, floor(-ln(U)·mL) with mL = 1/ln(M).
func (g *graph) randomLevel() int {
	g.seed += 0x9e3779b97f4a7c15
	z := g.seed
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	z ^= z >> 31
	u := (float64(z>>11) + 0.5) / (1 << 53) // in (0, 1)
	return min(int(-math.Log(u)*g.ml), maxLevel)
}

// parallelFrom is the smallest batch addBatch links from several
// goroutines: below it, starting them costs more than it saves.
const parallelFrom = 64

// addBatch appends nodes holding vs (unit length, len dim each) and links
// them in, from up to workers goroutines, returning the first one's slot
// (the others follow in order). Every node is appended, with its level
// drawn, before any is linked, so one worker builds exactly the graph
// that adding them one at a time would. Several workers link nodes
// concurrently, as hnswlib does, each link list under its stripe's lock:
// a node can then find a neighbour of its batch before or after that one
// is linked, so the graph depends on the scheduling, and its quality does
// not (TestRecall).
func (g *graph) addBatch(vs [][]float32, workers int) uint32 {
	first := uint32(g.size())
	levels := make([]int, len(vs))
	buf := make([]float32, g.dim)
	for i, v := range vs {
		levels[i] = g.randomLevel()
		g.appendVec(v, buf)
		g.grow(levels[i])
	}
	g.live += len(vs)
	if workers <= 1 || len(vs) < parallelFrom {
		for i, level := range levels {
			g.link(first+uint32(i), level)
		}
		return first
	}
	g.makeDirty()
	if g.nbase > 0 && g.over == nil {
		g.over = new(overlay) // the workers fill its shards, not the array
	}
	g.lk = new(stripes)
	defer func() { g.lk = nil }()
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(workers, len(vs)) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(vs) {
					return
				}
				g.link(first+uint32(i), levels[i])
			}
		})
	}
	wg.Wait()
	return first
}

// appendVec stores the vector of a new slot in tail, in fp16, and its
// code, made from the rounded vector (decoded into buf, dim values), in
// ctail.
func (g *graph) appendVec(v []float32, buf []float32) {
	h := g.tail.grow(g.dim)
	for i, f := range v {
		h[i] = half.To(f)
	}
	buf = buf[:g.dim]
	fromHalfs(buf, h)
	quantize(g.ctail.grow(g.cbytes), buf)
}

// neighbours returns node n's links on layer l: the list itself, or a copy
// into buf taken under the node's lock while addBatch links in parallel.
// A link of a mapped row can name a slot past the graph (a damaged file):
// the walks skip those.
func (g *graph) neighbours(n uint32, l int, buf []uint32) []uint32 {
	if g.lk == nil {
		return g.links(n, l)
	}
	mu := g.lk.of(n)
	mu.Lock()
	buf = append(buf[:0], g.links(n, l)...)
	mu.Unlock()
	return buf
}

// link wires an appended node into every layer up to level.
func (g *graph) link(slot uint32, level int) {
	g.entryMu.Lock()
	entry, top := g.entry, g.top
	if entry == none {
		g.entry, g.top = slot, level
		g.entryMu.Unlock()
		return
	}
	g.entryMu.Unlock()
	w := g.walk()
	defer g.pool.Put(w)
	own := g.ownProbe(slot)
	q := &own
	ep := cand{entry, g.dist(q, entry)}
	for l := top; l > level; l-- {
		ep = g.greedy(w, q, ep, l)
	}
	// Every layer's neighbours are chosen, and the node's own lists set,
	// before any neighbour links back: until then no other node can reach
	// it, so a concurrent insert never walks into its lists half made (and
	// never has its link to it overwritten). Serially this is the paper's
	// order: a layer's back links do not change the search of the next.
	picks := make([][]uint32, min(level, top)+1)
	for l := len(picks) - 1; l >= 0; l-- {
		found := g.searchLayer(w, q, ep, g.efc, l, true)
		if len(found) == 0 {
			// Every node near the entry is a tombstone: link to them anyway
			// rather than leave the node unreachable.
			found = g.searchLayer(w, q, ep, g.efc, l, false)
		}
		ep = found[0]
		picks[l] = g.selectNeighbors(found, g.m)
	}
	if g.lk != nil {
		g.lk.of(slot).Lock()
	}
	for l, nbrs := range picks {
		g.setLinks(slot, l, nbrs)
	}
	if g.lk != nil {
		g.lk.of(slot).Unlock()
	}
	for l := len(picks) - 1; l >= 0; l-- {
		for _, n := range picks[l] {
			g.connect(w, n, slot, l)
		}
	}
	if level > top {
		g.entryMu.Lock()
		if level > g.top {
			g.entry, g.top = slot, level
		}
		g.entryMu.Unlock()
	}
}

// connect adds the edge from→to on layer l, pruning from's list with the
// neighbour heuristic when it overflows.
func (g *graph) connect(w *walk, from, to uint32, l int) {
	if g.lk != nil {
		mu := g.lk.of(from)
		mu.Lock()
		defer mu.Unlock()
	}
	g.touch(from)
	if l == 0 {
		r := g.writableRow0(from, true)
		c := int(r[0])
		if c < g.maxLinks(0) {
			r[1+c] = to
			r[0]++
			return
		}
		w.ids = append(append(w.ids[:0], r[1:1+c]...), to)
		g.prune(w, from, l, w.ids)
		return
	}
	ls := append(g.up[from][l-1], to)
	if len(ls) <= g.maxLinks(l) {
		g.up[from][l-1] = ls
		return
	}
	g.prune(w, from, l, ls)
}

// prune makes node n's links on layer l the best maxLinks(l) of ls by the
// neighbour heuristic (selectNeighbors). ls is the links n had and one
// more (connect), so the heuristic leaves one out: which, leftOut finds
// with a fraction of the distances selectNeighbors would measure. w is
// room to work in; ls may be its ids.
func (g *graph) prune(w *walk, n uint32, l int, ls []uint32) {
	own := g.ownProbe(n)
	q := &own
	for _, t := range ls {
		g.fetch(q, t)
	}
	w.ds = g.dists(q, ls, w.ds[:0])
	cs := w.cands[:0]
	for i, t := range ls {
		cs = append(cs, cand{t, w.ds[i]})
	}
	w.cands = cs
	slices.SortFunc(cs, cmpCand)
	m := g.maxLinks(l)
	if len(cs) != m+1 {
		g.setLinks(n, l, g.selectNeighbors(cs, m))
		return
	}
	drop := g.leftOut(cs)
	out := w.ids[:0] // ls's copy, no longer read
	for i, c := range cs {
		if i != drop {
			out = append(out, c.id)
		}
	}
	w.ids = out
	g.setLinks(n, l, out)
}

// leftOut is the candidate selectNeighbors(cs, len(cs)-1) leaves out, cs
// sorted nearest first. selectNeighbors keeps a candidate when no kept
// one before it is nearer to it than the base is, stops at len(cs)-1
// kept, and fills up with the rejected, nearest first: so what it leaves
// out is the farthest rejected candidate, or the farthest of all when
// none is rejected. leftOut asks whether each candidate is kept from the
// farthest down, and for one, only about those before it that are
// nearer to it than the base (kept, memoised): the same answer, from the
// same distances measured the same way, without measuring every kept
// pair. prune links the rest nearest first: a walk finds the same nodes
// whatever the order of a row (but for ties of distance).
func (g *graph) leftOut(cs []cand) int {
	n := len(cs)
	const (
		unknown = iota
		kept
		rejected
	)
	state := make([]uint8, n)
	var isKept func(i int) bool
	isKept = func(i int) bool {
		if state[i] != unknown {
			return state[i] == kept
		}
		state[i] = kept
		pi := g.ownProbe(cs[i].id)
		for s := 0; s < i; s++ {
			if state[s] != rejected && g.dist(&pi, cs[s].id) < cs[i].d && isKept(s) {
				state[i] = rejected
				return false
			}
		}
		return true
	}
	for i := n - 1; i > 0; i-- {
		if !isKept(i) {
			return i
		}
	}
	return n - 1
}

// selectNeighbors is the heuristic of the HNSW paper (algorithm 4): walking
// the candidates nearest first, keep one only if it is nearer the base than
// any neighbour already kept, so links spread out in all directions instead
// of piling into one cluster; free slots are then filled with the nearest
// of the rejected. cs must be sorted nearest first.
func (g *graph) selectNeighbors(cs []cand, m int) []uint32 {
	if len(cs) <= m {
		out := make([]uint32, len(cs))
		for i, c := range cs {
			out[i] = c.id
		}
		return out
	}
	out := make([]uint32, 0, m)
	var pruned []uint32
	for _, c := range cs {
		if len(out) == m {
			break
		}
		pc := g.ownProbe(c.id)
		keep := true
		for _, o := range out {
			if g.dist(&pc, o) < c.d {
				keep = false
				break
			}
		}
		if keep {
			out = append(out, c.id)
		} else {
			pruned = append(pruned, c.id)
		}
	}
	for _, p := range pruned {
		if len(out) == m {
			break
		}
		out = append(out, p)
	}
	return out
}

// greedy walks layer l from ep to the nearest node it can reach.
func (g *graph) greedy(w *walk, q *probe, ep cand, l int) cand {
	var buf []uint32
	for changed := true; changed; {
		changed = false
		buf = g.neighboursOf(q, ep.id, l, buf)
		next := w.next[:0]
		for _, n := range buf {
			if int(n) < g.nodes { // else a damaged mapped row's (see base)
				next = append(next, n)
			}
		}
		w.next = next
		w.ds = g.dists(q, next, w.ds[:0])
		for i, n := range next {
			if d := w.ds[i]; d < ep.d {
				ep, changed = cand{n, d}, true
			}
		}
	}
	return ep
}

// searchLayer is the beam search of the HNSW paper on layer l: it returns
// up to ef nodes nearest q, nearest first. With liveOnly, tombstones are
// walked through but not returned. The nodes are w's, until its next
// walk.
func (g *graph) searchLayer(w *walk, q *probe, ep cand, ef, l int, liveOnly bool) []cand {
	vs := &w.seen
	vs.reset(g.size())
	vs.visit(ep.id)
	// todo pops the nearest candidate first; best keeps the ef nearest.
	todo := w.todo[:0]
	best := nearest{h: w.best[:0], k: ef}
	defer func() { w.todo, w.best = todo, best.h }()
	todo.push(ep)
	if !liveOnly || !g.isDead(ep.id) {
		best.add(ep)
	}
	var buf []uint32
	next, ds := w.next[:0], w.ds[:0]
	defer func() { w.next, w.ds = next, ds }()
	for len(todo) > 0 {
		c := todo.pop()
		if best.full() && c.d > best.worst() {
			break
		}
		if len(todo) > 0 {
			g.fetchRow(todo[0].id, l) // most often the next popped
		}
		// The unseen neighbours' vectors are asked for all at once, then
		// measured: their fetches from memory overlap.
		buf = g.neighboursOf(q, c.id, l, buf)
		next = next[:0]
		for _, n := range buf {
			if int(n) >= g.nodes || !vs.visit(n) {
				continue // past the graph: a damaged mapped row's (see base)
			}
			g.fetch(q, n)
			next = append(next, n)
		}
		ds = g.dists(q, next, ds[:0])
		for i, n := range next {
			d := ds[i]
			if best.admits(d) {
				todo.push(cand{n, d})
				if !liveOnly || !g.isDead(n) {
					best.add(cand{n, d})
				}
			}
		}
	}
	return best.sorted()
}

// search returns up to ef live nodes nearest q, nearest first, as q
// measures them (a query's code: approximately).
func (g *graph) search(q *probe, ef int) []cand {
	if g.entry == none || g.live == 0 {
		return nil
	}
	w := g.walk()
	defer g.pool.Put(w)
	ep := cand{g.entry, g.dist(q, g.entry)}
	for l := g.top; l > 0; l-- {
		ep = g.greedy(w, q, ep, l)
	}
	return slices.Clone(g.searchLayer(w, q, ep, ef, 0, true))
}

// exact returns the k live nodes nearest q, nearest first, by comparing q
// with every node. Below a few thousand nodes this is faster than a walk
// of the graph with a large candidate list, which visits most nodes
// anyway, and, with the rescoring that follows (rescore), as good as
// exact.
//
// It reads every code in slot order through the mapping, Pread or not:
// every page the system maps around a fault is then one it reads.
func (g *graph) exact(q *probe, k int) []cand {
	best := nearest{k: k}
	q = &probe{c: q.c, s: q.s}
	for i := range uint32(g.nodes) {
		if g.isDead(i) {
			continue
		}
		if d := g.dist(q, i); best.admits(d) {
			best.add(cand{i, d})
		}
	}
	return best.sorted()
}

// nearest keeps the k nearest candidates offered to it. Its heap holds
// negated distances, so that its root is the farthest kept, ready for
// eviction.
type nearest struct {
	h minHeap
	k int
}

func (b *nearest) full() bool { return len(b.h) >= b.k }

// worst is the distance of the farthest kept candidate; only when full.
func (b *nearest) worst() float32 { return -b.h[0].d }

// admits says whether a candidate at distance d would be kept.
func (b *nearest) admits(d float32) bool { return !b.full() || d < b.worst() }

// add keeps c, evicting the farthest when more than k are kept.
func (b *nearest) add(c cand) {
	b.h.push(cand{c.id, -c.d})
	if len(b.h) > b.k {
		b.h.pop()
	}
}

// sorted returns what is kept, nearest first.
func (b *nearest) sorted() []cand {
	out := []cand(b.h)
	for i := range out {
		out[i].d = -out[i].d
	}
	slices.SortFunc(out, cmpCand)
	return out
}

// walk is room for a link or a search to work in, from pool (made when
// it has none), to give back to it: what searchLayer and greedy have
// seen, their heaps and lists, and prune's lists. The slices keep their
// room from one use to the next.
func (g *graph) walk() *walk {
	if w, ok := g.pool.Get().(*walk); ok {
		return w
	}
	return new(walk)
}

type walk struct {
	seen       visitSet
	todo, best minHeap
	next, ids  []uint32
	ds         []float32
	cands      []cand
}

// visitSet marks the nodes one search has seen, a bit a node: 125 KiB at
// a million nodes, which stays in a core's cache where a stamp a node
// (4 MiB) did not. reset clears only the words a search set, which it
// lists as it sets them.
type visitSet struct {
	bits []uint64
	used []uint32 // the words of bits not zero
}

func (v *visitSet) reset(n int) {
	for _, w := range v.used {
		v.bits[w] = 0
	}
	v.used = v.used[:0]
	if words := (n + 63) / 64; len(v.bits) < words {
		v.bits = make([]uint64, words+words/4)
	}
}

// visit marks i and reports whether it was unseen.
func (v *visitSet) visit(i uint32) bool {
	w, b := i/64, uint64(1)<<(i%64)
	x := v.bits[w]
	if x&b != 0 {
		return false
	}
	if x == 0 {
		v.used = append(v.used, w)
	}
	v.bits[w] = x | b
	return true
}

type cand struct {
	id uint32
	d  float32
}

func cmpCand(a, b cand) int {
	switch {
	case a.d < b.d:
		return -1
	case a.d > b.d:
		return 1
	}
	return int(a.id) - int(b.id)
}

// minHeap pops the nearest candidate first.
type minHeap []cand

func (h *minHeap) push(c cand) {
	*h = append(*h, c)
	s := *h
	for i := len(s) - 1; i > 0; {
		p := (i - 1) / 2
		if s[p].d <= s[i].d {
			break
		}
		s[p], s[i] = s[i], s[p]
		i = p
	}
}

func (h *minHeap) pop() cand {
	s := *h
	top := s[0]
	n := len(s) - 1
	s[0] = s[n]
	s = s[:n]
	for i := 0; ; {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && s[c+1].d < s[c].d {
			c++
		}
		if s[i].d <= s[c].d {
			break
		}
		s[i], s[c] = s[c], s[i]
		i = c
	}
	*h = s
	return top
}

// rescore measures the candidates cs again from q (unit length) at full
// precision, the cosine similarity with their fp16 vectors, and sorts them
// nearest first, in place.
func (g *graph) rescore(p *probe, q []float32, cs []cand) []cand {
	buf := make([]float32, g.dim)
	for i := range cs {
		v := g.vecOf(p, cs[i].id, buf)
		if v == nil {
			cs[i].d = float32(math.Inf(1)) // not read: Search fails
			continue
		}
		cos := vek32.Dot(q, v) / float32(math.Sqrt(float64(vek32.Dot(v, v))))
		cs[i].d = -max(-1, min(1, cos)) // NaN (a damaged vector's) stays NaN
	}
	slices.SortFunc(cs, cmpCand)
	return cs
}
