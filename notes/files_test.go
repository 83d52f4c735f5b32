package notes

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/braidsearch/braid/grep"
	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/internal/testenv"
)

// kbStore opens a new store holding one folder source, "kb" (id s1),
// whose folder (returned) is empty.
func kbStore(t *testing.T) (*index.Store, string) {
	t.Helper()
	st, err := index.OpenStore(filepath.Join(t.TempDir(), "meta.db"), false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	dir := t.TempDir()
	if err := st.PutSource(&index.Source{ID: "s1", Name: "kb", Path: dir, Kind: index.SourceDir}); err != nil {
		t.Fatal(err)
	}
	return st, dir
}

// filesReader reads a store whose one folder source indexed a.md, a/x.md
// and b.md, files that exist on disk in the returned folder.
func filesReader(t *testing.T) (*Reader, string) {
	t.Helper()
	st, dir := kbStore(t)
	var batch []index.Change
	for i, rel := range []string{"b.md", "a.md", "a/x.md"} {
		abs := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte("words\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		id := string(rune('p' + i))
		batch = append(batch, index.Change{Doc: &index.Document{ID: id, SourceID: "s1", Path: rel, Hash: id, Kind: index.KindMarkdown}})
	}
	p, err := st.Commit(batch)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.ClearPending(p.Gen); err != nil {
		t.Fatal(err)
	}
	return NewReader(st, nil, Config{}), dir
}

func TestFiles(t *testing.T) {
	r, dir := filesReader(t)
	file := func(rel, name string) grep.File {
		return grep.File{Path: filepath.Join(dir, filepath.FromSlash(rel)), Root: dir, Name: name}
	}
	abs := func(rel string) string { return filepath.Join(dir, filepath.FromSlash(rel)) }
	short := func(a string) string { rel := testenv.Must1(filepath.Rel(dir, a))(t); return filepath.ToSlash(rel) }
	for _, tc := range []struct {
		name string
		opt  FilesOptions
		want []grep.File
	}{
		{"all, folder before its namesake file", FilesOptions{},
			[]grep.File{file("a/x.md", abs("a/x.md")), file("a.md", abs("a.md")), file("b.md", abs("b.md"))}},
		{"named", FilesOptions{Name: short},
			[]grep.File{file("a/x.md", "a/x.md"), file("a.md", "a.md"), file("b.md", "b.md")}},
		{"a file and a folder, once each", FilesOptions{Paths: []string{abs("b.md"), abs("a"), abs("a/x.md")}, Name: short},
			[]grep.File{file("a/x.md", "a/x.md"), file("b.md", "b.md")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := r.Files(t.Context(), tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Files (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFilesRefusesUnindexed(t *testing.T) {
	r, dir := filesReader(t)
	outside := filepath.Join(t.TempDir(), "secret.md")
	if err := os.WriteFile(outside, []byte("secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		path string
		want error
	}{
		{"file outside every source", outside, ErrNotIndexed},
		{"missing file in the source", filepath.Join(dir, "gone.md"), ErrNotIndexed},
		{"unindexed S3 object", "s3://bucket/key.md", ErrNotIndexed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := r.Files(t.Context(), FilesOptions{Paths: []string{tc.path}}); !errors.Is(err, tc.want) {
				t.Errorf("Files(%s): %v, want %v", tc.path, err, tc.want)
			}
		})
	}
	empty := t.TempDir()
	if _, err := r.Files(t.Context(), FilesOptions{Paths: []string{empty}}); err == nil {
		t.Errorf("Files of a folder with no indexed documents: no error")
	}
}

// Outside the folder sources a path is refused alike whatever it is and
// whether it exists, so that grep cannot probe the disk; inside one an
// empty folder is told apart, as ripgrep would (issue 30, 7.3).
func TestFilesRefusalSaysNothingOutside(t *testing.T) {
	r, dir := filesReader(t)
	outside := t.TempDir()
	testenv.Must(t, os.Mkdir(filepath.Join(outside, "sub"), 0o755))
	testenv.Must(t, os.WriteFile(filepath.Join(outside, "f.md"), nil, 0o644))
	testenv.Must(t, os.Symlink(outside, filepath.Join(dir, "out")))
	testenv.Must(t, os.Mkdir(filepath.Join(dir, "empty"), 0o755))
	refusal := func(p string) string {
		_, err := r.Files(t.Context(), FilesOptions{Paths: []string{p}})
		if err == nil {
			t.Fatalf("Files(%s): no error", p)
		}
		return strings.ReplaceAll(err.Error(), p, "PATH")
	}
	want := "not an indexed file: PATH; grep reads the indexed files only (braid index its folder first; braid ls lists what is indexed)"
	for _, p := range []string{outside, filepath.Join(outside, "sub"), filepath.Join(outside, "f.md"), filepath.Join(outside, "missing"),
		filepath.Join(dir, "out"), filepath.Join(dir, "out", "sub"), filepath.Join(dir, "out", "missing"), filepath.Join(dir, "missing")} {
		if got := refusal(p); got != want {
			t.Errorf("Files(%s): %q, want %q", p, got, want)
		}
	}
	if got := refusal(filepath.Join(dir, "empty")); got != "no indexed documents under PATH; run braid index PATH first" {
		t.Errorf("Files of an empty folder in the source: %q", got)
	}
}

func TestManyFiles(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a.md")
	if err := os.WriteFile(file, []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		paths []string
		want  bool
	}{
		{"every indexed file", nil, true},
		{"one file", []string{file}, false},
		{"one directory", []string{dir}, true},
		{"an S3 prefix", []string{"s3://bucket/notes"}, true},
		{"two files", []string{file, file}, true},
		{"a missing path", []string{filepath.Join(dir, "gone.md")}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ManyFiles(tc.paths); got != tc.want {
				t.Errorf("ManyFiles(%q) = %v, want %v", tc.paths, got, tc.want)
			}
		})
	}
}
