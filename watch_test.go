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
)

// The bound: a change is searchable within 2s of the write.
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

// until polls fn (generously: for up to 15s) and returns how long after
// start it first held.
func until(t *testing.T, start time.Time, what string, fn func() bool) time.Duration {
	t.Helper()
	for time.Since(start) < 15*time.Second {
		if fn() {
			return time.Since(start)
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s: not seen within 15s", what)
	return 0
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
	ctx, cancel := context.WithCancel(context.Background())
	if _, err := e.Index(ctx, []braid.SourceSpec{{Path: dir}}, nil); err != nil {
		t.Fatal(err)
	}
	runs := make(chan *braid.Summary, 100)
	done := make(chan error, 1)
	go func() {
		done <- e.Watch(ctx, nil, &braid.WatchOptions{Indexed: func(src *braid.Source, sum *braid.Summary, err error) {
			if err != nil {
				t.Errorf("re-index %s: %v", src.Path, err)
			}
			runs <- sum
		}})
	}()
	defer func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Watch: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("Watch did not return after cancel")
		}
	}()
	// The watches are set up on Watch's goroutine: write a file until the
	// watcher re-indexes, before timing anything.
	start := time.Now()
	for i := 0; len(hits(t, e, fmt.Sprintf("warmup%d", i))) == 0; i++ {
		if time.Since(start) > 15*time.Second {
			t.Fatal("the watcher did not re-index within 15s")
		}
		if err := os.WriteFile(filepath.Join(dir, "warmup.md"), fmt.Appendf(nil, "warmup%d\n", i+1), 0o644); err != nil {
			t.Fatal(err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	time.Sleep(500 * time.Millisecond)
	for len(runs) > 0 {
		<-runs
	}

	t.Run("create", func(t *testing.T) {
		var took []time.Duration
		for i := range 10 {
			word := fmt.Sprintf("zebrafinch%d", i)
			name := fmt.Sprintf("new-%d.md", i)
			start := time.Now()
			if err := os.WriteFile(filepath.Join(dir, name), []byte("# New\n\nthe "+word+" sings\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			d := until(t, start, word, func() bool { return slices.Contains(hits(t, e, word), name) })
			if d >= watchBound {
				t.Errorf("%s searchable %v after the write, want under %v", name, d, watchBound)
			}
			took = append(took, d)
		}
		slices.Sort(took)
		t.Logf("write to searchable: median %v, min %v, max %v over %d writes", took[len(took)/2], took[0], took[len(took)-1], len(took))
	})
	t.Run("modify", func(t *testing.T) {
		start := time.Now()
		tmp := filepath.Join(dir, ".old.md.swp") // an editor's atomic save
		if err := os.WriteFile(tmp, []byte("# Old\n\nthe word is now axolotl\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, filepath.Join(dir, "old.md")); err != nil {
			t.Fatal(err)
		}
		d := until(t, start, "axolotl", func() bool { return slices.Contains(hits(t, e, "axolotl"), "old.md") })
		if d >= watchBound {
			t.Errorf("modified file searchable %v after the write, want under %v", d, watchBound)
		}
		if got := hits(t, e, "quokka"); len(got) != 0 {
			t.Errorf("the replaced word still finds %v", got)
		}
	})
	t.Run("delete", func(t *testing.T) {
		start := time.Now()
		if err := os.Remove(filepath.Join(dir, "gone.md")); err != nil {
			t.Fatal(err)
		}
		d := until(t, start, "wombat gone", func() bool { return len(hits(t, e, "wombat")) == 0 })
		if d >= watchBound {
			t.Errorf("deleted file gone from search %v after the delete, want under %v", d, watchBound)
		}
	})
	t.Run("index writes are not changes", func(t *testing.T) {
		// Drain, then wait: a watcher that saw its own index writes would
		// re-index again and again.
		time.Sleep(time.Second)
		for len(runs) > 0 {
			<-runs
		}
		time.Sleep(time.Second)
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
