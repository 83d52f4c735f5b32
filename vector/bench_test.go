package vector

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/coder/hnsw"

	"github.com/braidsearch/braid/internal/testenv"
)

// bench10k is built once per process: two 10,000-vector graphs with the
// default options, their queries and the exact answers.
var bench10k = sync.OnceValue(func() []benchSet {
	var out []benchSet
	for _, d := range []dataset{randomSet(10000, 200, 384, 1), clusteredSet(10000, 200, 384, 2)} {
		start := time.Now()
		x := New(384, nil)
		for i, v := range d.vecs {
			if err := x.Add(idOf(i), v); err != nil {
				panic(err)
			}
		}
		out = append(out, benchSet{d, x, truths(d, 50), time.Since(start)})
	}
	return out
})

type benchSet struct {
	dataset
	x     *Index
	truth [][]string
	build time.Duration
}

// BenchmarkSearch10k reports recall@k against brute force and the p50/p95
// latency of single searches on 10,000 384-d vectors, for a few EfSearch
// values (0 is the default).
func BenchmarkSearch10k(b *testing.B) {
	for _, s := range bench10k() {
		for _, ef := range []int{0, 32, 128, 512} {
			for _, k := range []int{10, 50} {
				b.Run(fmt.Sprintf("%s/ef=%d/k=%d", s.name, ef, k), func(b *testing.B) {
					s.x.opt.EfSearch = cmpOr(ef, DefaultEfSearch)
					defer func() { s.x.opt.EfSearch = DefaultEfSearch }()
					b.ReportAllocs()
					lat := make([]time.Duration, 0, b.N)
					hit := 0
					b.ResetTimer()
					for i := range b.N {
						qi := i % len(s.queries)
						start := time.Now()
						got, err := s.x.Search(s.queries[qi], k)
						lat = append(lat, time.Since(start))
						if err != nil {
							b.Fatal(err)
						}
						want := map[string]bool{}
						for _, id := range s.truth[qi][:k] {
							want[id] = true
						}
						for _, r := range got {
							if want[r.ID] {
								hit++
							}
						}
					}
					b.StopTimer()
					slices.Sort(lat)
					b.ReportMetric(float64(hit)/float64(k*b.N), fmt.Sprintf("recall@%d", k))
					b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
					b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds()), "p95-µs")
				})
			}
		}
	}
}

func cmpOr(a, b int) int {
	if a != 0 {
		return a
	}
	return b
}

// BenchmarkAdd builds graphs of n random 384-d vectors with the default
// options; ns/op is the build time of the whole graph.
func BenchmarkAdd(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		d := randomSet(n, 0, 384, 3)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(n * 384 * 4))
			for range b.N {
				x := New(384, nil)
				for i, v := range d.vecs {
					if err := x.Add(idOf(i), v); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*n), "µs/vector")
		})
	}
}

// BenchmarkSave10k writes the clustered 10k graph whole (to two files in
// turn, so no Save finds its file holding the graph already); file-bytes
// is the file size.
func BenchmarkSave10k(b *testing.B) {
	x := bench10k()[1].x
	dir := b.TempDir()
	paths := []string{filepath.Join(dir, "v.vec"), filepath.Join(dir, "w.vec")}
	path := paths[0]
	b.ReportAllocs()
	for i := range b.N {
		path = paths[i%2]
		if err := x.Save(path); err != nil {
			b.Fatal(err)
		}
	}
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	b.ReportMetric(float64(st.Size()), "file-bytes")
}

// savedGraph is a graph of n clustered 384-d vectors (built with a small
// EfConstruction, which changes how long it takes to build, not what it
// takes to save), built once per process.
var savedGraph = map[int]func() *Index{}

func init() {
	for _, n := range []int{10_000, 50_000} {
		savedGraph[n] = sync.OnceValue(func() *Index {
			x := New(384, &Options{EfConstruction: 32})
			for i, v := range clusteredSet(n, 0, 384, 3).vecs {
				if err := x.Add(idOf(i), v); err != nil {
					panic(err)
				}
			}
			return x
		})
	}
}

// BenchmarkSaveChanged times the Save after 10 vectors of a loaded graph
// were replaced (an edit of a note of 10 chunks), as the log appends them
// (log) and as a whole file (whole: what every such Save did before the
// log); bytes-written/op counts the log's growth, or the whole file when
// Save compacts or writes whole. The edits are not timed.
func BenchmarkSaveChanged(b *testing.B) {
	for _, n := range []int{10_000, 50_000} {
		for _, mode := range []string{"log", "whole"} {
			b.Run(fmt.Sprintf("n=%dk/%s", n/1000, mode), func(b *testing.B) {
				path := filepath.Join(b.TempDir(), "v.vec")
				if err := savedGraph[n]().Save(path); err != nil {
					b.Fatal(err)
				}
				x, err := Load(path, nil)
				if err != nil {
					b.Fatal(err)
				}
				r := rand.New(rand.NewSource(1))
				size := func(p string) (os.FileInfo, int64) {
					st, err := os.Stat(p)
					if err != nil {
						return nil, 0
					}
					return st, st.Size()
				}
				var written int64
				b.ResetTimer()
				for range b.N {
					b.StopTimer()
					for range 10 {
						if err := x.Add(idOf(r.Intn(n)), unitVec(r, 384)); err != nil {
							b.Fatal(err)
						}
					}
					if mode == "whole" {
						x.disk = nil
					}
					f0, _ := size(path)
					_, l0 := size(LogPath(path))
					b.StartTimer()
					if err := x.Save(path); err != nil {
						b.Fatal(err)
					}
					b.StopTimer()
					f1, fn := size(path)
					_, l1 := size(LogPath(path))
					switch {
					case !os.SameFile(f0, f1):
						written += fn
					case l1 >= l0:
						written += l1 - l0
					default:
						written += l1
					}
					b.StartTimer()
				}
				b.ReportMetric(float64(written)/float64(b.N), "bytes-written/op")
			})
		}
	}
}

// loadGraph is a graph of n clustered 384-d vectors for BenchmarkLoad,
// built once per process with AddBatch and a small EfConstruction (how
// well it is linked barely changes what opening it costs).
var loadGraph = map[int]func() *Index{}

func init() {
	for _, n := range []int{10_000, 100_000} {
		loadGraph[n] = sync.OnceValue(func() *Index {
			d := clusteredSet(n, 0, 384, 4)
			x := New(384, &Options{EfConstruction: 32})
			if err := x.AddBatch(idsOf(0, n), d.vecs); err != nil {
				panic(err)
			}
			return x
		})
	}
}

// BenchmarkLoad opens a saved graph of n clustered 384-d vectors (load)
// and opens it and searches it once (load+search: a fresh braid search's
// vector side, with the file in the page cache); load-trusted opens it as
// a file its stamp vouches for (Trust: the links' and ids' checksums not
// read). heap-MB is what the
// opened index holds on the Go heap; file-MB the file's size.
func BenchmarkLoad(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		for _, mode := range []string{"load", "load+search", "load-trusted"} {
			search, trusted := mode == "load+search", mode == "load-trusted"
			b.Run(fmt.Sprintf("n=%dk/%s", n/1000, mode), func(b *testing.B) {
				path := filepath.Join(b.TempDir(), "v.vec")
				if err := loadGraph[n]().Save(path); err != nil {
					b.Fatal(err)
				}
				st, err := os.Stat(path)
				if err != nil {
					b.Fatal(err)
				}
				q := unitVec(rand.New(rand.NewSource(1)), 384)
				var heap uint64
				b.ReportAllocs()
				b.ResetTimer()
				for range b.N {
					var before, after runtime.MemStats
					b.StopTimer()
					runtime.GC()
					runtime.ReadMemStats(&before)
					b.StartTimer()
					x, err := LoadTrusting(path, nil, Trust{Checked: func(*os.File) bool { return trusted }})
					if err != nil {
						b.Fatal(err)
					}
					if search {
						if _, err := x.Search(q, 10); err != nil {
							b.Fatal(err)
						}
					}
					b.StopTimer()
					runtime.GC()
					runtime.ReadMemStats(&after)
					heap += after.HeapAlloc - min(before.HeapAlloc, after.HeapAlloc)
					runtime.KeepAlive(x)
					b.StartTimer()
				}
				b.ReportMetric(float64(heap)/float64(b.N)/(1<<20), "heap-MB")
				b.ReportMetric(float64(st.Size())/(1<<20), "file-MB")
			})
		}
	}
}

// BenchmarkCoderHNSW10k measures github.com/coder/hnsw v0.6.1 on the same
// data, as the record of why this package carries its own graph: its
// search keeps near-zero recall whatever the candidate list size, because
// its heap's Max and PopLast evict arbitrary elements and its search stops
// at the first step that does not beat the best result so far (upstream
// coder/hnsw PRs #17, #20, #22, unreleased at v0.6.1).
func BenchmarkCoderHNSW10k(b *testing.B) {
	for _, s := range bench10k() {
		b.Run(s.name, func(b *testing.B) {
			g := hnsw.NewGraph[int]()
			g.Rng = rand.New(rand.NewSource(1))
			g.EfSearch = 512
			for i, v := range s.vecs {
				g.Add(hnsw.MakeNode(i, v))
			}
			hit := 0
			b.ResetTimer()
			for i := range b.N {
				qi := i % len(s.queries)
				want := map[string]bool{}
				for _, id := range s.truth[qi][:10] {
					want[id] = true
				}
				for _, n := range g.Search(s.queries[qi], 10) {
					if want[idOf(n.Key)] {
						hit++
					}
				}
			}
			b.ReportMetric(float64(hit)/float64(10*b.N), "recall@10")
		})
	}
}

// BenchmarkSearchSmall compares, for top 50 at the default EfSearch, the
// exact scan with the graph walk on clustered 384-d sets of a few thousand
// vectors: where the scan is faster sets exactBelow.
func BenchmarkSearchSmall(b *testing.B) {
	for _, n := range []int{1000, 2000, 4000, 8000} {
		d := clusteredSet(n, 100, 384, int64(n))
		x := New(384, nil)
		for i, v := range d.vecs {
			if err := x.Add(idOf(i), v); err != nil {
				b.Fatal(err)
			}
		}
		qs := make([]*probe, len(d.queries))
		for i, q := range d.queries {
			qs[i] = x.g.codeProbe(testenv.Must1(x.unit(q))(b))
		}
		for _, way := range []string{"exact", "graph"} {
			b.Run(fmt.Sprintf("n=%d/%s", n, way), func(b *testing.B) {
				for i := range b.N {
					q := qs[i%len(qs)]
					if way == "exact" {
						x.g.exact(q, 50)
					} else {
						x.g.search(q, DefaultEfSearch)
					}
				}
			})
		}
	}
}

// build100k is BenchmarkBuild100k's data, drawn once per process: 100,000
// clustered 384-d vectors, 100 queries from the same clusters and their
// exact top 10.
var build100k = sync.OnceValues(func() (dataset, [][]string) {
	d := clusteredSet(100_000, 100, 384, 9)
	return d, truths(d, 10)
})

// BenchmarkBuild100k builds a graph of 100,000 clustered 384-d vectors
// with the default options, in batches of 2,000 linked by two workers (an
// ingest's inserts on two cores); ns/op is the build's wall time, cpu-s
// the process's CPU time during it (unix; 0 elsewhere), and recall@10 that
// of 100 searches at the default EfSearch against brute force. Run it with
// -benchtime 1x: one build is tens of seconds.
func BenchmarkBuild100k(b *testing.B) {
	d, truth := build100k()
	const batch = 2000
	var x *Index
	var cpu time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		x = New(384, nil)
		c0 := processCPU()
		for i := 0; i < len(d.vecs); i += batch {
			j := min(i+batch, len(d.vecs))
			x.insertBatchWith(idsOf(i, j), d.vecs[i:j], 2)
		}
		cpu += processCPU() - c0
	}
	b.StopTimer()
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s")
	b.ReportMetric(recall(b, x, d, truth, 10), "recall@10")
}
