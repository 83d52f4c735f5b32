package ingest

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/internal/testenv"
)

// statVault is a folder source indexed again and again, recording which
// files each run read.
type statVault struct {
	t    *testing.T
	dir  string
	st   *index.Store
	ix   *Indexer
	mu   sync.Mutex
	read []string
}

func newStatVault(t *testing.T, notes map[string]string) *statVault {
	v := &statVault{t: t, dir: t.TempDir()}
	for name, body := range notes {
		v.write(name, body)
	}
	st, lex := openPair(t, t.TempDir())
	t.Cleanup(func() { lex.Close(); st.Close() })
	v.st, v.ix = st, &Indexer{Store: st, Lexical: lex, Opt: Options{Workers: 2, BatchDocs: 2}}
	read := readFile
	t.Cleanup(func() { readFile = read })
	readFile = func(r *reader, p string) ([]byte, error) {
		v.mu.Lock()
		rel, _ := filepath.Rel(v.dir, p)
		v.read = append(v.read, filepath.ToSlash(rel))
		v.mu.Unlock()
		return r.read(p)
	}
	return v
}

func (v *statVault) write(name, body string) {
	v.t.Helper()
	testenv.Must(v.t, os.WriteFile(filepath.Join(v.dir, name), []byte(body), 0o644))
}

// run indexes the vault with ctx and returns its summary and the files it
// read, sorted.
func (v *statVault) run(ctx context.Context) (*Summary, []string, error) {
	v.read = nil
	src, err := v.st.Source(index.SourceID(v.dir))
	testenv.Must(v.t, err)
	if src == nil {
		src = &index.Source{ID: index.SourceID(v.dir), Name: "vault", Path: v.dir, Kind: index.SourceDir}
	}
	sum := &Summary{}
	err = v.ix.Index(ctx, src, sum)
	sort.Strings(v.read)
	return sum, v.read, err
}

func (v *statVault) index() (*Summary, []string) {
	v.t.Helper()
	sum, read, err := v.run(context.Background())
	testenv.Must(v.t, err)
	return sum, read
}

// hash is the content hash the index holds for a note.
func (v *statVault) hash(name string) string {
	v.t.Helper()
	e, err := v.st.Entries(index.SourceID(v.dir))
	testenv.Must(v.t, err)
	return e[name].Hash
}

// TestUnchangedFilesUnread: a run reads no file whose status is the one
// recorded when its indexed content was read, and still catches every
// change a file can go through: new content of the same size under the
// same modification time (the change time moves), new content of another
// size, a touch (read, found unchanged, and not read again), a file
// renamed over another of the same size and time (another inode), a
// deletion, a new file, and a change that a run cut short left unindexed.
func TestUnchangedFilesUnread(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("file statuses are read on Linux only")
	}
	margin := statMargin
	t.Cleanup(func() { statMargin = margin })
	statMargin = -time.Minute // every status settled: the files are seconds old
	v := newStatVault(t, map[string]string{
		"same.md":    "# Same\n\nquokka wombat\n",
		"inplace.md": "# In place\n\nheron lichen\n",
		"grown.md":   "# Grown\n\nbasalt\n",
		"touched.md": "# Touched\n\nfennel\n",
		"renamed.md": "# Renamed\n\ncobalt\n",
		"gone.md":    "# Gone\n\nmarmot\n",
		"cut.md":     "# Cut\n\nsaffron\n",
	})
	all := []string{"cut.md", "gone.md", "grown.md", "inplace.md", "renamed.md", "same.md", "touched.md"}
	if sum, read := v.index(); sum.Added != 7 || !slices.Equal(read, all) {
		t.Fatalf("first run: added %d, read %q; want 7, every file", sum.Added, read)
	}
	if sum, read := v.index(); sum.Unchanged != 7 || len(read) != 0 {
		t.Fatalf("second run: unchanged %d, read %q; want 7 and no file read", sum.Unchanged, read)
	}

	stat := func(name string) os.FileInfo {
		info, err := os.Stat(filepath.Join(v.dir, name))
		testenv.Must(t, err)
		return info
	}
	// The same size and modification time, new content: the change time
	// moves (a clock tick is at most 10 ms).
	before := stat("inplace.md")
	time.Sleep(20 * time.Millisecond)
	v.write("inplace.md", "# In place\n\nheron LICHEN\n")
	testenv.Must(t, os.Chtimes(filepath.Join(v.dir, "inplace.md"), before.ModTime(), before.ModTime()))
	v.write("grown.md", "# Grown\n\nbasalt and more\n")
	testenv.Must(t, os.Chtimes(filepath.Join(v.dir, "touched.md"), time.Now(), time.Now()))
	// Another file of the same size and time takes renamed.md's name.
	old := stat("renamed.md")
	v.write("new.tmp", "# Renamed\n\nCOBALT\n")
	testenv.Must(t, os.Chtimes(filepath.Join(v.dir, "new.tmp"), old.ModTime(), old.ModTime()))
	testenv.Must(t, os.Rename(filepath.Join(v.dir, "new.tmp"), filepath.Join(v.dir, "renamed.md")))
	testenv.Must(t, os.Remove(filepath.Join(v.dir, "gone.md")))
	v.write("added.md", "# Added\n\ntundra\n")

	inplace, renamed := v.hash("inplace.md"), v.hash("renamed.md")
	sum, read := v.index()
	if want := []string{"added.md", "grown.md", "inplace.md", "renamed.md", "touched.md"}; !slices.Equal(read, want) {
		t.Errorf("after the changes, read %q, want %q", read, want)
	}
	if sum.Added != 1 || sum.Updated != 3 || sum.Removed != 1 || sum.Unchanged != 3 {
		t.Errorf("after the changes: added %d, updated %d, removed %d, unchanged %d; want 1, 3, 1, 3", sum.Added, sum.Updated, sum.Removed, sum.Unchanged)
	}
	if v.hash("inplace.md") == inplace || v.hash("renamed.md") == renamed {
		t.Error("a note changed under the same size and time keeps its old content's hash")
	}
	if _, read := v.index(); len(read) != 0 {
		t.Errorf("the run after the changes read %q, want none", read)
	}

	// A change a run cut short did not index is read by the next run.
	v.write("cut.md", "# Cut\n\nsaffron, cut short\n")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := v.run(ctx); err == nil {
		t.Fatal("a run with its context done did not fail")
	}
	if sum, read := v.index(); sum.Updated != 1 || !slices.Equal(read, []string{"cut.md"}) {
		t.Errorf("after a run cut short: updated %d, read %q; want 1, cut.md", sum.Updated, read)
	}
}

// TestRecentFilesRead: a file whose times are not statMargin older than
// the walk has its status left unrecorded (a second write within the same
// clock tick would not change it), so the next run reads it again.
func TestRecentFilesRead(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("file statuses are read on Linux only")
	}
	margin := statMargin
	t.Cleanup(func() { statMargin = margin })
	statMargin = time.Hour
	v := newStatVault(t, map[string]string{"a.md": "# A\n\nquokka\n", "b.md": "# B\n\nwombat\n"})
	v.index()
	if sum, read := v.index(); sum.Unchanged != 2 || len(read) != 2 {
		t.Errorf("second run: unchanged %d, read %q; want both files read again", sum.Unchanged, read)
	}
}

// TestStatOfAnotherContent: a status recorded beside content the index no
// longer holds (a braid that does not record statuses indexed the file
// since) does not count.
func TestStatOfAnotherContent(t *testing.T) {
	st, _ := openPair(t, t.TempDir())
	t.Cleanup(func() { st.Close() })
	d := &index.Document{ID: "d", SourceID: "s", Path: "a.md", Hash: "new"}
	p, err := st.Commit([]index.Change{{Doc: d, Chunks: []index.Chunk{{ID: "d#0", DocID: "d", Text: "x"}}}})
	testenv.Must(t, err)
	testenv.Must(t, st.ClearPending(p.Gen))
	fs := index.FileStat{Size: 1, ModNS: 2, ChangeNS: 3, Ino: 4, Dev: 5}
	testenv.Must(t, st.PutStats("s", []index.StatRecord{{Path: "a.md", Stat: fs, Hash: "old"}}))
	stat := func() *index.FileStat {
		t.Helper()
		return testenv.Must1(st.EntriesWithStats("s"))(t)["a.md"].Stat
	}
	if got := stat(); got != nil {
		t.Errorf("EntriesWithStats gives %v for a status recorded beside other content, want none", got)
	}
	testenv.Must(t, st.PutStats("s", []index.StatRecord{{Path: "a.md", Stat: fs, Hash: "new"}}))
	if got := stat(); got == nil || *got != fs {
		t.Errorf("EntriesWithStats gives %v, want a.md's status", got)
	}
	// The document's removal takes its status with it.
	p, err = st.Commit([]index.Change{{DeleteID: "d"}})
	testenv.Must(t, err)
	testenv.Must(t, st.ClearPending(p.Gen))
	// A document at the path again, of the content the status was
	// recorded beside: the status went with the first.
	p, err = st.Commit([]index.Change{{Doc: d, Chunks: []index.Chunk{{ID: "d#0", DocID: "d", Text: "x"}}}})
	testenv.Must(t, err)
	testenv.Must(t, st.ClearPending(p.Gen))
	if got := stat(); got != nil {
		t.Errorf("EntriesWithStats gives %v after the document went and came back, want none", got)
	}
}
