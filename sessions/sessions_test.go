package sessions_test

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/sessions"
)

func openStore(t *testing.T) *index.Store {
	t.Helper()
	st, err := index.OpenStore(filepath.Join(t.TempDir(), "meta.db"), false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// TestLifecycle starts, pins, unpins and stops a session, and checks what
// the store keeps between the calls.
func TestLifecycle(t *testing.T) {
	st := openStore(t)
	ss := sessions.New(sessions.Config{Index: st})
	if _, err := ss.Resolve(""); !errors.Is(err, index.ErrNotFound) {
		t.Fatalf("Resolve with no session current: %v, want ErrNotFound", err)
	}
	started, err := ss.Start("work", "the zeppelin notes")
	if err != nil || !started.Created || !started.Current || started.Description != "the zeppelin notes" {
		t.Fatalf("Start: %+v, %v", started, err)
	}
	p, err := ss.Pin(t.Context(), "", []string{"notes/*.md", "notes/*.md", "ideas"})
	if err != nil || len(p.Changed) != 2 || len(p.Pins) != 2 || p.Matched != 0 {
		t.Fatalf("Pin: %+v, %v; want two pins added, none matching an empty index", p, err)
	}
	if docs, err := sessions.Docs(st, "work"); err != nil || len(docs) != 0 {
		t.Errorf("Docs: %v, %v", docs, err)
	}
	if p, err = ss.Unpin("work", []string{"ideas", "absent"}); err != nil || len(p.Changed) != 1 || len(p.Pins) != 1 {
		t.Fatalf("Unpin: %+v, %v", p, err)
	}
	if info, err := ss.SetWatch("", true); err != nil || !info.Watch {
		t.Fatalf("SetWatch: %+v, %v", info, err)
	}
	info, err := ss.Stop("")
	if err != nil || info.Current || info.Active || info.Watch || len(info.Pins) != 1 {
		t.Fatalf("Stop: %+v, %v; want stopped, unwatched, pins kept", info, err)
	}
	if cur, err := ss.Current(); err != nil || cur != "" {
		t.Errorf("Current after Stop: %q, %v", cur, err)
	}
	l, err := ss.List()
	if err != nil || len(l) != 1 || l[0].Name != "work" {
		t.Fatalf("List: %+v, %v", l, err)
	}
	if got, want := sessions.List(l).Text(), "work  (stopped; 0 documents)  the zeppelin notes\n  pin notes/*.md\n"; got != want {
		t.Errorf("Text:\n%s\nwant\n%s", got, want)
	}
}

// TestRefused checks the names, pins and stores a session refuses.
func TestRefused(t *testing.T) {
	st := openStore(t)
	ss := sessions.New(sessions.Config{Index: st})
	for _, name := range []string{"", "-x", "a/b", string(make([]byte, 65))} {
		if _, err := ss.Start(name, ""); !errors.Is(err, index.ErrBadOption) && !errors.Is(err, index.ErrNotFound) {
			t.Errorf("Start(%q): %v, want ErrBadOption or ErrNotFound", name, err)
		}
	}
	if _, err := ss.Start("s", ""); err != nil {
		t.Fatal(err)
	}
	for _, pins := range [][]string{nil, {" "}, {"a\x00b"}, {"/outside/every/source"}} {
		if _, err := ss.Pin(t.Context(), "s", pins); !errors.Is(err, index.ErrBadOption) {
			t.Errorf("Pin(%q): %v, want ErrBadOption", pins, err)
		}
	}
	if _, err := ss.Pin(t.Context(), "missing", []string{"x"}); !errors.Is(err, index.ErrNotFound) {
		t.Errorf("Pin into a missing session: %v, want ErrNotFound", err)
	}
	ro := sessions.New(sessions.Config{Index: st, ReadOnly: true})
	if _, err := ro.Start("t", ""); !errors.Is(err, index.ErrReadOnly) {
		t.Errorf("Start read-only: %v, want ErrReadOnly", err)
	}
}
