package indexdir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/braidsearch/braid/internal/userkey"
)

// TestStamps checks the one stamp format meta.db, the lexical segments
// and the graph files share: a file stamped through the descriptor it was
// read by matches until it changes; a copy (another inode), another
// user's key, a change of its change time alone, a line of the old
// meta.db format or a garbled line never match, and none is an error.
func TestStamps(t *testing.T) {
	dir := t.TempDir()
	key := func(name string) userkey.Key {
		k, err := userkey.Load(filepath.Join(t.TempDir(), name))
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	mine, theirs := key("mine"), key("theirs")
	file := filepath.Join(dir, "meta.db")
	if err := os.WriteFile(file, []byte("some pages"), 0o600); err != nil {
		t.Fatal(err)
	}
	stampPath := file + StampSuffix
	// checked opens the file at path and asks the stamps under k whether
	// its descriptor is as stamped.
	checked := func(k userkey.Key, path string) bool {
		t.Helper()
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		st, ok := Fstat(f)
		return ok && ReadStamps(stampPath, k).Checked(path, st)
	}
	stamp := func(k userkey.Key, path string) {
		t.Helper()
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		st, ok := Fstat(f)
		if !ok {
			t.Fatalf("Fstat(%s) failed", path)
		}
		s := ReadStamps(stampPath, k)
		s.Add(path, st)
		s.Save()
	}

	if checked(mine, file) {
		t.Fatal("checked before any stamp")
	}
	stamp(mine, file)
	if !checked(mine, file) {
		t.Fatal("not checked right after the stamp")
	}
	if ReadStamps(stampPath, nil) != nil {
		t.Error("stamps without a key: want nil, which checks every file")
	}
	if checked(theirs, file) {
		t.Error("another user's key accepts this user's stamp")
	}

	// A copy in the file's place: same name, size and modification time,
	// another inode.
	fi, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(dir, "copy")
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(tmp, time.Time{}, fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, file); err != nil {
		t.Fatal(err)
	}
	if checked(mine, file) {
		t.Error("a copied file in the stamped one's place is checked")
	}
	stamp(mine, file)

	// The change time alone moves (a chmod back and forth; written again
	// until the clock, which may tick coarsely, has moved).
	for start := time.Now(); checked(mine, file); {
		if err := os.Chmod(file, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(file, 0o600); err != nil {
			t.Fatal(err)
		}
		if time.Since(start) > 5*time.Second {
			t.Fatal("the change time never moved")
		}
	}
	stamp(mine, file)

	// Old-format and garbled lines match nothing and are no error.
	good, err := os.ReadFile(stampPath)
	if err != nil {
		t.Fatal(err)
	}
	fields := strings.Fields(string(good))
	old := "braid-store-v1 " + strings.Join(fields[1:], " ")
	for _, bad := range []string{old, "garbage", strings.Replace(string(good), fields[2], fields[2]+"1", 1)} {
		if err := os.WriteFile(stampPath, []byte(bad+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if checked(mine, file) {
			t.Errorf("stamp file %q is taken as a stamp", bad)
		}
	}
}
