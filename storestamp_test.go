package braid_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/indexdir"
)

// meta.db changed in place with its modification time put back is caught
// by the next index run, which refuses it as doctor does, rather than
// skipping the check and reporting success: the stamp that lets a run skip
// it seals the file's change time, which no one but the kernel sets
// (issue 47, 6).
func TestIndexCatchesInPlaceEdit(t *testing.T) {
	const word = "quixoticpangolin"
	vault := writeVault(t, map[string]string{"a.md": "# A\n\nnotes about a " + word + "\n", "b.md": "# B\n\nother notes\n"})
	dir := filepath.Join(t.TempDir(), "idx")
	opt := &braid.Options{KeyFile: filepath.Join(t.TempDir(), "key")}
	e, err := braid.Open(dir, opt)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := e.Index(ctx, []braid.SourceSpec{{Path: vault}}, nil); err != nil {
		t.Fatal(err)
	}
	e.Close()
	// A run that changes nothing skips the full check: the stamp holds.
	e, err = braid.Open(dir, opt)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Index(ctx, nil, nil); err != nil {
		t.Fatal(err)
	}
	e.Close()
	store := filepath.Join(dir, indexdir.StoreFile)
	stamp, err := os.ReadFile(store + indexdir.StampSuffix)
	if err != nil {
		t.Fatalf("no stamp after an index run: %v", err)
	}
	before, err := os.Stat(store)
	if err != nil {
		t.Fatal(err)
	}

	// The edit: the chunk's text no longer decodes (a control character
	// inside its JSON string), same size, same inode, bbolt's pages and
	// meta untouched, and the modification time put back.
	b, err := os.ReadFile(store)
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(b, []byte(word)); n == 0 {
		t.Fatalf("meta.db does not hold %q", word)
	}
	edited := bytes.ReplaceAll(b, []byte(word), []byte("quixotic\x01angolin"))
	f, err := os.OpenFile(store, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(edited, 0); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.Chtimes(store, before.ModTime(), before.ModTime()); err != nil {
		t.Fatal(err)
	}
	after, err := os.Stat(store)
	if err != nil {
		t.Fatal(err)
	}
	st := after.Sys().(*syscall.Stat_t)
	fields := strings.Fields(string(stamp))
	if len(fields) < 7 || fields[2] != fmt.Sprint(after.Size()) || fields[3] != fmt.Sprint(after.ModTime().UnixNano()) || fields[5] != fmt.Sprint(st.Dev) || fields[6] != fmt.Sprint(st.Ino) {
		t.Fatalf("the edit changed more than the change time: stamp %q, file size %d mtime %d dev %d ino %d", stamp, after.Size(), after.ModTime().UnixNano(), st.Dev, st.Ino)
	}

	checks, err := braid.CheckFiles(dir)
	if err != nil || len(checks) == 0 || checks[0].OK || !strings.Contains(checks[0].Detail, "meta.db") {
		t.Fatalf("doctor's check of the edited meta.db: %+v, %v; want it failed", checks, err)
	}
	e, err = braid.Open(dir, opt)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	sum, err := e.Index(ctx, nil, nil)
	if !errors.Is(err, indexdir.ErrCorrupt) || !strings.Contains(err.Error(), store) {
		t.Errorf("index after meta.db was edited in place, its mtime put back: %+v, %v; want it refused as damaged, naming %s", sum, err, store)
	}
}
