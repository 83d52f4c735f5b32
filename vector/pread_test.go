package vector

import (
	"math/rand"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/braidsearch/braid/internal/testenv"
)

// TestPread: a graph loaded with Options.Pread answers every search as
// the mapped graph does, ids and scores, walking (2,000 nodes) or
// comparing with every vector (300); with a change log's nodes, rows and
// tombstones replayed beside the file's; and after adds to both. Its
// searches read the file: closed under it, a search fails and says so.
func TestPread(t *testing.T) {
	for _, c := range []struct {
		name string
		n    int
	}{{"walk", 2000}, {"exact", 300}} {
		t.Run(c.name, func(t *testing.T) {
			d := clusteredSet(c.n, 30, 32, 11)
			opt := &Options{EfSearch: 48}
			x := build(t, d, opt)
			for i := 0; i < c.n; i += 7 {
				x.Delete(idOf(i))
			}
			path := filepath.Join(t.TempDir(), "v.vec")
			testenv.Must(t, x.Save(path))
			// A few changes: appended to the log, replayed at Load.
			r := rand.New(rand.NewSource(12))
			for i := range c.n / 100 {
				testenv.Must(t, x.Add(idOf(c.n+i), unitVec(r, 32)))
			}
			x.Delete(idOf(3))
			testenv.Must(t, x.Save(path))
			if _, err := os.Stat(LogPath(path)); err != nil {
				t.Fatalf("no change log after a few changes: %v", err)
			}

			mapped, err := Load(path, opt)
			if err != nil {
				t.Fatal(err)
			}
			pread, err := Load(path, &Options{EfSearch: 48, Pread: true})
			if err != nil {
				t.Fatal(err)
			}
			if !littleEndian || !mapFileWorks {
				if pread.g.pread != nil {
					t.Fatal("Pread set where the file is not mapped")
				}
				return
			}
			if pread.g.pread == nil || mapped.g.pread != nil {
				t.Fatalf("reads from the file: Pread %v, mapped %v; want true, false", pread.g.pread != nil, mapped.g.pread != nil)
			}
			if pread.g.over == nil || len(pread.g.rows.ps) == 0 {
				t.Fatal("the log's replay left no overlay rows or nodes in memory: the test misses them")
			}
			for _, k := range []int{1, 10, 40} {
				if diff := cmp.Diff(searchAll(t, mapped, d.queries, k), searchAll(t, pread, d.queries, k)); diff != "" {
					t.Errorf("k=%d (-mapped +pread):\n%s", k, diff)
				}
			}
			for i := range 30 {
				v := unitVec(r, 32)
				testenv.Must(t, mapped.Add(idOf(2*c.n+i), v))
				testenv.Must(t, pread.Add(idOf(2*c.n+i), v))
			}
			if diff := cmp.Diff(searchAll(t, mapped, d.queries, 10), searchAll(t, pread, d.queries, 10)); diff != "" {
				t.Errorf("after adds (-mapped +pread):\n%s", diff)
			}

			pread.g.pread.f.(*os.File).Close()
			if _, err := pread.Search(d.queries[0], 10); err == nil {
				t.Error("search of a closed file: no error")
			}
		})
	}
}
