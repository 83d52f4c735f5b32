package vector

import (
	"math/rand"
	"slices"
	"testing"
)

// leftOut names the candidate the neighbour heuristic leaves out when it
// picks all but one: prune's shortcut keeps exactly selectNeighbors'
// links, on spread and on bunched vectors, at the lengths connect prunes
// (2m+1 on layer 0, m+1 above).
func TestLeftOut(t *testing.T) {
	for _, d := range []dataset{randomSet(400, 0, 32, 4), clusteredSet(400, 0, 32, 5), clusteredSet(400, 0, 8, 6)} {
		dim := len(d.vecs[0])
		g := newGraph(dim, 8, 40)
		g.addBatch(d.vecs, 1)
		r := rand.New(rand.NewSource(7))
		rejections := 0
		for trial := range 600 {
			n := []int{17, 9, 3, 2}[trial%4]
			base := uint32(r.Intn(g.size()))
			own := g.ownProbe(base)
			q := &own
			// Odd trials take the base's nearest, which shadow one another;
			// even ones nodes at random.
			pool := r.Perm(g.size())
			if trial%2 == 0 {
				pool = pool[:n+1]
			}
			var cs []cand
			for _, i := range pool {
				if s := uint32(i); s != base {
					cs = append(cs, cand{s, g.dist(q, s)})
				}
			}
			slices.SortFunc(cs, cmpCand)
			cs = cs[:n]
			want := g.selectNeighbors(cs, n-1)
			drop := g.leftOut(cs)
			var got []uint32
			for i, c := range cs {
				if i != drop {
					got = append(got, c.id)
				}
			}
			if drop != n-1 {
				rejections++
			}
			slices.Sort(want)
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Fatalf("%s dim %d trial %d: leftOut keeps %v, selectNeighbors %v", d.name, dim, trial, got, want)
			}
		}
		// The sets must exercise the rejections, not only the farthest.
		if rejections < 30 {
			t.Errorf("%s dim %d: %d trials of 600 left out a rejected candidate other than the farthest, want ≥ 30", d.name, dim, rejections)
		}
		t.Logf("%s dim %d: %d of 600 left out one before the farthest", d.name, dim, rejections)
	}
}

// A visitSet answers as a set would, search after search, as it grows and
// as resets clear only the words a search set.
func TestVisitSet(t *testing.T) {
	r := rand.New(rand.NewSource(8))
	var v visitSet
	for round, n := range []int{1, 64, 65, 1000, 100, 5000, 5000, 130} {
		v.reset(n)
		seen := map[uint32]bool{}
		for range 3 * n {
			i := uint32(r.Intn(n))
			if got := v.visit(i); got == seen[i] {
				t.Fatalf("round %d (n %d): visit(%d) = %v after %d visits, want %v", round, n, i, got, len(seen), !seen[i])
			}
			seen[i] = true
		}
	}
}
