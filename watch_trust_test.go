package braid_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/internal/testenv"
)

// A cloned index's source (a record this user's key did not seal) is not
// watched, whichever way the watch is asked for: by its path Watch
// refuses it with the fix; with every source, it is left out, said once,
// and a change under it is not indexed while the trusted source beside it
// is kept current.
func TestWatchSkipsUntrustedSources(t *testing.T) {
	theirs := writeVault(t, map[string]string{"t.md": "# T\n\nthe bittern\n"})
	mine := writeVault(t, map[string]string{"m.md": "# M\n\nthe heron\n"})
	idx := filepath.Join(t.TempDir(), "idx")
	other, err := braid.Open(idx, &braid.Options{KeyFile: filepath.Join(t.TempDir(), "someone-else.key")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Index(context.Background(), []braid.SourceSpec{{Path: theirs}}, nil); err != nil {
		t.Fatal(err)
	}
	other.Close()
	e, err := braid.Open(idx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, err := e.Index(context.Background(), []braid.SourceSpec{{Path: mine}}, nil); err != nil {
		t.Fatal(err)
	}

	refused, stop := context.WithCancel(context.Background())
	err = e.Watch(refused, []string{theirs}, &braid.WatchOptions{Ready: func() {
		t.Error("Ready: the untrusted source was watched")
		stop()
	}})
	stop()
	if !errors.Is(err, index.ErrUntrusted) || !strings.Contains(err.Error(), "braid sources trust") {
		t.Errorf("Watch of the untrusted source by path: %v; want ErrUntrusted naming braid sources trust", err)
	}

	var mu sync.Mutex
	var warned []error
	ready := make(chan struct{})
	indexed := make(chan string, 100)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- e.Watch(ctx, nil, &braid.WatchOptions{
			Warn: func(err error) {
				mu.Lock()
				warned = append(warned, err)
				mu.Unlock()
			},
			Ready: func() { close(ready) },
			Indexed: func(src *braid.Source, _ *braid.Summary, err error) {
				if err != nil {
					t.Errorf("re-index %s: %v", src.Path, err)
				}
				indexed <- src.Path
			},
		})
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Watch: %v", err)
		}
	}()
	guard := time.After(testenv.Guard)
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("Watch of every source returned %v before Ready", err)
	case <-guard:
		t.Fatalf("Ready not called within %v", testenv.Guard)
	}
	mu.Lock()
	if len(warned) != 1 || !errors.Is(warned[0], index.ErrUntrusted) || !strings.Contains(warned[0].Error(), theirs) {
		t.Errorf("warnings %v; want one, ErrUntrusted naming %s", warned, theirs)
	}
	mu.Unlock()

	// The change under the untrusted source comes first: were it watched,
	// its run would come before or with the trusted one's.
	rename(t, filepath.Join(theirs, "new.md"), "# New\n\nthe ospreyx\n")
	rename(t, filepath.Join(mine, "new.md"), "# New\n\nthe avocetx\n")
	for len(hits(t, e, "avocetx")) == 0 {
		select {
		case p := <-indexed:
			if p != mine {
				t.Fatalf("re-indexed %s, want only %s", p, mine)
			}
		case <-guard:
			t.Fatalf("the change under the trusted source was not indexed within %v", testenv.Guard)
		}
	}
	if got := hits(t, e, "ospreyx"); len(got) != 0 {
		t.Errorf("a change under the untrusted source was indexed: %v", got)
	}
}

// A source whose folder comes to pass through a symbolic link while it is
// watched is dropped before a rescan walks wherever the link leads.
func TestWatchDropsAMovedSource(t *testing.T) {
	base := t.TempDir()
	src := filepath.Join(base, "a", "vault")
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "n.md"), []byte("# N\n\nthe heron\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e := openEngine(t, nil)
	if _, err := e.Index(context.Background(), []braid.SourceSpec{{Path: src}}, nil); err != nil {
		t.Fatal(err)
	}
	ready := make(chan struct{})
	warned := make(chan error, 100)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- e.Watch(ctx, nil, &braid.WatchOptions{Rescan: time.Millisecond, Ready: func() { close(ready) }, Warn: func(err error) { warned <- err }})
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Watch: %v", err)
		}
	}()
	guard := time.After(testenv.Guard)
	select {
	case <-ready:
	case <-guard:
		t.Fatalf("Ready not called within %v", testenv.Guard)
	}
	// a becomes a link to a folder elsewhere with a vault of its own.
	elsewhere := filepath.Join(base, "elsewhere")
	if err := os.MkdirAll(filepath.Join(elsewhere, "vault", "deep"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(base, "a"), filepath.Join(base, "a-old")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, filepath.Join(base, "a")); err != nil {
		t.Fatal(err)
	}
	for {
		select {
		case err := <-warned:
			if errors.Is(err, index.ErrMoved) {
				if !strings.Contains(err.Error(), "no longer watching "+src) {
					t.Errorf("warning %v, want it to name %s", err, src)
				}
				return
			}
		case <-guard:
			t.Fatalf("the moved source was not dropped within %v", testenv.Guard)
		}
	}
}
