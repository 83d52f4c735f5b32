package watch_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/braidsearch/braid/internal/testenv"
	"github.com/braidsearch/braid/watch"
)

// session runs watch.Run on a folder and collects its batches.
type session struct {
	t       *testing.T
	dir     string
	batches chan []watch.Batch
	opt     watch.Options
}

func start(t *testing.T, dir string, opt watch.Options) *session {
	t.Helper()
	s := &session{t: t, dir: dir, batches: make(chan []watch.Batch, 100), opt: opt}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- watch.Run(ctx, []string{dir}, &opt, func(_ context.Context, bs []watch.Batch) { s.batches <- bs })
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run: %v", err)
			}
		case <-time.After(testenv.Guard):
			t.Error("Run did not return after cancel")
		}
	})
	// Run sets its watches up on its own goroutine: touch a file (again
	// after three debounce periods without an answer) until a change to it
	// comes back, so the test's changes are all watched. collect leaves
	// the sentinel out, should a change to it come late.
	guard := time.After(testenv.Guard)
	for i := 0; ; i++ {
		write(t, filepath.Join(dir, sentinel), fmt.Sprint(i))
		select {
		case <-s.batches:
		case <-time.After(3 * s.opt.Debounce):
			continue
		case <-guard:
			t.Fatalf("the watcher reported nothing within %v", testenv.Guard)
		}
		break
	}
	s.quiet()
	return s
}

// sentinel is the file start touches until the watcher reports it.
const sentinel = "sentinel"

// quiet drops batches until none comes for three debounce periods.
func (s *session) quiet() {
	for {
		select {
		case <-s.batches:
		case <-time.After(3 * s.opt.Debounce):
			return
		}
	}
}

// collect gathers the changed paths, relative to the folder, until every
// path of want is among them and then no batch comes for a while; it
// returns them with the number of callbacks.
func (s *session) collect(want []string) (got []string, calls int) {
	s.t.Helper()
	deadline := time.After(testenv.Guard)
	covered := func() bool {
		for _, w := range want {
			if !slices.Contains(got, w) {
				return false
			}
		}
		return true
	}
	for {
		var wait <-chan time.Time
		if covered() {
			wait = time.After(3 * s.opt.Debounce)
		}
		select {
		case bs := <-s.batches:
			calls++
			for _, b := range bs {
				if b.Root != s.dir {
					s.t.Errorf("batch root %q, want %q", b.Root, s.dir)
				}
				for _, p := range b.Paths {
					rel, _ := filepath.Rel(s.dir, p)
					rel = filepath.ToSlash(rel)
					if rel != sentinel && !slices.Contains(got, rel) {
						got = append(got, rel)
					}
				}
			}
		case <-wait:
			slices.Sort(got)
			return got, calls
		case <-deadline:
			slices.Sort(got)
			s.t.Fatalf("changes %v reported within %v, want %v", got, testenv.Guard, want)
		}
	}
}

func write(t *testing.T, p, body string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestRun(t *testing.T) {
	tests := []struct {
		name   string
		setup  func(t *testing.T, dir string) // before watching
		change func(t *testing.T, dir string)
		want   []string
	}{
		{
			name:   "create",
			change: func(t *testing.T, dir string) { write(t, filepath.Join(dir, "a.md"), "new") },
			want:   []string{"a.md"},
		},
		{
			name:   "modify",
			setup:  func(t *testing.T, dir string) { write(t, filepath.Join(dir, "a.md"), "old") },
			change: func(t *testing.T, dir string) { write(t, filepath.Join(dir, "a.md"), "new text") },
			want:   []string{"a.md"},
		},
		{
			name:   "delete",
			setup:  func(t *testing.T, dir string) { write(t, filepath.Join(dir, "a.md"), "old") },
			change: func(t *testing.T, dir string) { testenv.Must(t, os.Remove(filepath.Join(dir, "a.md"))) },
			want:   []string{"a.md"},
		},
		{
			name:  "rename",
			setup: func(t *testing.T, dir string) { write(t, filepath.Join(dir, "a.md"), "old") },
			change: func(t *testing.T, dir string) {
				testenv.Must(t, os.Rename(filepath.Join(dir, "a.md"), filepath.Join(dir, "b.md")))
			},
			want: []string{"a.md", "b.md"},
		},
		{
			name:  "atomic save",
			setup: func(t *testing.T, dir string) { write(t, filepath.Join(dir, "a.md"), "old") },
			change: func(t *testing.T, dir string) {
				tmp := filepath.Join(dir, ".a.md.tmp")
				write(t, tmp, "saved by an editor")
				testenv.Must(t, os.Rename(tmp, filepath.Join(dir, "a.md")))
			},
			want: []string{"a.md"}, // the hidden temporary file is never reported
		},
		{
			name: "new subfolder with a file",
			change: func(t *testing.T, dir string) {
				testenv.Must(t, os.MkdirAll(filepath.Join(dir, "sub", "deeper"), 0o755))
				write(t, filepath.Join(dir, "sub", "deeper", "n.md"), "inside")
			},
			want: []string{"sub", "sub/deeper", "sub/deeper/n.md"},
		},
		{
			name: "delete a subfolder",
			setup: func(t *testing.T, dir string) {
				testenv.Must(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
				write(t, filepath.Join(dir, "sub", "n.md"), "x")
			},
			change: func(t *testing.T, dir string) {
				testenv.Must(t, os.RemoveAll(filepath.Join(dir, "sub")))
			},
			want: []string{"sub", "sub/n.md"},
		},
		{
			name: "hidden folders are left out",
			change: func(t *testing.T, dir string) {
				testenv.Must(t, os.Mkdir(filepath.Join(dir, ".git"), 0o755))
				write(t, filepath.Join(dir, "a.md"), "x")
			},
			want: []string{"a.md"},
		},
		{
			name: "a hidden file Hidden names",
			change: func(t *testing.T, dir string) {
				write(t, filepath.Join(dir, ".gitignore"), "*.tmp\n")
				write(t, filepath.Join(dir, ".other"), "x")
			},
			want: []string{".gitignore"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.setup != nil {
				tt.setup(t, dir)
			}
			s := start(t, dir, watch.Options{Debounce: 100 * time.Millisecond, Rescan: -1, Hidden: []string{".gitignore"}})
			tt.change(t, dir)
			got, _ := s.collect(tt.want)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("changed paths (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRunWatchesNewFolders(t *testing.T) {
	dir := t.TempDir()
	s := start(t, dir, watch.Options{Debounce: 100 * time.Millisecond, Rescan: -1})
	testenv.Must(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	s.collect([]string{"sub"})
	// Rescans are off: only a watch on the new folder can see this.
	write(t, filepath.Join(dir, "sub", "later.md"), "later")
	got, _ := s.collect([]string{"sub/later.md"})
	if diff := cmp.Diff([]string{"sub/later.md"}, got); diff != "" {
		t.Errorf("changed paths (-want +got):\n%s", diff)
	}
}

func TestDebounceCoalescesABurst(t *testing.T) {
	dir := t.TempDir()
	// The burst takes a tenth of a second; a debounce of 2 s (and no
	// MaxDelay cut) holds it together even when a busy machine leaves the
	// writing goroutine waiting for a while between writes.
	s := start(t, dir, watch.Options{Debounce: 2 * time.Second, MaxDelay: time.Minute, Rescan: -1})
	var want []string
	for i := range 20 {
		name := fmt.Sprintf("f%02d.md", i)
		want = append(want, name)
		write(t, filepath.Join(dir, name), "burst")
		time.Sleep(5 * time.Millisecond)
	}
	got, calls := s.collect(want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("changed paths (-want +got):\n%s", diff)
	}
	if calls != 1 {
		t.Errorf("a burst of 20 writes gave %d callbacks, want 1", calls)
	}
}

func TestPollOnly(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "a.md"), "old")
	write(t, filepath.Join(dir, "gone.md"), "old")
	s := start(t, dir, watch.Options{Debounce: 50 * time.Millisecond, PollOnly: true, Poll: 50 * time.Millisecond})
	write(t, filepath.Join(dir, "a.md"), "changed size")
	testenv.Must(t, os.Remove(filepath.Join(dir, "gone.md")))
	testenv.Must(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	write(t, filepath.Join(dir, "sub", "n.md"), "new")
	want := []string{"a.md", "gone.md", "sub", "sub/n.md"}
	got, _ := s.collect(want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("changed paths (-want +got):\n%s", diff)
	}
}

func TestIgnore(t *testing.T) {
	dir := t.TempDir()
	testenv.Must(t, os.Mkdir(filepath.Join(dir, "index"), 0o755))
	s := start(t, dir, watch.Options{Debounce: 100 * time.Millisecond, Rescan: -1,
		Ignore: func(p string) bool { return p == filepath.Join(dir, "index") }})
	write(t, filepath.Join(dir, "index", "meta.db"), "written by the indexer")
	write(t, filepath.Join(dir, "a.md"), "x")
	got, _ := s.collect([]string{"a.md"})
	if diff := cmp.Diff([]string{"a.md"}, got); diff != "" {
		t.Errorf("changed paths (-want +got):\n%s", diff)
	}
}

func TestFileRoot(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "corpus.jsonl")
	write(t, file, "{}\n")
	batches := make(chan []watch.Batch, 10)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go watch.Run(ctx, []string{file}, &watch.Options{Debounce: 50 * time.Millisecond, Rescan: -1}, func(_ context.Context, bs []watch.Batch) { batches <- bs })
	// A sibling never shows; the file does (retried until the watch is up).
	guard := time.After(testenv.Guard)
	for i := 0; ; i++ {
		write(t, filepath.Join(dir, "sibling.md"), "x")
		write(t, file, fmt.Sprintf("{}\n%d\n", i))
		select {
		case bs := <-batches:
			if diff := cmp.Diff([]watch.Batch{{Root: file, Paths: []string{file}}}, bs); diff != "" {
				t.Errorf("batch (-want +got):\n%s", diff)
			}
			return
		case <-time.After(time.Second):
		case <-guard:
			t.Fatalf("no change to the watched file reported within %v", testenv.Guard)
		}
	}
}

func TestRunErrors(t *testing.T) {
	if err := watch.Run(context.Background(), nil, nil, nil); !errors.Is(err, watch.ErrNoRoots) {
		t.Errorf("no roots: %v, want ErrNoRoots", err)
	}
	if err := watch.Run(context.Background(), []string{filepath.Join(t.TempDir(), "missing")}, nil, nil); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing root: %v, want a not-exist error", err)
	}
}

// Ready is called once the folder is watched: the first change made after
// it is reported, with no need to make it again.
func TestReady(t *testing.T) {
	dir := t.TempDir()
	ready := make(chan struct{})
	batches := make(chan []watch.Batch, 10)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- watch.Run(ctx, []string{dir}, &watch.Options{Rescan: -1, Ready: func() { close(ready) }},
			func(_ context.Context, bs []watch.Batch) { batches <- bs })
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	}()
	guard := time.After(testenv.Guard)
	select {
	case <-ready:
	case <-guard:
		t.Fatalf("Ready not called within %v", testenv.Guard)
	}
	write(t, filepath.Join(dir, "once.md"), "x")
	select {
	case bs := <-batches:
		if len(bs) != 1 || len(bs[0].Paths) != 1 || filepath.Base(bs[0].Paths[0]) != "once.md" {
			t.Errorf("batches %+v, want once.md", bs)
		}
	case <-guard:
		t.Fatalf("the change made after Ready was not reported within %v", testenv.Guard)
	}
}
