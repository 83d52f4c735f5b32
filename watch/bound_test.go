package watch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// tree makes n folders below a new root, each with one folder inside
// (2n folders and the root), and returns the root.
func tree(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	for i := range n {
		if err := os.MkdirAll(filepath.Join(dir, fmt.Sprintf("d%03d", i), "c"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// counting is a watcher over dir whose watches are counted, not made,
// failing with fail once ok of them are made; its warnings are kept.
func counting(t *testing.T, dir string, opt Options, ok int, fail error) (w *watcher, adds *int, warned *[]error) {
	adds, warned = new(int), new([]error)
	opt.Warn = func(err error) { *warned = append(*warned, err) }
	w = newWatcher(t.Context(), &opt)
	w.roots = []root{{given: dir, path: dir}}
	w.add = func(string) error {
		*adds++
		if fail != nil && *adds > ok {
			return fail
		}
		return nil
	}
	return w, adds, warned
}

// The folder bound stops the walk: a tree of 101 folders with a bound of
// 10 takes in 10, says so once, and a rescan walks no further.
func TestMaxFoldersBoundsTheWalk(t *testing.T) {
	dir := tree(t, 50)
	w, adds, warned := counting(t, dir, Options{MaxFolders: 10}, 0, nil)
	for pass := range 2 {
		w.rescan()
		w.take()
		if w.dirs != 10 || *adds != 10 || len(w.watched) != 10 {
			t.Errorf("pass %d: %d folders taken in, %d watches asked for, %d held; want 10 each", pass, w.dirs, *adds, len(w.watched))
		}
		if len(*warned) != 1 || !errors.Is((*warned)[0], ErrTooManyFolders) {
			t.Errorf("pass %d: warnings %v, want one ErrTooManyFolders", pass, *warned)
		}
	}
	// Taken-in folders that go make room for others, by the next rescan.
	if err := os.RemoveAll(filepath.Join(dir, "d000")); err != nil {
		t.Fatal(err)
	}
	w.rescan()
	w.rescan()
	_, gone := w.snap[filepath.Join(dir, "d000")]
	_, next := w.snap[filepath.Join(dir, "d004", "c")]
	if w.dirs != 10 || gone || !next {
		t.Errorf("after a removal: %d folders (d000 held: %v, d004/c held: %v), want 10 with d004/c in d000's place", w.dirs, gone, next)
	}
}

// At the system's limit on watches (inotify's ENOSPC) the watcher says so
// once, asks for no more watches in that walk, and rescans at the usual
// interval, not the polling one; each later rescan asks once more.
func TestWatchLimitRescansAtTheUsualInterval(t *testing.T) {
	dir := tree(t, 50)
	w, adds, warned := counting(t, dir, Options{Rescan: 45 * time.Second, Poll: time.Second}, 5, syscall.ENOSPC)
	w.rescan()
	if *adds != 6 || len(w.watched) != 5 || w.dirs != 101 {
		t.Errorf("first walk: %d watches asked for, %d held, %d folders; want 6, 5 and 101", *adds, len(w.watched), w.dirs)
	}
	if len(*warned) != 1 || !errors.Is((*warned)[0], syscall.ENOSPC) || !strings.Contains((*warned)[0].Error(), "max_user_watches") {
		t.Errorf("warnings %v, want one naming max_user_watches", *warned)
	}
	if got := w.rescanEvery(); got != 45*time.Second {
		t.Errorf("rescan every %v at the limit, want the usual 45s", got)
	}
	w.rescan()
	if *adds != 7 || len(*warned) != 1 {
		t.Errorf("second walk: %d watches asked for in all, %d warnings; want 7 and 1", *adds, len(*warned))
	}
	w.opt.Rescan = -1
	if got := w.rescanEvery(); got != 30*time.Second {
		t.Errorf("rescan every %v at the limit with rescans off, want 30s", got)
	}
}

// A root Check refuses is dropped with its watches, and not walked again.
func TestCheckDropsARoot(t *testing.T) {
	dir := tree(t, 3)
	refuse := false
	var checked int
	w, _, warned := counting(t, dir, Options{Check: func(string) error {
		checked++
		if refuse {
			return errors.New("moved")
		}
		return nil
	}}, 0, nil)
	w.rescan()
	if w.dirs != 7 || len(w.watched) != 7 {
		t.Fatalf("%d folders, %d watches; want 7", w.dirs, len(w.watched))
	}
	refuse = true
	w.rescan()
	w.rescan()
	if len(w.roots) != 0 || len(w.snap) != 0 || w.dirs != 0 || len(w.watched) != 0 || checked != 2 {
		t.Errorf("after the refusal: %d roots, %d paths, %d folders, %d watches, %d checks; want none and 2 checks", len(w.roots), len(w.snap), w.dirs, len(w.watched), checked)
	}
	if len(*warned) != 1 || !strings.Contains((*warned)[0].Error(), "no longer watching "+dir+": moved") {
		t.Errorf("warnings %v, want one naming the root", *warned)
	}
}

// A walk stops at the first entry after its context is done: Run
// cancelled during its first walk returns nil without calling Ready, and
// looks at nothing more.
func TestRunStopsWalkingWhenCancelled(t *testing.T) {
	dir := tree(t, 100)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	looked := 0
	opt := &Options{
		Ignore: func(string) bool {
			looked++
			if looked == 20 {
				cancel()
			}
			return false
		},
		Ready: func() { t.Error("Ready called after the cancel") },
	}
	if err := Run(ctx, []string{dir}, opt, func(context.Context, []Batch) { t.Error("a batch after the cancel") }); err != nil {
		t.Errorf("Run: %v", err)
	}
	if looked != 20 {
		t.Errorf("the walk looked at %d entries, want it to stop at the 20th, where the cancel came", looked)
	}
}

// A root Check refuses at the start is not walked: Ready comes with
// nothing watched, and Run waits for its context as usual.
func TestRunWithEveryRootRefused(t *testing.T) {
	dir := tree(t, 3)
	ctx, cancel := context.WithCancel(t.Context())
	looked := 0
	opt := &Options{
		Check:  func(string) error { return errors.New("untrusted") },
		Ignore: func(string) bool { looked++; return false },
		Ready:  cancel,
	}
	if err := Run(ctx, []string{dir}, opt, func(context.Context, []Batch) {}); err != nil {
		t.Errorf("Run: %v", err)
	}
	if looked != 0 {
		t.Errorf("a refused root was walked: %d entries looked at", looked)
	}
}
