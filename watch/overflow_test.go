package watch

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// After lost notifications every root gets a batch saying so, with what a
// rescan found changed (here nothing under b), and the next batch does
// not say it again.
func TestOverflowMarksEveryRoot(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	w := newWatcher(t.Context(), nil)
	w.roots = []root{{given: a, path: a}, {given: b, path: b}}
	w.rescan()
	w.take()
	if err := os.WriteFile(filepath.Join(a, "n.md"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	w.overflowed()
	want := []Batch{{Root: a, Paths: []string{filepath.Join(a, "n.md")}, Lost: true}, {Root: b, Lost: true}}
	if diff := cmp.Diff(want, merge(nil, w.take())); diff != "" {
		t.Errorf("batches after an overflow (-want +got):\n%s", diff)
	}
	w.mark(filepath.Join(b, "later.md"))
	if diff := cmp.Diff([]Batch{{Root: b, Paths: []string{filepath.Join(b, "later.md")}}}, w.take()); diff != "" {
		t.Errorf("the batch after (-want +got):\n%s", diff)
	}
}
