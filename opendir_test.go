package braid_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/indexdir"
	"github.com/braidsearch/braid/internal/testenv"
)

// An index directory that is a file, or lies under one, is one error that
// names Open's dir; a first Index that fails before writing leaves no
// directory behind once the engine is closed, while an existing index is
// kept.
func TestOpenDir(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "notes.txt")
	testenv.Must(t, os.WriteFile(file, []byte("x"), 0o644))
	for _, tc := range []struct{ dir, want string }{
		{file, "is a file, not a directory"},
		{filepath.Join(file, "idx"), "which is a file"},
	} {
		_, err := braid.Open(tc.dir, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "Open's dir") {
			t.Errorf("Open(%s): %v, want an error saying %q", tc.dir, err, tc.want)
		}
	}
	if err := braid.CheckDir(filepath.Join(root, "new", "idx")); err != nil {
		t.Errorf("CheckDir of a new directory: %v", err)
	}

	dir := filepath.Join(root, "a", "b", "idx")
	e, err := braid.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum, err := e.Index(context.Background(), []braid.SourceSpec{{Path: filepath.Join(root, "missing")}}, nil); sum != nil || err == nil {
		t.Fatalf("Index of a missing path: %v, %v", sum, err)
	}
	e.Close()
	if _, err := os.Stat(filepath.Join(root, "a")); !os.IsNotExist(err) {
		t.Errorf("a failed first index left %s: %v", filepath.Join(root, "a"), err)
	}
}

// An index directory whose meta.db is a link to a FIFO (a .braid/ that
// came with a cloned vault) is refused by Open, naming the file, before
// anything opens it: bbolt would block on it for ever.
func TestOpenRefusesFIFOLink(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "idx")
	e, err := braid.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	e.Close()
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	meta := filepath.Join(dir, "meta.db")
	testenv.Must(t, os.Remove(meta))
	if err := os.Symlink(fifo, meta); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		e, err := braid.Open(dir, nil)
		if err == nil {
			e.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, indexdir.ErrCorrupt) || !strings.Contains(err.Error(), meta) || !strings.Contains(err.Error(), "symbolic link") {
			t.Errorf("Open: %v, want ErrCorrupt naming %s as a link", err, meta)
		}
	case <-time.After(testenv.Guard):
		t.Fatal("Open blocked on a FIFO behind meta.db")
	}
}
