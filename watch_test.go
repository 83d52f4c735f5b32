package braid_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/graph"
	"github.com/braidsearch/braid/internal/testenv"
)

// The bound: a change is searchable within 2s of the write. The
// test logs how long each change took against it; it does not fail on it,
// since a busy machine stretches any wall-clock time.
const watchBound = 2 * time.Second

// hits lists the paths a keyword search finds.
func hits(t *testing.T, e *braid.Engine, word string) []string {
	t.Helper()
	res, err := e.Search(context.Background(), word, braid.SearchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, r := range res.Results {
		paths = append(paths, r.Path)
	}
	return paths
}

// watchRuns starts e.Watch with opt until the test ends and returns a
// channel that receives each re-index run's error (a run that fails to
// begin counts as one with an error); opt.Indexed, when set, hears of
// each run first.
func watchRuns(t *testing.T, e *braid.Engine, opt braid.WatchOptions) <-chan error {
	t.Helper()
	runs := make(chan error, 1000)
	also := opt.Indexed
	opt.Indexed = func(src *braid.Source, sum *braid.Summary, err error) {
		if also != nil {
			also(src, sum, err)
		}
		if err == nil && sum == nil {
			err = fmt.Errorf("re-index %s: no summary", src.Path)
		}
		runs <- err
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.Watch(ctx, nil, &opt) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Watch: %v", err)
			}
		case <-time.After(testenv.Guard):
			t.Errorf("Watch did not return within %v of the cancel", testenv.Guard)
		}
	})
	return runs
}

// seen waits for the re-index runs until, after one, found holds; it
// returns how long after start that was. poke, when not nil, is called
// first and again whenever a second goes by without a run: Watch sets
// its watches up on its own goroutine, so a change made before that goes
// unseen until it is made again. Only testenv.Guard fails the wait.
func seen(t *testing.T, runs <-chan error, start time.Time, what string, poke func(), found func() bool) time.Duration {
	t.Helper()
	guard := time.After(testenv.Guard)
	var nudge <-chan time.Time
	for {
		if poke != nil {
			poke()
			nudge = time.After(time.Second)
		}
		select {
		case err := <-runs:
			if err != nil {
				t.Fatalf("%s: re-index: %v", what, err)
			}
			if found() {
				return time.Since(start)
			}
		case <-nudge:
		case <-guard:
			t.Fatalf("%s: no re-index run made it so within %v", what, testenv.Guard)
		}
	}
}

// drain drops the runs reported so far.
func drain(runs <-chan error) {
	for len(runs) > 0 {
		<-runs
	}
}

// rename writes body to a hidden temporary file and renames it to path,
// as an editor's atomic save does: the watcher sees one complete change.
func rename(t *testing.T, path, body string) {
	t.Helper()
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".swp")
	if err := os.WriteFile(tmp, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

func TestWatchKeepsTheIndexCurrent(t *testing.T) {
	dir := writeVault(t, map[string]string{"old.md": "# Old\n\nthe word is quokka\n", "gone.md": "# Gone\n\nwombat lives here\n"})
	// The index lives inside the source, as with braid index . (hidden,
	// like .braid): its own writes must not trigger re-indexing.
	e, err := braid.Open(filepath.Join(dir, ".braid"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, err := e.Index(context.Background(), []braid.SourceSpec{{Path: dir}}, nil); err != nil {
		t.Fatal(err)
	}
	runs := watchRuns(t, e, braid.WatchOptions{})
	seen(t, runs, time.Now(), "warmup", func() { rename(t, filepath.Join(dir, "warmup.md"), "warmup\n") },
		func() bool { return len(hits(t, e, "warmup")) > 0 })

	t.Run("create", func(t *testing.T) {
		var took []time.Duration
		for i := range 10 {
			word := fmt.Sprintf("zebrafinch%d", i)
			name := fmt.Sprintf("new-%d.md", i)
			drain(runs)
			start := time.Now()
			if err := os.WriteFile(filepath.Join(dir, name), []byte("# New\n\nthe "+word+" sings\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			took = append(took, seen(t, runs, start, word, nil, func() bool { return slices.Contains(hits(t, e, word), name) }))
		}
		slices.Sort(took)
		t.Logf("write to searchable: median %v, min %v, max %v over %d writes (the issue's bound: %v on an idle machine)", took[len(took)/2], took[0], took[len(took)-1], len(took), watchBound)
	})
	t.Run("modify", func(t *testing.T) {
		drain(runs)
		start := time.Now()
		rename(t, filepath.Join(dir, "old.md"), "# Old\n\nthe word is now axolotl\n")
		d := seen(t, runs, start, "axolotl", nil, func() bool { return slices.Contains(hits(t, e, "axolotl"), "old.md") })
		t.Logf("modified file searchable %v after the write (the issue's bound: %v)", d, watchBound)
		if got := hits(t, e, "quokka"); len(got) != 0 {
			t.Errorf("the replaced word still finds %v", got)
		}
	})
	t.Run("delete", func(t *testing.T) {
		drain(runs)
		start := time.Now()
		if err := os.Remove(filepath.Join(dir, "gone.md")); err != nil {
			t.Fatal(err)
		}
		d := seen(t, runs, start, "wombat gone", nil, func() bool { return len(hits(t, e, "wombat")) == 0 })
		t.Logf("deleted file gone from search %v after the delete (the issue's bound: %v)", d, watchBound)
	})
	t.Run("index writes are not changes", func(t *testing.T) {
		// Catch up with the watcher: once a last atomic save is searchable,
		// every change before it has been re-indexed. A watcher that saw
		// its own index writes would then re-index again and again; one
		// that does not stays idle. (A busy machine may delay such a run
		// past the window, so this can miss the fault; it cannot invent it.)
		rename(t, filepath.Join(dir, "last.md"), "# Last\n\nthe last word is ibex\n")
		seen(t, runs, time.Now(), "ibex", nil, func() bool { return len(hits(t, e, "ibex")) > 0 })
		drain(runs)
		time.Sleep(2 * time.Second)
		if n := len(runs); n != 0 {
			t.Errorf("%d re-index runs with no change to the files, want 0", n)
		}
	})
}

func TestWatchErrors(t *testing.T) {
	e := openEngine(t, nil)
	if err := e.Watch(context.Background(), nil, nil); !errors.Is(err, braid.ErrNotFound) {
		t.Errorf("watch with no sources: %v, want ErrNotFound", err)
	}
	if err := e.Watch(context.Background(), []string{t.TempDir()}, nil); !errors.Is(err, braid.ErrNotFound) {
		t.Errorf("watch an unregistered path: %v, want ErrNotFound", err)
	}
}

// TestWatchIndexesTheChangedPaths checks that a watch's run looks at the
// changed files only (its summary counts one file seen in a vault of
// twenty), moves a renamed note with its links, and walks the whole
// vault when a .gitignore changes, saying so.
func TestWatchIndexesTheChangedPaths(t *testing.T) {
	files := map[string]string{
		"a.md":      "# A\n\nSee [[Bee]] for the heron.\n",
		"b.md":      "# Bee\n\nthe heron nests here\n",
		"secret.md": "# Secret\n\nthe kestrel hides\n",
	}
	for i := range 17 {
		files[fmt.Sprintf("n%02d.md", i)] = fmt.Sprintf("# N%d\n\nfiller words %d\n", i, i)
	}
	dir := writeVault(t, files)
	e := openEngine(t, nil)
	ctx := context.Background()
	if _, err := e.Index(ctx, []braid.SourceSpec{{Path: dir}}, nil); err != nil {
		t.Fatal(err)
	}
	sums := make(chan *braid.Summary, 100)
	watchRuns(t, e, braid.WatchOptions{Indexed: func(src *braid.Source, sum *braid.Summary, err error) {
		if err != nil {
			t.Errorf("re-index %s: %v", src.Path, err)
			return
		}
		sums <- sum
	}})
	// wait waits for a run after which found holds, poking (as seen does)
	// until the watch is up, and returns that run's summary.
	wait := func(what string, poke func(), found func() bool) *braid.Summary {
		t.Helper()
		guard := time.After(testenv.Guard)
		for {
			var nudge <-chan time.Time
			if poke != nil {
				poke()
				nudge = time.After(time.Second)
			}
			select {
			case sum := <-sums:
				if found() {
					return sum
				}
			case <-nudge:
			case <-guard:
				t.Fatalf("%s: no re-index run made it so within %v", what, testenv.Guard)
			}
		}
	}
	i := 0
	sum := wait("an edit", func() {
		i++
		rename(t, filepath.Join(dir, "n00.md"), fmt.Sprintf("# N0\n\nthe ptarmigan%d\n", i))
	}, func() bool { return len(hits(t, e, fmt.Sprintf("ptarmigan%d", i))) > 0 })
	if sum.Walked != "" || sum.Paths != 1 || sum.Seen != 1 || sum.Updated != 1 {
		t.Errorf("an edit to one note of 20: %d paths, %d seen, %d updated, walked %q; want the one file looked at", sum.Paths, sum.Seen, sum.Updated, sum.Walked)
	}

	if err := os.Mkdir(filepath.Join(dir, "birds"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, "b.md"), filepath.Join(dir, "birds", "bee.md")); err != nil {
		t.Fatal(err)
	}
	wait("a rename", nil, func() bool { return slices.Equal(hits(t, e, "nests"), []string{"birds/bee.md"}) })
	links, err := e.Graph().Links("a.md", graph.LinkOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(links.Links) != 1 || links.Links[0].Path != "birds/bee.md" {
		t.Errorf("a.md links to %+v, want the moved note birds/bee.md", links.Links)
	}

	if err := os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("secret.md\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sum = wait("a .gitignore", nil, func() bool { return len(hits(t, e, "kestrel")) == 0 })
	if sum.Walked != "a .gitignore changed" || sum.Removed != 1 {
		t.Errorf("after a .gitignore change: walked %q, %d removed; want a walk of the whole source that removes secret.md", sum.Walked, sum.Removed)
	}
}
