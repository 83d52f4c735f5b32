package vector

import (
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/braidsearch/braid/internal/testenv"
)

// MapResident maps the codes of a file the system holds in memory (one
// just written) into the process: the resident set grows by about their
// size, which a trusted Load alone (no checksums read) does not touch;
// and the search answers as the graph saved did.
func TestMapResident(t *testing.T) {
	const n, dim = 4000, 128
	r := rand.New(rand.NewSource(3))
	x := New(dim, &Options{EfSearch: 32})
	for i := range n {
		testenv.Must(t, x.Add(strconv.Itoa(i), unitVec(r, dim)))
	}
	path := filepath.Join(t.TempDir(), "g.hnsw")
	testenv.Must(t, x.Save(path))
	y, err := LoadTrusting(path, &Options{EfSearch: 32}, Trust{Checked: func(*os.File) bool { return true }})
	if err != nil {
		t.Fatal(err)
	}
	if y.g.mapped == nil || !y.g.mapped.mmapped || y.g.ncode != n {
		t.Skipf("the codes are not mapped (mapped %v, %d codes)", y.g.mapped != nil, y.g.ncode)
	}
	q := unitVec(r, dim)
	before := testenv.Must1(x.Search(q, 10))(t) // y's own would map its pages
	codes := n * codeBytes(dim)
	rss := rssFile(t)
	y.MapResident()
	if grew := rssFile(t) - rss; grew < codes*9/10 {
		t.Errorf("the resident set grew %d bytes, want about the codes' %d", grew, codes)
	}
	after := testenv.Must1(y.Search(q, 10))(t)
	if len(after) != len(before) || after[0] != before[0] {
		t.Errorf("search after MapResident %v, want %v", after, before)
	}
}

// rssFile is the process's resident file pages in bytes.
func rssFile(t *testing.T) int {
	t.Helper()
	b := testenv.Must1(os.ReadFile("/proc/self/status"))(t)
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "RssFile:"); ok {
			kb := testenv.Must1(strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB")))(t)
			return kb << 10
		}
	}
	t.Skip("no RssFile in /proc/self/status")
	return 0
}
