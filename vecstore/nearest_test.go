package vecstore_test

import (
	"cmp"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"testing"

	"github.com/braidsearch/braid/graph"
	"github.com/braidsearch/braid/vecstore"
)

// The HNSW graph of document vectors (Nearest) finds the pairs an exact comparison
// of every document with every other finds, for clustered vectors like
// those of real text.
func TestGapsNearestMatchesExact(t *testing.T) {
	const n, dim, k, threshold = 600, 48, 10, 0.6
	r := rand.New(rand.NewSource(7))
	centres := make([][]float64, 30)
	for i := range centres {
		centres[i] = make([]float64, dim)
		for j := range centres[i] {
			centres[i][j] = r.NormFloat64()
		}
	}
	docs := make([]graph.Doc, n)
	unit := make([][]float64, n)
	for i := range docs {
		v := make([]float32, dim)
		u := make([]float64, dim)
		var norm float64
		for j := range v {
			u[j] = centres[i%len(centres)][j] + 0.6*r.NormFloat64()
			norm += u[j] * u[j]
		}
		for j := range v {
			u[j] /= math.Sqrt(norm)
			v[j] = float32(u[j])
		}
		docs[i] = graph.Doc{Node: graph.Node{ID: fmt.Sprintf("d%03d", i), Path: fmt.Sprintf("d%03d.md", i)}, Vector: v}
		unit[i] = u
	}
	want := map[graph.Pair]bool{}
	for i := range docs {
		type nb struct {
			j   int
			sim float64
		}
		var nbs []nb
		for j := range docs {
			if j != i {
				var dot float64
				for d := range dim {
					dot += unit[i][d] * unit[j][d]
				}
				nbs = append(nbs, nb{j, dot})
			}
		}
		slices.SortFunc(nbs, func(a, b nb) int { return cmp.Compare(b.sim, a.sim) })
		for _, x := range nbs[:k] {
			if x.sim >= threshold {
				want[graph.MakePair(docs[i].ID, docs[x.j].ID)] = true
			}
		}
	}
	gaps, _, err := graph.Gaps(docs, nil, vecstore.Nearest, graph.GapOptions{Threshold: threshold, Neighbors: k, Limit: n * k})
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, g := range gaps {
		if want[graph.MakePair(g.A.ID, g.B.ID)] {
			found++
		}
	}
	if len(want) < 1000 {
		t.Fatalf("only %d exact pairs: the test set is too easy", len(want))
	}
	recall := float64(found) / float64(len(want))
	t.Logf("HNSW found %d of %d exact pairs: recall %.4f", found, len(want), recall)
	if recall < 0.98 {
		t.Errorf("HNSW found %d of the %d exact pairs (recall %.3f), want at least 0.98", found, len(want), recall)
	}
}
