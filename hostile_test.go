package braid_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/internal/testenv"
	"github.com/braidsearch/braid/notes"
)

// TestGetStaysInside checks that reading a document never leaves its
// source: not by a ../ name, not through a symbolic link that points out,
// and not through a link pointed elsewhere after indexing.
func TestGetStaysInside(t *testing.T) {
	outside := t.TempDir()
	testenv.Must(t, os.WriteFile(filepath.Join(outside, "secret.md"), []byte("# Secret\n\nhunter2\n"), 0o644))
	dir := writeVault(t, map[string]string{
		"note.md":     "# Note\n\nplain\n",
		"sub/deep.md": "# Deep\n\nnested\n",
	})
	testenv.Must(t, os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(dir, "escape.md")))
	testenv.Must(t, os.Symlink(filepath.Join(dir, "note.md"), filepath.Join(dir, "alias.md")))
	// The link reaches the secret, so refusing escape.md below is braid's doing.
	if b, err := os.ReadFile(filepath.Join(dir, "escape.md")); err != nil || !strings.Contains(string(b), "hunter2") {
		t.Fatalf("escape.md does not lead to the secret (%q, %v): the refusal below would test nothing", b, err)
	}
	e := indexed(t, nil, dir)

	for _, name := range []string{"note", "sub/deep.md", "alias.md", filepath.Join(dir, "sub", "..", "note.md")} {
		if c, err := e.Notes().Get(t.Context(), name); err != nil || len(c.Data) == 0 {
			t.Errorf("Get(%q) = %v, want the file (a link inside the source is fine)", name, err)
		}
	}
	refusals := []struct {
		name, doc string
		want      error
	}{
		{"a file outside every source", filepath.Join(outside, "secret.md"), braid.ErrNotFound},
		{"dot-dot out of the source", filepath.Join(dir, "..", filepath.Base(outside), "secret.md"), braid.ErrNotFound},
		{"dot-dot relative name", "sub/../../" + filepath.Base(outside) + "/secret.md", braid.ErrNotFound},
		{"a symbolic link out of the source (never indexed)", "escape.md", braid.ErrNotFound},
	}
	for _, r := range refusals {
		t.Run(r.name, func(t *testing.T) {
			if c, err := e.Notes().Get(t.Context(), r.doc); !errors.Is(err, r.want) {
				t.Errorf("Get(%q) = %v, %v; want %v", r.doc, c, err, r.want)
			}
		})
	}

	// A link inside the source, pointed out of it after indexing.
	testenv.Must(t, os.Remove(filepath.Join(dir, "alias.md")))
	testenv.Must(t, os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(dir, "alias.md")))
	if c, err := e.Notes().Get(t.Context(), "alias.md"); !errors.Is(err, notes.ErrOutside) {
		t.Errorf("Get(alias.md) after re-pointing the link out: %v, %v; want ErrOutside", c, err)
	}
}

func TestSearchQueryTooLong(t *testing.T) {
	e := indexed(t, nil, writeVault(t, map[string]string{"a.md": "# A\n\nalpha\n"}))
	_, err := e.Search(context.Background(), strings.Repeat("alpha ", 1000), braid.SearchOptions{})
	if !errors.Is(err, braid.ErrQueryTooLong) || !strings.Contains(err.Error(), "6000 bytes; the limit is 4096 bytes; shorten it") {
		t.Errorf("Search with a 6000-byte query: %v, want ErrQueryTooLong naming the size, the limit and the fix", err)
	}
}
