package cli

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// loosenIndex makes the index in dir as an older braid left it: folders
// 0755, files 0644.
func loosenIndex(t *testing.T, dir string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir():
			return os.Chmod(p, 0o755)
		case d.Type().IsRegular():
			return os.Chmod(p, 0o644)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Of an index an older braid left open to other users (issue 47, 5), a
// search changes nothing and says nothing; braid index makes it owner-only
// and says so in one line on stderr, once; doctor --repair does the same
// and lists it with what it mended.
func TestIndexTightenedOnce(t *testing.T) {
	idx := filepath.Join(t.TempDir(), "idx")
	vault := vaultDir(t, 2, "alpha")
	if _, errOut, code := runCLI(t, "--index", idx, "index", vault); code != 0 || strings.Contains(errOut, "tightened") {
		t.Fatalf("first index: exit %d, stderr %q", code, errOut)
	}
	const line = "braid: tightened the index's permissions to owner-only ("
	loosenIndex(t, idx)
	if _, errOut, code := runCLI(t, "--index", idx, "search-keyword", "alpha"); code != 0 || strings.Contains(errOut, "tightened") {
		t.Errorf("search of a loose index: exit %d, stderr %q; want no tightening", code, errOut)
	}
	if fi, err := os.Stat(filepath.Join(idx, "meta.db")); err != nil || fi.Mode().Perm() != 0o644 {
		t.Fatalf("a search changed meta.db's mode: %v, %v", fi, err)
	}
	_, errOut, code := runCLI(t, "--index", idx, "index")
	if code != 0 || strings.Count(errOut, line) != 1 || !strings.Contains(errOut, "folder 755 → 700, meta.db 644 → 600") {
		t.Errorf("index of a loose index: exit %d, stderr %q; want one line %q… naming the folder and meta.db", code, errOut, line)
	}
	if fi, err := os.Stat(filepath.Join(idx, "meta.db")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("after braid index, meta.db: %v, %v; want 0600", fi, err)
	}
	if _, errOut, _ := runCLI(t, "--index", idx, "index"); strings.Contains(errOut, "tightened") {
		t.Errorf("the second index says again: %q", errOut)
	}

	loosenIndex(t, idx)
	out, errOut, code := runCLI(t, "--index", idx, "doctor", "--repair")
	if code != 0 || !strings.Contains(out+errOut, "tightened the index's permissions to owner-only (") {
		t.Errorf("doctor --repair of a loose index: exit %d, stdout %q, stderr %q; want the tightening listed", code, out, errOut)
	}
	if fi, err := os.Stat(idx); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("after doctor --repair, the folder: %v, %v; want 0700", fi, err)
	}
}
