package doctor_test

import (
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/braidsearch/braid/doctor"
	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/indexdir"
	"github.com/braidsearch/braid/internal/testenv"
	"github.com/braidsearch/braid/lexical"
	"github.com/braidsearch/braid/vector"
)

// newIndex makes an empty index directory the way the engine does: VERSION,
// meta.db and lexical.bleve.
func newIndex(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Chmod(dir, indexdir.DirMode); err != nil { // as braid makes it, so Repair has nothing to tighten
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, indexdir.VersionFile), []byte(indexdir.VersionText(indexdir.SchemaVersion)), indexdir.FileMode); err != nil {
		t.Fatal(err)
	}
	st, err := index.OpenStore(filepath.Join(dir, indexdir.StoreFile), false)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	lex, err := lexical.Open(filepath.Join(dir, indexdir.LexicalDir), false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := lex.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestCheckFilesNoIndex(t *testing.T) {
	checks, err := doctor.CheckFiles(t.TempDir())
	if err != nil || checks != nil {
		t.Errorf("CheckFiles of an empty directory = %+v, %v; want no checks", checks, err)
	}
}

// TestCheckFilesAndRepair damages one file of a sound index at a time:
// CheckFiles names it, Repair fixes it and says so, and CheckFiles then
// passes again.
func TestCheckFilesAndRepair(t *testing.T) {
	tests := []struct {
		name   string
		damage func(t *testing.T, dir string)
		found  string // in the failed check's detail
		did    string // in Repair's one line
	}{
		{"garbled VERSION", func(t *testing.T, dir string) {
			if err := os.WriteFile(filepath.Join(dir, indexdir.VersionFile), []byte("braid index\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "VERSION is missing or garbled", "rewrote "},
		{"missing lexical index", func(t *testing.T, dir string) {
			if err := os.RemoveAll(filepath.Join(dir, indexdir.LexicalDir)); err != nil {
				t.Fatal(err)
			}
		}, "lexical.bleve", "rebuilt "},
		{"damaged vectors", func(t *testing.T, dir string) {
			if err := os.WriteFile(filepath.Join(dir, "vectors-m.hnsw"), []byte("not a graph"), 0o600); err != nil {
				t.Fatal(err)
			}
		}, "vectors-m.hnsw is damaged", "removed "},
		{"damaged change log", func(t *testing.T, dir string) {
			// A sound graph, and a log whose one record is there twice:
			// the second passes its checksum and does not fit.
			p := filepath.Join(dir, "vectors-m.hnsw")
			x := vector.New(8, nil)
			r := rand.New(rand.NewSource(1))
			vec := func() []float32 {
				v := make([]float32, 8)
				for i := range v {
					v[i] = float32(r.NormFloat64())
				}
				return v
			}
			for i := range 1000 {
				testenv.Must(t, x.Add(fmt.Sprint(i), vec()))
			}
			if err := x.Save(p); err != nil {
				t.Fatal(err)
			}
			testenv.Must(t, x.Add("one more", vec()))
			if err := x.Save(p); err != nil {
				t.Fatal(err)
			}
			log, err := os.ReadFile(vector.LogPath(p))
			if err != nil {
				t.Fatal(err)
			}
			const header = 32 // the log's header, then its record
			if err := os.WriteFile(vector.LogPath(p), append(log, log[header:]...), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "vectors-m.hnsw is damaged (its change log vectors-m.hnsw.log: the record at byte", "removed " + "vectors-m.hnsw and its log"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := newIndex(t)
			sound := []doctor.Check{{Name: "files", OK: true, Detail: "VERSION, meta.db, lexical.bleve and 0 vector files are readable"}}
			if got, err := doctor.CheckFiles(dir); err != nil || cmp.Diff(sound, got) != "" {
				t.Fatalf("CheckFiles before damage (-want +got): %v\n%s", err, cmp.Diff(sound, got))
			}
			tt.damage(t, dir)
			got, err := doctor.CheckFiles(dir)
			if err != nil || len(got) != 1 || got[0].OK || !strings.Contains(got[0].Detail, tt.found) {
				t.Fatalf("CheckFiles after damage = %+v, %v; want one failed check naming %q", got, err, tt.found)
			}
			did, err := doctor.Repair(dir)
			if err != nil || len(did) != 1 || !strings.HasPrefix(strings.ReplaceAll(did[0], dir+string(filepath.Separator), ""), tt.did) {
				t.Fatalf("Repair = %q, %v; want one line starting %q", did, err, tt.did)
			}
			if got, err := doctor.CheckFiles(dir); err != nil || cmp.Diff(sound, got) != "" {
				t.Errorf("CheckFiles after Repair (-want +got): %v\n%s", err, cmp.Diff(sound, got))
			}
		})
	}
}

// A VERSION that is a FIFO or a link is not read: opening the index says
// it is damaged and names doctor --repair, CheckFiles says the same, and
// Repair puts a regular file in its place, all without blocking.
func TestVersionNotRegular(t *testing.T) {
	for _, tt := range []struct {
		name string
		make func(t *testing.T, vp string)
		want string
	}{
		{"FIFO", func(t *testing.T, vp string) {
			if err := syscall.Mkfifo(vp, 0o644); err != nil {
				t.Fatal(err)
			}
		}, "is a FIFO"},
		{"link to a sound VERSION", func(t *testing.T, vp string) {
			other := filepath.Join(t.TempDir(), "VERSION")
			if err := os.WriteFile(other, []byte(indexdir.VersionText(indexdir.SchemaVersion)), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(other, vp); err != nil {
				t.Fatal(err)
			}
		}, "is a symbolic link"},
		{"link to /dev/zero", func(t *testing.T, vp string) {
			if err := os.Symlink("/dev/zero", vp); err != nil {
				t.Fatal(err)
			}
		}, "is a symbolic link"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := newIndex(t)
			vp := filepath.Join(dir, indexdir.VersionFile)
			if err := os.Remove(vp); err != nil {
				t.Fatal(err)
			}
			tt.make(t, vp)
			done := make(chan struct{})
			go func() {
				defer close(done)
				for _, readOnly := range []bool{true, false} {
					_, err := indexdir.Version(dir, readOnly, index.Upgradable)
					if !errors.Is(err, indexdir.ErrCorrupt) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "doctor --repair") {
						t.Errorf("Version(readOnly %v) = %v; want it damaged, saying %q and naming doctor --repair", readOnly, err, tt.want)
					}
				}
				got, err := doctor.CheckFiles(dir)
				if err != nil || len(got) != 1 || got[0].OK || !strings.Contains(got[0].Detail, tt.want) {
					t.Errorf("CheckFiles = %+v, %v; want one failed check saying %q", got, err, tt.want)
				}
				if did, err := doctor.Repair(dir); err != nil || len(did) != 1 || !strings.HasPrefix(did[0], "rewrote ") {
					t.Errorf("Repair = %q, %v; want VERSION rewritten", did, err)
				}
				if _, err := indexdir.Version(dir, true, index.Upgradable); err != nil {
					t.Errorf("Version after Repair: %v", err)
				}
			}()
			select {
			case <-done:
			case <-time.After(testenv.Guard): // a last guard: a read blocked on the FIFO
				t.Fatalf("Version, CheckFiles and Repair did not finish within %v", testenv.Guard)
			}
		})
	}
}

func TestStoreMissing(t *testing.T) {
	if err := indexdir.StoreMissing(t.TempDir()); err != nil {
		t.Errorf("StoreMissing of an empty directory: %v, want nil", err)
	}
	dir := newIndex(t)
	if err := indexdir.StoreMissing(dir); err != nil {
		t.Errorf("StoreMissing of a sound index: %v, want nil", err)
	}
	if err := os.Remove(filepath.Join(dir, indexdir.StoreFile)); err != nil {
		t.Fatal(err)
	}
	if err := indexdir.StoreMissing(dir); !errors.Is(err, indexdir.ErrCorrupt) {
		t.Errorf("StoreMissing without meta.db beside lexical.bleve: %v, want ErrCorrupt", err)
	}
}

func TestWellFormedVersion(t *testing.T) {
	for _, tt := range []struct {
		text string
		want bool
	}{
		{indexdir.VersionText(indexdir.SchemaVersion), true},
		{indexdir.VersionText(1), true},
		{"braid index format 2", false},
		{"braid index format x\n", false},
		{"", false},
	} {
		if got := indexdir.WellFormedVersion([]byte(tt.text)); got != tt.want {
			t.Errorf("WellFormedVersion(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}

func TestConsistencyOfEmptyIndex(t *testing.T) {
	dir := newIndex(t)
	st, err := index.OpenStore(filepath.Join(dir, indexdir.StoreFile), true)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	lex, err := lexical.Open(filepath.Join(dir, indexdir.LexicalDir), true, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer lex.Close()
	got, err := doctor.Consistency(doctor.Handles{
		Store:   st,
		Lexical: func() (*lexical.Index, error) { return lex, nil },
		Blobs:   doctor.Blobs(dir),
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []doctor.Check{
		{Name: "format", OK: true, Detail: fmt.Sprintf("index format %d", indexdir.SchemaVersion)},
		{Name: "commits", OK: true, Detail: "store at commit 0, lexical index at commit 0"},
		{Name: "lexical", OK: true, Detail: "0 chunks in the store, 0 in the lexical index"},
		{Name: "bm25", OK: true, Detail: "meta.db keeps no BM25 statistics of this commit: they are counted when a search needs them, and kept from the next braid index that changes something"},
		{Name: "chunks", OK: true, Detail: "0 documents own 0 chunks; 0 missing, 0 unowned"},
		{Name: "graph", OK: true, Detail: "0 of 0 documents in the link graph"},
		{Name: "store", OK: true, Detail: "0 stored documents, their content all present"},
		{Name: "sources", OK: true, Detail: "0 sources, all paths present"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Consistency (-want +got):\n%s", diff)
	}
}

// TestConsistencyDamagedLexical is a damaged lexical index found on the
// way: a failed files check, not an error.
func TestConsistencyDamagedLexical(t *testing.T) {
	dir := newIndex(t)
	st, err := index.OpenStore(filepath.Join(dir, indexdir.StoreFile), true)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	lp := filepath.Join(dir, indexdir.LexicalDir)
	got, err := doctor.Consistency(doctor.Handles{
		Store:   st,
		Lexical: func() (*lexical.Index, error) { return nil, lexical.Missing(lp) },
		Blobs:   doctor.Blobs(dir),
	})
	want := []doctor.Check{{Name: "files", Detail: lexical.Missing(lp).Error()}}
	if diff := cmp.Diff(want, got); err != nil || diff != "" {
		t.Errorf("Consistency: %v (-want +got):\n%s", err, diff)
	}
}
