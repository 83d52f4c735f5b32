package vector

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"testing"

	"github.com/braidsearch/braid/internal/half"
)

// One worker links a batch exactly as adding its vectors one at a time
// does: the same levels, links and entry point.
func TestAddBatchOneWorkerIsAdd(t *testing.T) {
	d := clusteredSet(600, 1, 16, 3)
	one := newGraph(16, 8, 40)
	for _, v := range d.vecs {
		one.addBatch([][]float32{v}, 1)
	}
	batch := newGraph(16, 8, 40)
	batch.addBatch(d.vecs[:100], 1)
	batch.addBatch(d.vecs[100:], 1)
	if one.entry != batch.entry || one.top != batch.top {
		t.Fatalf("entry %d top %d, want %d %d", batch.entry, batch.top, one.entry, one.top)
	}
	for i := range uint32(one.size()) {
		if one.level(i) != batch.level(i) {
			t.Fatalf("node %d has %d layers, want %d", i, batch.level(i)+1, one.level(i)+1)
		}
		for l := range one.level(i) + 1 {
			if !slices.Equal(one.links(i, l), batch.links(i, l)) {
				t.Fatalf("node %d layer %d links %v, want %v", i, l, batch.links(i, l), one.links(i, l))
			}
		}
	}
}

// Linked from several goroutines (under -race in make test), the graph is
// sound and as good as one built serially: every node reachable from the
// entry point, no list over its bound, no self or repeated link, and the
// recall of a narrow search as high.
func TestAddBatchParallel(t *testing.T) {
	d := randomSet(1500, 100, 24, 5)
	truth := truths(d, 10)
	serial := New(24, &Options{EfSearch: 16})
	serial.insertBatchWith(idsOf(0, 1500), d.vecs, 1)
	par := New(24, &Options{EfSearch: 16})
	par.insertBatchWith(idsOf(0, 500), d.vecs[:500], 4)
	par.insertBatchWith(idsOf(500, 1500), d.vecs[500:], 4)
	checkGraph(t, par.g)
	rs, rp := recall(t, serial, d, truth, 10), recall(t, par, d, truth, 10)
	t.Logf("recall@10 at EfSearch 16: serial %.4f, parallel %.4f", rs, rp)
	if rp < rs-0.02 {
		t.Errorf("parallel build recall@10 %.4f, serial %.4f", rp, rs)
	}
}

// A parallel batch linked into a graph loaded from its file (the rows of
// layer 0 mapped, a changed one copied to the overlay under its stripe's
// lock) is as sound, under -race in make test, and saves and loads back
// the same.
func TestAddBatchParallelLoaded(t *testing.T) {
	d := randomSet(1200, 100, 24, 6)
	truth := truths(d, 10)
	x := New(24, &Options{EfSearch: 16})
	x.insertBatchWith(idsOf(0, 600), d.vecs[:600], 1)
	path := filepath.Join(t.TempDir(), "v.vec")
	if err := x.Save(path); err != nil {
		t.Fatal(err)
	}
	y, err := Load(path, &Options{EfSearch: 16})
	if err != nil {
		t.Fatal(err)
	}
	y.insertBatchWith(idsOf(600, 1200), d.vecs[600:], 4)
	y.changed.Store(true)
	if y.g.over == nil || y.g.nbase != 600 {
		t.Fatalf("overlay %v, %d rows mapped; want an overlay over 600 mapped rows", y.g.over != nil, y.g.nbase)
	}
	checkGraph(t, y.g)
	serial := New(24, &Options{EfSearch: 16})
	serial.insertBatchWith(idsOf(0, 1200), d.vecs, 1)
	rs, rp := recall(t, serial, d, truth, 10), recall(t, y, d, truth, 10)
	t.Logf("recall@10 at EfSearch 16: serial %.4f, parallel onto the loaded graph %.4f", rs, rp)
	if rp < rs-0.02 {
		t.Errorf("parallel build onto the loaded graph recall@10 %.4f, serial %.4f", rp, rs)
	}
	for _, whole := range []bool{false, true} {
		if whole {
			y.disk = nil
		}
		if err := y.Save(path); err != nil {
			t.Fatal(err)
		}
		z, err := Load(path, &Options{EfSearch: 16})
		if err != nil {
			t.Fatal(err)
		}
		sameIndex(t, fmt.Sprintf("saved whole %v", whole), y, z)
		y.changed.Store(true)
	}
}

func idsOf(from, to int) []string {
	var out []string
	for i := from; i < to; i++ {
		out = append(out, idOf(i))
	}
	return out
}

func (x *Index) insertBatchWith(ids []string, vecs [][]float32, workers int) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.named(ids, x.g.addBatch(vecs, workers))
}

func checkGraph(t *testing.T, g *graph) {
	t.Helper()
	seen := make([]bool, g.size())
	todo := []uint32{g.entry}
	seen[g.entry] = true
	for len(todo) > 0 {
		n := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		for l := range g.level(n) + 1 {
			ls := g.links(n, l)
			if len(ls) > g.maxLinks(l) {
				t.Fatalf("node %d layer %d has %d links, bound %d", n, l, len(ls), g.maxLinks(l))
			}
			sorted := slices.Clone(ls)
			slices.Sort(sorted)
			if len(slices.Compact(sorted)) != len(ls) || slices.Contains(ls, n) {
				t.Fatalf("node %d layer %d links %v: repeated or self", n, l, ls)
			}
			for _, m := range ls {
				if g.level(m) < l {
					t.Fatalf("node %d links %d on layer %d, above its level", n, m, l)
				}
				if !seen[m] {
					seen[m] = true
					todo = append(todo, m)
				}
			}
		}
	}
	for i, ok := range seen {
		if !ok {
			t.Fatalf("node %d is not reachable from the entry point", i)
		}
	}
}

// AddBatch means what Adds one after another mean: a repeated id keeps its
// last vector, an equal vector changes nothing, a bad vector changes
// nothing at all.
func TestAddBatch(t *testing.T) {
	d := clusteredSet(200, 5, 8, 9)
	x := New(8, nil)
	if err := x.AddBatch(idsOf(0, 200), d.vecs); err != nil {
		t.Fatal(err)
	}
	if x.Len() != 200 || !x.Changed() {
		t.Fatalf("len %d changed %v, want 200 true", x.Len(), x.Changed())
	}
	if got := recall(t, x, d, truths(d, 10), 10); got != 1 {
		t.Errorf("recall@10 %.4f on 200 vectors (searched exactly), want 1", got)
	}
	x.changed.Store(false)
	if err := x.AddBatch(idsOf(0, 50), d.vecs[:50]); err != nil || x.Changed() || x.g.size() != 200 {
		t.Fatalf("equal vectors again: err %v changed %v size %d, want nil false 200", err, x.Changed(), x.g.size())
	}
	a, b := d.vecs[0], d.vecs[1]
	if err := x.AddBatch([]string{"r", "r"}, [][]float32{a, b}); err != nil {
		t.Fatal(err)
	}
	if got := x.Vector("r"); !slices.EqualFunc(got, b, func(g, w float32) bool { return math.Abs(float64(g-w)) < 1e-3 }) {
		t.Errorf("repeated id kept %v, want the last vector %v", got, b)
	}
	if err := x.AddBatch([]string{"s", "t"}, [][]float32{a, make([]float32, 8)}); !errors.Is(err, ErrVector) || x.Has("s") {
		t.Errorf("a zero vector in the batch: err %v, s added %v; want ErrVector and nothing added", err, x.Has("s"))
	}
	if err := x.AddBatch([]string{"u"}, nil); err == nil {
		t.Error("one id and no vector: no error")
	}
}

// TestPagedVectors: vectors added past a page's end go to a new page and
// read back as added, the pages before it untouched.
func TestPagedVectors(t *testing.T) {
	const dim = 2
	g := newGraph(dim, 4, 8)
	n := 2*pageItems + 3
	for i := range n {
		g.appendVec([]float32{float32(i), -float32(i)}, make([]float32, 2))
	}
	if len(g.tail.ps) != 3 || len(g.tail.ps[0]) != pageItems*dim || len(g.tail.ps[2]) != 3*dim {
		t.Fatalf("%d pages (first %d values, last %d); want 3 (%d, %d)", len(g.tail.ps), len(g.tail.ps[0]), len(g.tail.ps[len(g.tail.ps)-1]), pageItems*dim, 3*dim)
	}
	for _, i := range []int{0, pageItems - 1, pageItems, 2 * pageItems, n - 1} {
		if v := g.vec(uint32(i), nil); v[0] != half.From(half.To(float32(i))) || v[1] != -v[0] {
			t.Errorf("vec(%d) = %v", i, v)
		}
	}
}

// TestPagedRows: layer-0 rows of nodes grown past a page's end go to a new
// page and read back as set, the pages before it untouched.
func TestPagedRows(t *testing.T) {
	g := newGraph(2, 2, 8)
	n := 2*pageItems + 3
	for i := range n {
		g.grow(0)
		g.setLinks(uint32(i), 0, []uint32{uint32(i), uint32(i) / 2})
	}
	st := g.stride()
	if len(g.rows.ps) != 3 || len(g.rows.ps[0]) != pageItems*st || len(g.rows.ps[2]) != 3*st {
		t.Fatalf("%d pages (first %d values, last %d); want 3 (%d, %d)", len(g.rows.ps), len(g.rows.ps[0]), len(g.rows.ps[len(g.rows.ps)-1]), pageItems*st, 3*st)
	}
	for _, i := range []uint32{0, pageItems - 1, pageItems, 2 * pageItems, uint32(n - 1)} {
		if got := g.links(i, 0); !slices.Equal(got, []uint32{i, i / 2}) {
			t.Errorf("links(%d, 0) = %v, want [%d %d]", i, got, i, i/2)
		}
	}
}
