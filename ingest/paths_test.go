package ingest

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/braidsearch/braid/graph"
	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/internal/testenv"
	"github.com/braidsearch/braid/lexical"
	"github.com/braidsearch/braid/query"
)

// pathsVault is a folder source being changed, the paths each change
// touched (as package watch would report them) and an index kept in step
// with IndexPaths.
type pathsVault struct {
	t       *testing.T
	dir     string // the source
	out     string // a folder outside it
	rng     *rand.Rand
	n       int
	changed []string
	st      *index.Store
	lex     *lexical.Index
}

var pathsWords = []string{"quokka", "wombat", "heron", "lichen", "basalt", "fennel", "cobalt", "marmot", "saffron", "tundra"}

func newPathsVault(t *testing.T) *pathsVault {
	root := t.TempDir()
	v := &pathsVault{t: t, dir: filepath.Join(root, "vault"), out: filepath.Join(root, "outside"), rng: rand.New(rand.NewPCG(34, 3))}
	for _, d := range []string{v.dir, v.out, filepath.Join(v.dir, "a"), filepath.Join(v.dir, "b", "c")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	v.write(filepath.Join(v.out, "secret.md"), "# Secret\n\nthe password is saffron quokka\n")
	v.write(filepath.Join(v.dir, ".gitignore"), "*.tmp\ndrafts/\n")
	v.write(filepath.Join(v.dir, "pic.png"), "\x89PNG fake image bytes")
	v.write(filepath.Join(v.dir, "b", "diagram.png"), "\x89PNG another image")
	for range 12 {
		v.create()
	}
	v.changed = nil
	v.st, v.lex = openPair(t, t.TempDir())
	t.Cleanup(func() { v.lex.Close(); v.st.Close() })
	v.full(v.st, v.lex)
	return v
}

func (v *pathsVault) source(st *index.Store) *index.Source {
	id := index.SourceID(v.dir)
	src, err := st.Source(id)
	if err != nil {
		v.t.Fatal(err)
	}
	if src == nil {
		src = &index.Source{ID: id, Name: "vault", Path: v.dir, Kind: index.SourceDir}
	}
	return src
}

func (v *pathsVault) full(st *index.Store, lex *lexical.Index) *Summary {
	ix := &Indexer{Store: st, Lexical: lex, Opt: Options{Workers: 2, BatchDocs: 4}}
	sum := &Summary{}
	if err := ix.Index(context.Background(), v.source(st), sum); err != nil {
		v.t.Fatal(err)
	}
	return sum
}

// apply runs IndexPaths over the paths changed since the last apply.
func (v *pathsVault) apply() *Summary {
	ix := &Indexer{Store: v.st, Lexical: v.lex, Opt: Options{Workers: 2, BatchDocs: 4}}
	sum := &Summary{}
	if err := ix.IndexPaths(context.Background(), v.source(v.st), v.changed, sum); err != nil {
		v.t.Fatal(err)
	}
	v.changed = nil
	return sum
}

func (v *pathsVault) write(p, body string) {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		v.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		v.t.Fatal(err)
	}
}

// notes lists the vault's markdown files (links to them included).
func (v *pathsVault) notes() []string {
	var out []string
	filepath.WalkDir(v.dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && strings.HasSuffix(p, ".md") {
			out = append(out, p)
		}
		return nil
	})
	sort.Strings(out)
	return out
}

func (v *pathsVault) folders() []string {
	var out []string
	filepath.WalkDir(v.dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() && !strings.HasPrefix(d.Name(), ".") {
			out = append(out, p)
		}
		return nil
	})
	sort.Strings(out)
	return out
}

func (v *pathsVault) pick(list []string) string {
	if len(list) == 0 {
		return ""
	}
	return list[v.rng.IntN(len(list))]
}

// body is a note: a title, words, a link to another note, sometimes an
// image embed and a tag.
func (v *pathsVault) body(title string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", title)
	for range 3 + v.rng.IntN(8) {
		b.WriteString(pathsWords[v.rng.IntN(len(pathsWords))] + " ")
	}
	if n := v.pick(v.notes()); n != "" {
		fmt.Fprintf(&b, "\n\nSee [[%s]].", strings.TrimSuffix(filepath.Base(n), ".md"))
	}
	switch v.rng.IntN(4) {
	case 0:
		b.WriteString("\n\n![[pic.png]] a picture of " + pathsWords[v.rng.IntN(len(pathsWords))])
	case 1:
		b.WriteString("\n\n![diagram](b/diagram.png) #figure")
	}
	b.WriteString("\n")
	return b.String()
}

func (v *pathsVault) touch(p string) { v.changed = append(v.changed, p) }

func (v *pathsVault) create() {
	v.n++
	p := filepath.Join(v.pick(v.folders()), fmt.Sprintf("note%d.md", v.n))
	v.write(p, v.body(fmt.Sprintf("Note %d", v.n)))
	v.touch(p)
}

// step makes one random change, as a user, an editor or git would, and
// says what it did.
func (v *pathsVault) step() string {
	note := v.pick(v.notes())
	switch op := v.rng.IntN(12); {
	case op < 2 || note == "":
		v.create()
		return "create"
	case op < 4:
		v.write(note, v.body("Edited "+filepath.Base(note)))
		v.touch(note)
		return "edit " + note
	case op == 4:
		testenv.Must(v.t, os.Remove(note))
		v.touch(note)
		return "delete " + note
	case op == 5:
		v.n++
		to := filepath.Join(v.pick(v.folders()), fmt.Sprintf("moved%d.md", v.n))
		if err := os.Rename(note, to); err != nil {
			v.t.Fatal(err)
		}
		v.touch(note)
		v.touch(to)
		return "rename " + note + " to " + to
	case op == 6:
		// A folder of notes appears: the watch reports the folder (and,
		// racing its creation, perhaps not every file in it).
		v.n++
		d := filepath.Join(v.dir, fmt.Sprintf("new%d", v.n), "deeper")
		v.write(filepath.Join(d, "one.md"), v.body("One"))
		v.write(filepath.Join(filepath.Dir(d), "two.md"), v.body("Two"))
		v.touch(filepath.Dir(d))
		return "new folder " + d
	case op == 7:
		v.n++
		p := filepath.Join(v.dir, fmt.Sprintf("scratch%d.tmp", v.n))
		if info, err := os.Lstat(filepath.Join(v.dir, "drafts")); v.rng.IntN(2) == 0 && (err != nil || info.IsDir()) {
			p = filepath.Join(v.dir, "drafts", fmt.Sprintf("draft%d.md", v.n))
		}
		v.write(p, v.body("Ignored"))
		v.touch(p)
		return "gitignored " + p
	case op == 8:
		testenv.Must(v.t, os.Remove(note))
		if err := os.Symlink(filepath.Join(v.out, "secret.md"), note); err != nil {
			v.t.Fatal(err)
		}
		v.touch(note)
		return "link out " + note
	case op == 9:
		testenv.Must(v.t, os.Remove(note))
		if err := syscall.Mkfifo(note, 0o644); err != nil {
			v.t.Fatal(err)
		}
		v.touch(note)
		return "fifo " + note
	case op == 10:
		// An image appears, is renamed or goes: a link by name finds
		// one image, or two of the same name and so none.
		img := filepath.Join(v.pick(v.folders()), "pic.png")
		if _, err := os.Stat(img); err == nil {
			testenv.Must(v.t, os.Remove(img))
		} else {
			v.write(img, "\x89PNG one more pic")
		}
		v.touch(img)
		return "image " + img
	default:
		// A folder goes, or a link to a folder inside takes its place.
		d := v.pick(v.folders()[1:])
		if d == "" {
			return "nothing"
		}
		if err := os.RemoveAll(d); err != nil {
			v.t.Fatal(err)
		}
		v.touch(d)
		if v.rng.IntN(2) == 0 {
			if err := os.Symlink(filepath.Join(v.dir, "b"), d); err == nil {
				return "folder to link " + d
			}
		}
		return "remove folder " + d
	}
}

// pathsState is what an index holds, as comparable text: documents,
// chunks, resolved edges and search results.
type pathsState struct {
	Docs, Chunks, Edges map[string]string
	Hits                map[string][]string
}

func pathsSnapshot(t *testing.T, st *index.Store, lex *lexical.Index) pathsState {
	t.Helper()
	s := pathsState{Docs: map[string]string{}, Chunks: map[string]string{}, Edges: map[string]string{}, Hits: map[string][]string{}}
	err := st.ForEachDoc(func(d *index.Document) error {
		c := *d
		c.IndexedAt = time.Time{}
		b := testenv.Must1(json.Marshal(c))(t)
		s.Docs[d.Path] = string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	err = st.ForEachChunk(func(c *index.Chunk) error {
		b := testenv.Must1(json.Marshal(c))(t)
		s.Chunks[c.ID] = string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	err = st.Graph(func(r *graph.Reader) error {
		return r.ForEachEdge(func(e graph.Edge) error {
			b := testenv.Must1(json.Marshal(e))(t)
			s.Edges[fmt.Sprintf("%s:%s:%d:%s", e.From, e.Target, e.Line, e.Type)] = string(b)
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := lex.DocCount(); err != nil || n == 0 {
		return s // nothing to search (an empty index has no BM25 statistics)
	}
	for _, w := range append(slices.Clone(pathsWords), "note", "picture", "password") {
		q, err := query.Parse(w)
		if err != nil {
			t.Fatal(err)
		}
		cands, _, err := lex.Search(context.Background(), lexical.Request{Query: q, Size: 100})
		if err != nil {
			t.Fatalf("search %q: %v", w, err)
		}
		for _, c := range cands {
			s.Hits[w] = append(s.Hits[w], fmt.Sprintf("%s %.4f", c.ChunkID, c.Score))
		}
	}
	return s
}

// TestIndexPathsMatchesAFullIndex makes random changes to a vault
// (creates, edits, deletes, renames, new folders, gitignored files, a
// note turned into a link leading out or a FIFO, images appearing and
// going, folders removed or turned into links) and after each few runs
// IndexPaths over the changed paths: the index must hold what a full
// index of the vault from scratch holds.
func TestIndexPathsMatchesAFullIndex(t *testing.T) {
	v := newPathsVault(t)
	for round := range 40 {
		var did []string
		for range 1 + v.rng.IntN(3) {
			did = append(did, v.step())
		}
		sum := v.apply()
		if sum.Walked != "" {
			t.Fatalf("round %d (%s): walked the whole source: %s", round, strings.Join(did, "; "), sum.Walked)
		}
		st, lex := openPair(t, t.TempDir())
		v.full(st, lex)
		want, got := pathsSnapshot(t, st, lex), pathsSnapshot(t, v.st, v.lex)
		walked := v.source(st).Files
		lex.Close()
		st.Close()
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("round %d (%s): the changed paths' index differs from a full index (-full +paths):\n%s", round, strings.Join(did, "; "), diff)
		}
		if files := v.source(v.st).Files; files < walked {
			t.Fatalf("round %d (%s): Source.Files %d, below the %d files a walk lists", round, strings.Join(did, "; "), files, walked)
		}
	}
}

// TestIndexPathsReadsOnlyThem edits one note of a vault and checks that
// IndexPaths reads that file alone, where a walk reads every one.
func TestIndexPathsReadsOnlyThem(t *testing.T) {
	v := newPathsVault(t)
	var mu sync.Mutex
	var read []string
	readFile = func(r *reader, p string) ([]byte, error) {
		mu.Lock()
		read = append(read, p)
		mu.Unlock()
		return r.read(p)
	}
	t.Cleanup(func() { readFile = (*reader).read })
	// A note that links no image: the edit changes no image's text.
	note := v.notes()[slices.IndexFunc(v.notes(), func(p string) bool {
		b, err := os.ReadFile(p)
		return err == nil && !strings.Contains(string(b), ".png")
	})]
	v.write(note, "# Edited\n\nonly this note changed, marmot\n")
	v.touch(note)
	sum := v.apply()
	if sum.Walked != "" || sum.Paths != 1 || sum.Updated != 1 {
		t.Errorf("summary %+v, want one changed path looked at and one note updated", sum)
	}
	if want := []string{note}; !slices.Equal(read, want) {
		t.Errorf("read %q, want only %q", read, want)
	}
	read = nil
	v.full(v.st, v.lex)
	if len(read) < len(v.notes()) {
		t.Errorf("a walk read %d files of %d notes; the hook misses reads", len(read), len(v.notes()))
	}
}

// TestIndexPathsWalksWhenUnsure checks the changes IndexPaths hands to a
// walk of the whole source, saying why.
func TestIndexPathsWalksWhenUnsure(t *testing.T) {
	v := newPathsVault(t)
	for _, c := range []struct {
		name, why string
		change    func() []string
	}{
		{"gitignore", "a .gitignore changed", func() []string {
			p := filepath.Join(v.dir, ".gitignore")
			v.write(p, "*.tmp\n")
			return []string{p}
		}},
		{"root", "the source folder itself changed", func() []string { return []string{v.dir} }},
		{"many", "paths changed, over half the source's", func() []string {
			var ps []string
			for i := range minWalkPaths {
				p := filepath.Join(v.dir, fmt.Sprintf("bulk%d.md", i))
				v.write(p, "# Bulk\n\ntundra\n")
				ps = append(ps, p)
			}
			return ps
		}},
	} {
		v.changed = c.change()
		sum := v.apply()
		if !strings.Contains(sum.Walked, c.why) || sum.Paths != 0 || sum.Sources != 1 {
			t.Errorf("%s: walked %q, %d changed paths, %d sources; want a walk saying %q", c.name, sum.Walked, sum.Paths, sum.Sources, c.why)
		}
	}
	src := v.source(v.st)
	src.MaxFiles = src.Files
	if err := v.st.PutSource(src); err != nil {
		t.Fatal(err)
	}
	v.create()
	if sum := v.apply(); !strings.Contains(sum.Walked, "past its") || sum.Skipped.OverFileLimit != 1 {
		t.Errorf("a new file at the file limit: walked %q, skipped %+v; want a walk that skips one file over the limit", sum.Walked, sum.Skipped)
	}
}
