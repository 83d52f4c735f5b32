package vector

import (
	"errors"
	"fmt"
	"math"
	"math/rand"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/braidsearch/braid/internal/half"
	"github.com/braidsearch/braid/internal/testenv"
)

func unitVec(r *rand.Rand, dim int) []float32 {
	return gaussians(r, 1, dim, nil, 0)[0]
}

func ids(rs []Result) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.ID
	}
	return out
}

func TestAddReplaceDelete(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	x := New(16, nil)
	a, b, c, a2 := unitVec(r, 16), unitVec(r, 16), unitVec(r, 16), unitVec(r, 16)
	for id, v := range map[string][]float32{"a": a, "b": b, "c": c} {
		if err := x.Add(id, v); err != nil {
			t.Fatal(err)
		}
	}
	if got := x.Len(); got != 3 {
		t.Fatalf("Len = %d, want 3", got)
	}
	if !x.Has("a") || x.Has("z") {
		t.Errorf("Has(a), Has(z) = %v, %v, want true, false", x.Has("a"), x.Has("z"))
	}

	// Replacing a drops its old vector: searching for it finds a scored
	// against the new one.
	if err := x.Add("a", a2); err != nil {
		t.Fatal(err)
	}
	if got := x.Len(); got != 3 {
		t.Errorf("Len after replace = %d, want 3", got)
	}
	res, err := x.Search(a, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, rs := range res {
		// Scored with the vector in half precision: within 5e-4.
		if rs.ID == "a" && math.Abs(float64(rs.Score-dot(a, a2))) > 5e-4 {
			t.Errorf("a scored %v against its old vector, want %v (the new one)", rs.Score, dot(a, a2))
		}
	}
	res = testenv.Must1(x.Search(a2, 1))(t)
	if len(res) != 1 || res[0].ID != "a" || math.Abs(float64(res[0].Score-1)) > 1e-5 {
		t.Errorf("Search(new a) = %v, want a with score 1", res)
	}
	// Re-adding the same vector is a no-op, not a tombstone.
	if err := x.Add("a", a2); err != nil {
		t.Fatal(err)
	}
	if x.g.size() != 4 {
		t.Errorf("graph has %d nodes after an identical re-add, want 4", x.g.size())
	}

	if !x.Delete("b") {
		t.Error("Delete(b) = false, want true")
	}
	if x.Delete("b") {
		t.Error("second Delete(b) = true, want false")
	}
	if x.Has("b") || x.Len() != 2 {
		t.Errorf("after Delete(b): Has = %v, Len = %d, want false, 2", x.Has("b"), x.Len())
	}
	res = testenv.Must1(x.Search(b, 10))(t)
	if diff := cmp.Diff([]string{"a", "c"}, slices.Sorted(slices.Values(ids(res)))); diff != "" {
		t.Errorf("Search after delete (-want +got):\n%s", diff)
	}
}

func dot(a, b []float32) float32 {
	var s float32
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

func TestAddNormalises(t *testing.T) {
	x := New(2, nil)
	if err := x.Add("a", []float32{3, 4}); err != nil {
		t.Fatal(err)
	}
	res, err := x.Search([]float32{30, 40}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || math.Abs(float64(res[0].Score-1)) > 1e-6 {
		t.Errorf("Search = %v, want a with score 1", res)
	}
}

func TestBadInput(t *testing.T) {
	x := New(4, nil)
	nan := float32(math.NaN())
	inf := float32(math.Inf(1))
	tests := []struct {
		name string
		err  error
		do   func() error
	}{
		{"add short", ErrDimension, func() error { return x.Add("a", []float32{1, 2, 3}) }},
		{"add long", ErrDimension, func() error { return x.Add("a", make([]float32, 5)) }},
		{"add nil", ErrDimension, func() error { return x.Add("a", nil) }},
		{"add zero", ErrVector, func() error { return x.Add("a", make([]float32, 4)) }},
		{"add NaN", ErrVector, func() error { return x.Add("a", []float32{1, nan, 0, 0}) }},
		{"add Inf", ErrVector, func() error { return x.Add("a", []float32{1, inf, 0, 0}) }},
		{"search short, empty index", ErrDimension, func() error { _, err := x.Search([]float32{1}, 3); return err }},
		{"search short, k=0", ErrDimension, func() error { _, err := x.Search([]float32{1}, 0); return err }},
		{"search zero", ErrVector, func() error { _, err := x.Search(make([]float32, 4), 3); return err }},
		{"dim 0", ErrVector, func() error { return New(0, nil).Add("a", nil) }},
		{"dim -1", ErrDimension, func() error { return New(-1, nil).Add("a", []float32{1}) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.do()
			if !errors.Is(err, tc.err) {
				t.Errorf("err = %v, want %v", err, tc.err)
			}
		})
	}
	_, err := x.Search([]float32{1, 2}, 3)
	if want := "got 2 values, want 4"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v, want it to say %q", err, want)
	}
	if x.Len() != 0 {
		t.Errorf("Len = %d after failed adds, want 0", x.Len())
	}
}

func TestSearchEdgeCases(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	x := New(8, nil)
	q := unitVec(r, 8)
	for _, k := range []int{-1, 0, 5} {
		if res, err := x.Search(q, k); err != nil || len(res) != 0 {
			t.Errorf("empty index, k=%d: Search = %v, %v, want none, nil", k, res, err)
		}
	}
	testenv.Must(t, x.Add("a", q))
	for _, k := range []int{-1, 0} {
		if res, err := x.Search(q, k); err != nil || len(res) != 0 {
			t.Errorf("k=%d: Search = %v, %v, want none, nil", k, res, err)
		}
	}
	if res, _ := x.Search(q, 5); len(res) != 1 || res[0].ID != "a" {
		t.Errorf("one node, k=5: Search = %v, want [a]", res)
	}
}

// TestDeleteEdgeCases covers the graph shapes where HNSW libraries
// typically break: deleting the entry point, the last node, and the only
// node of a layer, then searching and adding again.
func TestDeleteEdgeCases(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	x := New(8, nil)
	v := map[string][]float32{}
	add := func(id string) {
		t.Helper()
		v[id] = unitVec(r, 8)
		if err := x.Add(id, v[id]); err != nil {
			t.Fatal(err)
		}
	}
	search := func(k int) []string {
		t.Helper()
		res, err := x.Search(unitVec(r, 8), k)
		if err != nil {
			t.Fatal(err)
		}
		return slices.Sorted(slices.Values(ids(res)))
	}

	add("only")
	x.Delete("only")
	delete(v, "only")
	if got := search(3); len(got) != 0 || x.Len() != 0 {
		t.Errorf("after deleting the only node: Search = %v, Len = %d", got, x.Len())
	}
	add("again")
	if diff := cmp.Diff([]string{"again"}, search(3)); diff != "" {
		t.Errorf("add after emptying (-want +got):\n%s", diff)
	}

	// Delete whichever node is the entry point, repeatedly, searching
	// after each.
	for i := range 40 {
		add(fmt.Sprint("n", i))
	}
	for x.Len() > 0 {
		entry := x.id(x.g.entry)
		if entry == "" {
			// A tombstone entry point is fine; delete any live node.
			for id := range x.slots() {
				entry = id
				break
			}
		}
		x.Delete(entry)
		delete(v, entry)
		if got := search(50); len(got) != len(v) {
			t.Fatalf("after deleting %s: %d results, want all %d live", entry, len(got), len(v))
		}
	}
	if x.g.size() != 0 {
		t.Errorf("empty index still holds %d tombstones", x.g.size())
	}
}

// TestDeletes checks deleted vectors never come back from a search, that
// re-adding brings them back, and that a rebuild keeps every live vector.
func TestDeletes(t *testing.T) {
	d := randomSet(1000, 50, 32, 4)
	x := build(t, d, &Options{EfSearch: 40})
	deleted := map[string]bool{}
	for i := 0; i < 1000; i += 3 {
		if len(deleted) == 300 {
			break
		}
		if !x.Delete(idOf(i)) {
			t.Fatalf("Delete(%s) = false", idOf(i))
		}
		deleted[idOf(i)] = true
	}
	if x.Len() != 700 {
		t.Fatalf("Len = %d, want 700", x.Len())
	}
	check := func(qs [][]float32) {
		t.Helper()
		for _, q := range qs {
			res, err := x.Search(q, 50)
			if err != nil {
				t.Fatal(err)
			}
			if len(res) != 50 {
				t.Fatalf("got %d results, want 50", len(res))
			}
			for _, r := range res {
				if deleted[r.ID] {
					t.Fatalf("deleted %s returned", r.ID)
				}
			}
		}
	}
	check(d.queries)
	// The deleted vectors themselves are the hardest queries.
	var own [][]float32
	for i := 0; i < 900; i += 3 {
		own = append(own, d.vecs[i])
	}
	check(own)

	// Re-add 100 deleted ids: each is its own nearest neighbour again.
	for i := 0; i < 300; i += 3 {
		id := idOf(i)
		if err := x.Add(id, d.vecs[i]); err != nil {
			t.Fatal(err)
		}
		delete(deleted, id)
	}
	for i := 0; i < 300; i += 3 {
		res := testenv.Must1(x.Search(d.vecs[i], 1))(t)
		if len(res) != 1 || res[0].ID != idOf(i) {
			t.Fatalf("Search(vec of re-added %s) = %v", idOf(i), res)
		}
	}
	check(d.queries)

	// Deleting past a third of the graph rebuilds it without tombstones.
	for i := 1; i < 1000 && x.g.size() > x.g.live; i += 3 {
		x.Delete(idOf(i))
		deleted[idOf(i)] = true
	}
	if x.g.size() != x.Len() {
		t.Errorf("after the rebuild: %d nodes for %d live", x.g.size(), x.Len())
	}
	check(d.queries)
	for i, v := range d.vecs {
		if deleted[idOf(i)] {
			continue
		}
		if res, _ := x.Search(v, 1); len(res) != 1 || res[0].ID != idOf(i) {
			t.Fatalf("after the rebuild, Search(vec of %s) = %v", idOf(i), res)
		}
	}
}

// TestConcurrent runs searches beside adds, deletes, saves and SetGen;
// run it with -race.
func TestConcurrent(t *testing.T) {
	d := randomSet(600, 50, 16, 5)
	x := build(t, d, &Options{EfSearch: 32})
	path := t.TempDir() + "/v.vec"
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				res, err := x.Search(d.queries[(i+w)%len(d.queries)], 10)
				if err != nil {
					errs <- err
					return
				}
				if !slices.IsSortedFunc(res, func(a, b Result) int { return -cmpF(a.Score, b.Score) }) {
					errs <- fmt.Errorf("results out of order: %v", res)
					return
				}
				x.Has(idOf(i))
				x.Len()
				x.Gen()
			}
		}()
	}
	wg.Add(2)
	go func() {
		defer wg.Done()
		r := rand.New(rand.NewSource(6))
		for i := range 300 {
			if err := x.Add(fmt.Sprint("new", i), unitVec(r, 16)); err != nil {
				errs <- err
				return
			}
			if i%100 == 0 {
				x.SetGen(uint64(i))
				if err := x.Save(path); err != nil {
					errs <- err
					return
				}
			}
		}
	}()
	go func() {
		defer wg.Done()
		for i := range 400 {
			x.Delete(idOf(i))
		}
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got, want := x.Len(), 600-400+300; got != want {
		t.Errorf("Len = %d, want %d", got, want)
	}
}

func cmpF(a, b float32) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func TestVector(t *testing.T) {
	x := New(3, nil)
	if err := x.Add("a", []float32{3, 0, 4}); err != nil {
		t.Fatal(err)
	}
	v := x.Vector("a")
	// In half precision: 0.6 and 0.8 to 11 significant bits.
	if len(v) != 3 || v[0] != half.From(half.To(0.6)) || v[1] != 0 || v[2] != half.From(half.To(0.8)) || math.Abs(float64(v[0])-0.6) > 3e-4 {
		t.Errorf("Vector(a) = %v, want the unit vector [0.6 0 0.8] in half precision", v)
	}
	v[0] = 9 // a copy: the index keeps its own
	if x.Vector("a")[0] != half.From(half.To(0.6)) {
		t.Error("Vector returned the index's own storage")
	}
	if x.Vector("missing") != nil {
		t.Error("Vector of a missing id is not nil")
	}
}

func TestChanged(t *testing.T) {
	x := New(2, nil)
	if x.Changed() {
		t.Error("a new index is changed")
	}
	if err := x.Add("a", []float32{1, 0}); err != nil {
		t.Fatal(err)
	}
	if !x.Changed() {
		t.Error("Add left the index unchanged")
	}
	path := filepath.Join(t.TempDir(), "g.hnsw")
	if err := x.Save(path); err != nil {
		t.Fatal(err)
	}
	if x.Changed() {
		t.Error("changed after Save")
	}
	y, err := Load(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if y.Changed() {
		t.Error("a loaded index is changed")
	}
	y.SetGen(y.Gen())
	if y.Changed() {
		t.Error("SetGen to the same gen changed it")
	}
	y.SetGen(y.Gen() + 1)
	if !y.Changed() {
		t.Error("another gen left it unchanged")
	}
	if err := y.Save(path); err != nil {
		t.Fatal(err)
	}
	if y.Delete("nope") || y.Changed() {
		t.Error("deleting nothing changed it")
	}
	if !y.Delete("a") || !y.Changed() {
		t.Error("Delete left it unchanged")
	}
}
