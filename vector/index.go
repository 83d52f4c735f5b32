package vector

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// Defaults for the zero Options.
const (
	DefaultM              = 16
	DefaultEfSearch       = 768
	DefaultEfConstruction = 200
)

// Options tunes the graph. The zero value (or a nil *Options) means the
// defaults.
type Options struct {
	// M is the most links a node keeps on each layer above the bottom one;
	// the bottom layer keeps 2·M. 0 means DefaultM (16). It is fixed when
	// the graph is built: Load refuses a file built with another M.
	M int
	// EfSearch is the candidate list size at query time; a search for k
	// results uses max(k, EfSearch). 0 means DefaultEfSearch (768): on
	// 10,000 384-d unit vectors (BenchmarkSearch10k) it gave recall@10 of
	// 0.986 for uniformly random vectors, the hard case that sets it (704
	// gave 0.981, 512 gave 0.956), and 1.000 for clustered ones, which
	// already reach 0.99 at 32. Embeddings of real text behave like the
	// clustered set, so a latency-minded caller can go much lower.
	EfSearch int
	// EfConstruction is the candidate list size while inserting: higher
	// builds a better graph, more slowly. 0 means DefaultEfConstruction
	// (200).
	EfConstruction int
	// Pread has a search of a graph Load mapped read the nodes it visits
	// from the file with pread(2) (their layer-0 links and codes, and its
	// finalists' vectors) instead of through the mapping, for a process
	// that searches once: a fault on a mapped page the system has cached
	// maps its whole neighbourhood (64 KiB on Linux, fault-around), so
	// the first search of a million nodes maps some 380 MB of the file,
	// counted in the process's memory; the reads copy 8 KiB at most each
	// and map nothing. A process that searches many times is better off
	// without: the mapped pages, once touched, cost nothing more. Results
	// are the same either way. The file stays open as long as the graph
	// is reachable; other reads (ids, Vector, mutations) use the mapping.
	Pread bool
}

func (o *Options) withDefaults() Options {
	var out Options
	if o != nil {
		out = *o
	}
	if out.M <= 0 {
		out.M = DefaultM
	}
	out.M = max(out.M, 2)
	if out.EfSearch <= 0 {
		out.EfSearch = DefaultEfSearch
	}
	if out.EfConstruction <= 0 {
		out.EfConstruction = DefaultEfConstruction
	}
	out.EfConstruction = max(out.EfConstruction, out.M)
	return out
}

var (
	// ErrDimension is returned, wrapped with the lengths, for a vector
	// whose length is not the index's dimension.
	ErrDimension = errors.New("vector: wrong dimension")
	// ErrVector is returned for a vector that cannot be normalised: all
	// zeros, or holding NaN or ±Inf.
	ErrVector = errors.New("vector: zero or non-finite vector")
	// ErrFormat is returned by Load, wrapped with the reason, for a file that
	// is not a braid vector file, is damaged, has another format version or
	// was built with another M. The graph can be rebuilt from the stored
	// embeddings by re-running `braid index`.
	ErrFormat = errors.New("vector: unreadable vector file")
	// ErrMismatch is the kind of ErrFormat that is not damage: a sound
	// file of another format version or built with another M.
	ErrMismatch = errors.New("vector: file of another format or M")
)

// Result is one nearest neighbour.
type Result struct {
	ID string
	// Score is the cosine similarity to the query, -1..1, higher is nearer.
	Score float32
}

// Index is an HNSW graph of unit-length float32 vectors keyed by chunk id.
// It is safe for concurrent use: searches run in parallel, and Add, Delete
// and SetGen take an exclusive lock.
//
// Deleted and replaced vectors stay in the graph as tombstones, walked
// through by searches but never returned, until they make up a third of
// it; the mutation that crosses that line rebuilds the graph from the live
// vectors, under the lock.
type Index struct {
	mu  sync.RWMutex
	dim int
	opt Options
	g   *graph
	// slot maps live ids to slots, made on first use (slots, under
	// slotMu); ids is every slot's id.
	slot   map[string]uint32
	slotMu sync.Mutex
	ids    idTable
	gen    uint64
	// changed: added to, deleted from or given another gen since it was
	// made, loaded or saved (Changed). Set under mu's write lock, cleared
	// by Save under its read lock (which keeps mutations out): atomic for
	// the readers.
	changed atomic.Bool
	// disk is what the graph's file and log hold, for Save to append to
	// them (log.go); nil when the next Save writes a whole file. Save
	// writes it, serialised by saveMu, under mu's read lock.
	disk   *onDisk
	saveMu sync.Mutex
}

// New returns an empty index of dim-dimensional vectors. opt may be nil.
// With dim <= 0 every Add fails.
func New(dim int, opt *Options) *Index {
	o := opt.withDefaults()
	return &Index{
		dim:  max(dim, 0),
		opt:  o,
		g:    newGraph(max(dim, 0), o.M, o.EfConstruction),
		slot: map[string]uint32{},
	}
}

// Dim returns the length of the vectors the index holds.
func (x *Index) Dim() int { return x.dim }

// Len returns how many vectors the index holds, tombstones not counted.
func (x *Index) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.g.live
}

// Gen returns the commit number of the metadata store the graph matches.
func (x *Index) Gen() uint64 {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.gen
}

// SetGen records the commit number of the metadata store the graph matches;
// Save writes it to the file.
func (x *Index) SetGen(g uint64) {
	x.mu.Lock()
	if x.gen != g {
		x.changed.Store(true)
	}
	x.gen = g
	x.mu.Unlock()
}

// Changed says whether the index differs from the file it was loaded from
// or last saved to: an Add, a Delete or another gen since. A new index
// that was never saved is unchanged until something is added.
func (x *Index) Changed() bool { return x.changed.Load() }

// IDs returns the ids the index holds, in no particular order.
func (x *Index) IDs() []string {
	x.mu.RLock()
	defer x.mu.RUnlock()
	out := make([]string, 0, x.g.live)
	for s := range uint32(x.g.size()) {
		if !x.g.isDead(s) {
			out = append(out, x.ids.at(s))
		}
	}
	return out
}

// Has reports whether the index holds a vector for id.
func (x *Index) Has(id string) bool {
	x.mu.RLock()
	defer x.mu.RUnlock()
	_, ok := x.slots()[id]
	return ok
}

// Vector returns a copy of the unit-length vector the index holds for id,
// as it holds it (rounded to half precision), or nil when it holds none.
func (x *Index) Vector(id string) []float32 {
	x.mu.RLock()
	defer x.mu.RUnlock()
	s, ok := x.slots()[id]
	if !ok {
		return nil
	}
	return slices.Clone(x.g.vec(s, nil))
}

// Add inserts vec under id, replacing any vector id had. The index keeps a
// normalised copy of vec, rounded to half precision (fp16), and its int8
// code.
func (x *Index) Add(id string, vec []float32) error {
	return x.AddBatch([]string{id}, [][]float32{vec})
}

// AddBatch adds each vecs[i] under ids[i] as Add would, one after another
// (an id named twice keeps its last vector), linking them into the graph
// from as many goroutines as GOMAXPROCS allows: building a large graph
// takes about 1/N of the time on N cores. It checks every vector before
// changing anything.
func (x *Index) AddBatch(ids []string, vecs [][]float32) error {
	if len(ids) != len(vecs) {
		return fmt.Errorf("vector: %d ids for %d vectors", len(ids), len(vecs))
	}
	last := make(map[string]int, len(ids))
	for i, id := range ids {
		last[id] = i
	}
	units := make([][]float32, len(ids))
	for i, vec := range vecs {
		if last[ids[i]] != i {
			continue
		}
		v, err := x.unit(vec)
		if err != nil {
			return fmt.Errorf("%w, for id %q", err, ids[i])
		}
		roundHalfs(v, v) // as the graph keeps it, to tell an unchanged one
		units[i] = v
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	var addIDs []string
	var addVecs [][]float32
	buf := make([]float32, x.dim)
	for i, id := range ids {
		if units[i] == nil {
			continue
		}
		if s, ok := x.slots()[id]; ok {
			if slices.Equal(x.g.vec(s, buf), units[i]) {
				continue
			}
			x.kill(s)
		}
		addIDs, addVecs = append(addIDs, id), append(addVecs, units[i])
	}
	if len(addIDs) == 0 {
		return nil
	}
	x.insertBatch(addIDs, addVecs)
	x.maybeRebuild()
	x.changed.Store(true)
	return nil
}

// Delete removes id's vector and reports whether there was one.
func (x *Index) Delete(id string) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	s, ok := x.slots()[id]
	if !ok {
		return false
	}
	x.kill(s)
	x.maybeRebuild()
	x.changed.Store(true)
	return true
}

// Search returns up to k vectors nearest q, best first (ties by id). The
// query is normalised, so Score is the cosine similarity (with the
// vector as the index holds it, in half precision). k <= 0 or an empty
// index gives no results and no error.
//
// The search walks the graph comparing the query's int8 code with the
// nodes' codes, keeping the max(k, EfSearch) nearest it meets, and then
// measures the finalists(k) nearest of those again at full precision.
func (x *Index) Search(q []float32, k int) ([]Result, error) {
	v, err := x.unit(q)
	if err != nil {
		return nil, err
	}
	if k <= 0 {
		return nil, nil
	}
	x.mu.RLock()
	defer x.mu.RUnlock()
	ef := max(k, x.opt.EfSearch)
	n := min(ef, finalists(k))
	p := x.g.codeProbe(v)
	var found []cand
	if x.g.size() <= exactBelow*ef/DefaultEfSearch {
		found = x.g.exact(p, n)
	} else {
		found = x.g.search(p, ef)
	}
	found = x.g.rescore(p, v, found[:min(n, len(found))])
	out := make([]Result, len(found))
	for i, c := range found {
		out[i] = Result{ID: x.idVia(p.rd, c.id), Score: -c.d}
	}
	if p.rd != nil && p.rd.err != nil {
		return nil, fmt.Errorf("vector: search: read the graph file: %w", p.rd.err)
	}
	slices.SortFunc(out, func(a, b Result) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return out[:min(k, len(out))], nil
}

// finalists is how many of a search's nearest by code it measures again
// at full precision, for k results: rescoreTimes·k, at least rescoreMin.
// On 10,000 384-d vectors (BenchmarkSearch10k, default EfSearch) 2·k
// gave the recall of rescoring all 768 (random: 0.9855 at k=10, 0.9785
// at k=50; clustered: 1.0000, 0.9998), and k alone lost some (0.9665,
// 0.9710; 0.9855, 0.9898).
func finalists(k int) int { return max(rescoreMin, rescoreTimes*k) }

// See finalists; vars, for the benchmarks to vary.
var (
	rescoreTimes = 2
	rescoreMin   = 32
)

// exactBelow is the graph size (at the default EfSearch, and in proportion
// to it otherwise) up to which Search compares the query with every vector
// instead of walking the graph: exact, and faster there. BenchmarkSearchSmall,
// top 50 of 384-d vectors on an idle machine: 37 µs against 225 µs at 1,000
// vectors, 206 µs against 756 µs at 8,000.
const exactBelow = 8192

// unit checks vec's length and returns a normalised copy.
func (x *Index) unit(vec []float32) ([]float32, error) {
	if len(vec) != x.dim {
		return nil, fmt.Errorf("%w: got %d values, want %d", ErrDimension, len(vec), x.dim)
	}
	var sum float64
	for _, f := range vec {
		sum += float64(f) * float64(f)
	}
	if sum == 0 || math.IsNaN(sum) || math.IsInf(sum, 0) {
		return nil, ErrVector
	}
	inv := 1 / math.Sqrt(sum)
	out := make([]float32, len(vec))
	for i, f := range vec {
		out[i] = float32(float64(f) * inv)
	}
	return out, nil
}

// insertBatch inserts vecs under ids, none of which the index holds.
func (x *Index) insertBatch(ids []string, vecs [][]float32) {
	if x.g.size()+len(ids) >= math.MaxUint32-1 {
		x.rebuild()
	}
	first := x.g.addBatch(vecs, runtime.GOMAXPROCS(0))
	x.named(ids, first)
}

// named gives the nodes from slot first on the ids, in order.
func (x *Index) named(ids []string, first uint32) {
	for i, id := range ids {
		x.ids.add(id)
		if x.slot != nil {
			x.slot[id] = first + uint32(i)
		}
	}
}

// kill turns slot s into a tombstone.
func (x *Index) kill(s uint32) {
	x.g.touch(s)
	if x.slot != nil {
		delete(x.slot, x.ids.at(s))
	}
	x.ids.clear(s)
	x.g.setDead(s)
	x.g.live--
}

// maybeRebuild drops the tombstones once they are a third of the graph;
// an index with no live vectors left simply starts over.
func (x *Index) maybeRebuild() {
	dead := x.g.size() - x.g.live
	switch {
	case x.g.live == 0 && dead > 0:
		x.g = newGraph(x.g.dim, x.opt.M, x.opt.EfConstruction)
		x.ids, x.slot = idTable{}, map[string]uint32{}
	case dead*2 > x.g.live:
		x.rebuild()
	}
}

// rebuild inserts the live vectors, in slot order, into a fresh graph.
func (x *Index) rebuild() {
	old, oldIDs := x.g, x.ids
	x.g = newGraph(old.dim, x.opt.M, x.opt.EfConstruction)
	x.g.seed = old.seed
	x.ids = idTable{more: make([]string, 0, old.live)}
	x.slot = make(map[string]uint32, old.live)
	ids := make([]string, 0, old.live)
	vecs := make([][]float32, 0, old.live)
	for s := range uint32(old.size()) {
		if !old.isDead(s) {
			ids, vecs = append(ids, oldIDs.at(s)), append(vecs, old.vec(s, nil))
		}
	}
	x.insertBatch(ids, vecs)
}
