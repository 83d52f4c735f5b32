package braid_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/vector"
)

// Latency per stage is measured by the bench harness (braid bench, package
// bench). What stays here needs a real index: HNSW recall on real
// embeddings.

func reportPercentiles(b *testing.B, lat []time.Duration) {
	slices.Sort(lat)
	at := func(p float64) float64 {
		i := int(math.Ceil(p*float64(len(lat)))) - 1
		return float64(lat[max(i, 0)].Microseconds()) / 1000
	}
	b.ReportMetric(at(0.50), "p50-ms")
	b.ReportMetric(at(0.95), "p95-ms")
}

// BenchmarkRecallReal measures HNSW recall@10 against exact search on real
// embeddings: every vector stored in the index named by BRAID_BENCH_INDEX
// (for example SciFact indexed with two models: 11,456 vectors), queried
// with 200 of them. Skipped without that index.
func BenchmarkRecallReal(b *testing.B) {
	dir := os.Getenv("BRAID_BENCH_INDEX")
	if dir == "" {
		b.Skip("set BRAID_BENCH_INDEX to an index directory with stored embeddings")
	}
	st, err := index.OpenStore(filepath.Join(dir, "meta.db"), true)
	if err != nil {
		b.Fatal(err)
	}
	var vecs [][]float32
	err = st.ForEachVector(func(_, _ string, v []float32) error {
		vecs = append(vecs, v)
		return nil
	})
	st.Close()
	if err != nil || len(vecs) < 1000 {
		b.Fatalf("%d vectors (%v), want 1,000 or more", len(vecs), err)
	}
	x := vector.New(len(vecs[0]), nil)
	for i, v := range vecs {
		if err := x.Add(fmt.Sprint(i), v); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(vecs)), "vectors")
	r := rand.New(rand.NewPCG(5, 6))
	queries := make([]int, 200)
	for i := range queries {
		queries[i] = r.IntN(len(vecs))
	}
	hit, total := 0, 0
	var lat []time.Duration
	for i := 0; b.Loop(); i++ {
		q := vecs[queries[i%len(queries)]]
		start := time.Now()
		got, err := x.Search(q, 10)
		lat = append(lat, time.Since(start))
		if err != nil {
			b.Fatal(err)
		}
		want := exactTop(vecs, q, 10)
		for _, g := range got {
			if want[g.ID] {
				hit++
			}
		}
		total += len(want)
	}
	b.ReportMetric(float64(hit)/float64(total), "recall@10")
	reportPercentiles(b, lat)
}

func exactTop(vecs [][]float32, q []float32, k int) map[string]bool {
	type scoredID struct {
		id    int
		score float32
	}
	all := make([]scoredID, len(vecs))
	for i, v := range vecs {
		var dot float32
		for j := range v {
			dot += v[j] * q[j]
		}
		all[i] = scoredID{i, dot}
	}
	slices.SortFunc(all, func(a, b scoredID) int {
		if a.score != b.score {
			if a.score > b.score {
				return -1
			}
			return 1
		}
		return a.id - b.id
	})
	out := map[string]bool{}
	for _, s := range all[:k] {
		out[fmt.Sprint(s.id)] = true
	}
	return out
}
