package vector

import (
	"cmp"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"testing"

	"github.com/braidsearch/braid/internal/testenv"
)

// dataset is a reproducible set of unit vectors and queries.
type dataset struct {
	name    string
	vecs    [][]float32
	queries [][]float32
}

// randomSet draws n vectors and nq queries uniformly from the unit sphere:
// the hardest case for a graph index, with no structure to exploit.
func randomSet(n, nq, dim int, seed int64) dataset {
	r := rand.New(rand.NewSource(seed))
	return dataset{"random", gaussians(r, n, dim, nil, 0), gaussians(r, nq, dim, nil, 0)}
}

// clusteredSet draws from 50 gaussian clusters around random centres, with
// a spread that puts neighbours in a cluster at cosine ≈ 0.5, closer to
// how text embeddings bunch by topic. Queries come from the same clusters.
func clusteredSet(n, nq, dim int, seed int64) dataset {
	r := rand.New(rand.NewSource(seed))
	centres := gaussians(r, 50, dim, nil, 0)
	const spread = 0.05
	return dataset{"clustered", gaussians(r, n, dim, centres, spread), gaussians(r, nq, dim, centres, spread)}
}

// gaussians draws n normalised vectors, each a random centre (or the
// origin) plus gaussian noise of the given spread per coordinate.
func gaussians(r *rand.Rand, n, dim int, centres [][]float32, spread float64) [][]float32 {
	out := make([][]float32, n)
	for i := range out {
		v := make([]float32, dim)
		var c []float32
		if centres != nil {
			c = centres[r.Intn(len(centres))]
		}
		var sum float64
		for j := range v {
			f := r.NormFloat64()
			if c != nil {
				f = float64(c[j]) + spread*f
			}
			v[j] = float32(f)
			sum += f * f
		}
		inv := 1 / math.Sqrt(sum)
		for j := range v {
			v[j] = float32(float64(v[j]) * inv)
		}
		out[i] = v
	}
	return out
}

func idOf(i int) string { return fmt.Sprintf("doc%05d#0", i) }

// exact returns the ids of the k vectors nearest q by brute force.
func exact(vecs [][]float32, q []float32, k int) []string {
	type hit struct {
		i int
		s float32
	}
	hs := make([]hit, len(vecs))
	for i, v := range vecs {
		var s float32
		for j := range v {
			s += v[j] * q[j]
		}
		hs[i] = hit{i, s}
	}
	slices.SortFunc(hs, func(a, b hit) int { return cmp.Compare(b.s, a.s) })
	out := make([]string, min(k, len(hs)))
	for i := range out {
		out[i] = idOf(hs[i].i)
	}
	return out
}

func build(t testing.TB, d dataset, opt *Options) *Index {
	t.Helper()
	x := New(len(d.vecs[0]), opt)
	for i, v := range d.vecs {
		if err := x.Add(idOf(i), v); err != nil {
			t.Fatal(err)
		}
	}
	return x
}

// recall is the mean fraction of the exact top k each search found.
func recall(t testing.TB, x *Index, d dataset, truth [][]string, k int) float64 {
	t.Helper()
	hit := 0
	for i, q := range d.queries {
		got, err := x.Search(q, k)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]bool{}
		for _, id := range truth[i][:k] {
			want[id] = true
		}
		for _, r := range got {
			if want[r.ID] {
				hit++
			}
		}
	}
	return float64(hit) / float64(k*len(d.queries))
}

func truths(d dataset, k int) [][]string {
	out := make([][]string, len(d.queries))
	for i, q := range d.queries {
		out[i] = exact(d.vecs, q, k)
	}
	return out
}

// TestRecall checks the default options against brute force at 2,000
// vectors; BenchmarkSearch10k measures the same at 10,000.
func TestRecall(t *testing.T) {
	testenv.Slow(t, "builds two 2,000-vector graphs")
	for _, d := range []dataset{randomSet(2000, 100, 384, 1), clusteredSet(2000, 100, 384, 2)} {
		t.Run(d.name, func(t *testing.T) {
			x := build(t, d, nil)
			got := recall(t, x, d, truths(d, 10), 10)
			t.Logf("recall@10 = %.4f", got)
			if got < 0.98 {
				t.Errorf("recall@10 = %.4f, want >= 0.98", got)
			}
			// At 2,000 vectors the default list covers much of the graph;
			// a narrow one checks the graph itself is well linked.
			x.opt.EfSearch = 32
			narrow := recall(t, x, d, truths(d, 10), 10)
			t.Logf("recall@10 at EfSearch 32 = %.4f", narrow)
			if floor := map[string]float64{"random": 0.5, "clustered": 0.97}[d.name]; narrow < floor {
				t.Errorf("recall@10 at EfSearch 32 = %.4f, want >= %.2f", narrow, floor)
			}
		})
	}
}

// A small index is searched exactly (see exactBelow): every query's top 10
// is brute force's, also after deletes; a small EfSearch lowers the limit
// in proportion, and the graph is walked instead.
func TestSmallIndexExact(t *testing.T) {
	d := clusteredSet(500, 40, 32, 7)
	x := build(t, d, nil) // 500 ≤ exactBelow: exact
	if got := recall(t, x, d, truths(d, 10), 10); got != 1 {
		t.Errorf("recall@10 %.4f on 500 vectors, want exactly 1", got)
	}
	// Deleted vectors are never returned.
	for i := 0; i < 500; i += 2 {
		x.Delete(idOf(i))
	}
	for _, q := range d.queries {
		got, err := x.Search(q, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 10 {
			t.Fatalf("%d results, want 10", len(got))
		}
		for j, r := range got {
			var n int
			fmt.Sscanf(r.ID, "doc%05d#0", &n)
			if n%2 == 0 {
				t.Fatalf("deleted %s returned", r.ID)
			}
			if j > 0 && r.Score > got[j-1].Score {
				t.Fatalf("results out of order: %v", got)
			}
		}
	}
	// At EfSearch 32 the limit is 8192·32/768 = 341 < 500: the graph is
	// walked, still good, not necessarily exact.
	y := build(t, d, &Options{EfSearch: 32})
	if got := recall(t, y, d, truths(d, 10), 10); got < 0.8 {
		t.Errorf("recall@10 %.4f walking the graph, want ≥ 0.8", got)
	}
}
