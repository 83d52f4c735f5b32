package mcpserver_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/internal/testenv"
	"github.com/braidsearch/braid/mcpserver"
)

// startServer serves idx with opt until stop, which waits for the server
// (and the index) to close.
func startServer(t *testing.T, idx string, opt *mcpserver.Options) (c *clientT, stop func()) {
	t.Helper()
	cl, end := serve(t, mcpserver.New(opener(idx, nil), opt))
	ctx, cancel := context.WithTimeout(context.Background(), testenv.Guard)
	defer cancel()
	if _, err := cl.Initialize(ctx, initRequest()); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	t.Cleanup(func() { once.Do(end) })
	return &clientT{cl, t}, func() { once.Do(end) }
}

// paths are the paths a search, list or grep answer names, sorted.
func searchPaths(t *testing.T, c *clientT, args map[string]any) []string {
	t.Helper()
	var sr struct {
		Results []struct{ Path string }
		Session string
	}
	decode(t, c.ok("search", args), &sr)
	var out []string
	for _, h := range sr.Results {
		out = append(out, h.Path)
	}
	slices.Sort(out)
	return out
}

func listPaths(t *testing.T, c *clientT, args map[string]any) []string {
	t.Helper()
	var l struct {
		Documents []struct{ Path string }
		Session   string
	}
	decode(t, c.ok("list", args), &l)
	var out []string
	for _, d := range l.Documents {
		out = append(out, d.Path)
	}
	slices.Sort(out)
	return out
}

// A session pins paths and globs into a set; while it is current, search,
// grep and list read only that set (session and use_session choose
// otherwise); it outlasts the server; session_stop ends the scoping.
func TestSessions(t *testing.T) {
	vault := folderVault(t)
	idx := indexDir(t, vault)
	opt := &mcpserver.Options{Tools: "yams"}
	c, stop := startServer(t, idx, opt)
	all := []string{"a/b/three.md", "a/b/two.md", "a/one.md", "c/four.md", "top.md"}
	if got := listPaths(t, c, nil); !cmp.Equal(all, got) {
		t.Fatalf("list before any session: %v, want %v", got, all)
	}
	var started struct {
		Name    string
		Created bool
		Current bool
		Pins    []string
	}
	decode(t, c.ok("session_start", map[string]any{"name": "review", "description": "the b notes"}), &started)
	if !started.Created || !started.Current || started.Name != "review" || len(started.Pins) != 0 {
		t.Fatalf("session_start: %+v", started)
	}
	var pinned struct {
		Changed []string
		Matched int
		Updated int
		Pins    []string
	}
	decode(t, c.ok("session_pin", map[string]any{"path": "a/b"}), &pinned)
	if pinned.Matched != 2 || pinned.Updated != 2 || !cmp.Equal(pinned.Changed, []string{"a/b"}) {
		t.Fatalf("session_pin a/b: %+v, want 2 documents matched", pinned)
	}
	decode(t, c.ok("session_pin", map[string]any{"path": filepath.Join(vault, "c", "*.md")}), &pinned)
	if pinned.Matched != 1 || len(pinned.Pins) != 2 {
		t.Fatalf("session_pin absolute glob: %+v", pinned)
	}
	set := []string{"a/b/three.md", "a/b/two.md", "c/four.md"}
	if got := searchPaths(t, c, map[string]any{"query": "folders"}); !cmp.Equal(set, got) {
		t.Errorf("search in the session: %v, want %v", got, set)
	}
	if got := searchPaths(t, c, map[string]any{"query": "folders", "use_session": false}); !cmp.Equal(all, got) {
		t.Errorf("search with use_session false: %v, want %v", got, all)
	}
	if got := listPaths(t, c, nil); !cmp.Equal(set, got) {
		t.Errorf("list in the session: %v, want %v", got, set)
	}
	out := c.ok("grep", map[string]any{"pattern": "folders", "files_with_matches": true})
	if n := strings.Count(out, "\n"); n != 3 || strings.Contains(out, "top.md") || !strings.Contains(out, "four.md") {
		t.Errorf("grep in the session: %q, want the 3 files of the set", out)
	}
	// Refusals: a pin outside every source, a session that does not exist.
	if r := c.call("session_pin", map[string]any{"path": "/etc/*"}); !r.IsError || !strings.Contains(r.Text, "outside every registered source") {
		t.Errorf("pin outside the sources: %+v", r)
	}
	if r := c.call("search", map[string]any{"query": "folders", "session": "nope"}); !r.IsError || !strings.Contains(r.Text, `no session "nope"`) {
		t.Errorf("search in a missing session: %+v", r)
	}
	if r := c.call("session_start", map[string]any{"name": "../x"}); !r.IsError || !strings.Contains(r.Text, "want 1 to 64 letters") {
		t.Errorf("a bad session name: %+v", r)
	}
	decode(t, c.ok("session_unpin", map[string]any{"path": filepath.Join(vault, "c", "*.md")}), &pinned)
	if !cmp.Equal(pinned.Pins, []string{"a/b"}) || len(pinned.Changed) != 1 {
		t.Errorf("session_unpin: %+v", pinned)
	}
	stop()

	// A new server on the same index: the session is still current.
	c, stop = startServer(t, idx, opt)
	if got := listPaths(t, c, nil); !cmp.Equal([]string{"a/b/three.md", "a/b/two.md"}, got) {
		t.Errorf("list after a restart: %v, want the session's 2", got)
	}
	// Another session named explicitly, while review stays current.
	c.ok("session_start", map[string]any{"name": "tops"})
	c.ok("session_pin", map[string]any{"path": "top.md"})
	if got := searchPaths(t, c, map[string]any{"query": "folders", "session": "review"}); len(got) != 2 {
		t.Errorf("search named review: %v", got)
	}
	if got := listPaths(t, c, nil); !cmp.Equal([]string{"top.md"}, got) {
		t.Errorf("list in the current session tops: %v", got)
	}
	var stopped struct {
		Name    string
		Active  bool
		Current bool
		Pins    []string
	}
	decode(t, c.ok("session_stop", nil), &stopped)
	if stopped.Name != "tops" || stopped.Active || stopped.Current || !cmp.Equal(stopped.Pins, []string{"top.md"}) {
		t.Errorf("session_stop: %+v, want tops stopped, its pin kept", stopped)
	}
	if got := listPaths(t, c, nil); !cmp.Equal(all, got) {
		t.Errorf("list with no session current: %v, want every document", got)
	}
	if r := c.call("session_pin", map[string]any{"path": "x"}); !r.IsError || !strings.Contains(r.Text, "no session is current") {
		t.Errorf("pin with no session current: %+v", r)
	}
	decode(t, c.ok("session_start", map[string]any{"name": "review"}), &started)
	if started.Created || !cmp.Equal(started.Pins, []string{"a/b"}) {
		t.Errorf("session_start of an existing session: %+v, want its pins kept", started)
	}
}

// A profile without the session tools neither offers the session
// arguments nor scopes itself to the current session.
func TestSessionsOutsideYAMS(t *testing.T) {
	vault := folderVault(t)
	idx := indexDir(t, vault)
	c, stop := startServer(t, idx, &mcpserver.Options{Tools: "yams"})
	c.ok("session_start", map[string]any{"name": "one"})
	c.ok("session_pin", map[string]any{"path": "top.md"})
	stop()
	c, _ = startServer(t, idx, &mcpserver.Options{Tools: "core"})
	if got := listPaths(t, c, nil); len(got) != 5 {
		t.Errorf("list in core with a session current: %v, want all 5", got)
	}
	if r := c.call("list", map[string]any{"session": "one"}); r.IsError {
		t.Errorf("list naming a session in core: %+v", r)
	}
}

// logLines hands a server's log lines to a test as they are written.
type logLines struct {
	mu    sync.Mutex
	lines []string
	more  chan struct{}
}

func newLogLines() *logLines { return &logLines{more: make(chan struct{}, 1)} }

func (l *logLines) Write(p []byte) (int, error) {
	l.mu.Lock()
	l.lines = append(l.lines, strings.Split(strings.TrimRight(string(p), "\n"), "\n")...)
	l.mu.Unlock()
	select {
	case l.more <- struct{}{}:
	default:
	}
	return len(p), nil
}

// wait returns once a line from the from-th on contains want, and the
// number of lines seen; it fails the test after testenv.Guard.
func (l *logLines) wait(t *testing.T, from int, want string) int {
	t.Helper()
	guard := time.NewTimer(testenv.Guard)
	defer guard.Stop()
	for {
		l.mu.Lock()
		for i := from; i < len(l.lines); i++ {
			if strings.Contains(l.lines[i], want) {
				l.mu.Unlock()
				return i + 1
			}
		}
		n := len(l.lines)
		l.mu.Unlock()
		select {
		case <-l.more:
		case <-guard.C:
			t.Fatalf("no log line %q within %v; lines after %d: %q", want, testenv.Guard, from, l.lines[from:n])
		}
	}
}

func (l *logLines) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.lines)
}

// watch turns watching a session's sources on and off, and a session
// that watches is watched again by the next server.
func TestSessionWatch(t *testing.T) {
	vault := folderVault(t)
	idx := indexDir(t, vault)
	logs := newLogLines()
	c, stop := startServer(t, idx, &mcpserver.Options{Tools: "yams", Log: logs})
	var w struct {
		Session       string
		Enabled       bool
		Created       bool
		SelectorAdded bool `json:"selector_added"`
		Watching      []string
	}
	decode(t, c.ok("watch", map[string]any{"root": filepath.Join(vault, "a")}), &w)
	if w.Session != "proj-a" || !w.Enabled || !w.Created || !w.SelectorAdded || !cmp.Equal(w.Watching, []string{vault}) {
		t.Fatalf("watch root: %+v, want session proj-a created, watching %s", w, vault)
	}
	n := logs.wait(t, 0, "watching "+vault)
	save(t, filepath.Join(vault, "a", "one.md"), "# One\n\nan okapi in folder a\n")
	logs.wait(t, n, "watch: re-indexed "+vault)
	if got := searchPaths(t, c, map[string]any{"query": "okapi"}); !cmp.Equal(got, []string{"a/one.md"}) {
		t.Errorf("search after the watched change: %v", got)
	}
	stop()

	n = logs.count()
	c, stop = startServer(t, idx, &mcpserver.Options{Tools: "yams", Log: logs})
	c.ok("status", nil) // opens the engine, which starts the session's watch
	n = logs.wait(t, n, "watching "+vault)
	decode(t, c.ok("watch", map[string]any{"enable": false}), &w)
	if w.Enabled || w.Created || w.Session != "proj-a" {
		t.Errorf("watch off: %+v", w)
	}
	logs.wait(t, n, "stopped watching "+vault)
	stop()
}

// An index made by someone else (a committed .braid/, here a record this
// user's key did not seal) whose session watches its set: the server
// reads the session, but neither watches nor greps the untrusted source.
func TestSessionOfAnUntrustedIndex(t *testing.T) {
	vault := folderVault(t)
	idx := filepath.Join(t.TempDir(), "idx")
	other := &braid.Options{KeyFile: filepath.Join(t.TempDir(), "someone-else.key")}
	e, err := braid.Open(idx, other)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Index(context.Background(), []braid.SourceSpec{{Path: vault}}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Sources().Sessions().Start("planted", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Sources().Sessions().Pin(t.Context(), "planted", []string{"**"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Sources().Sessions().SetWatch("planted", true); err != nil {
		t.Fatal(err)
	}
	e.Close()

	logs := newLogLines()
	c, stop := startServer(t, idx, &mcpserver.Options{Tools: "yams", Log: logs})
	var w struct {
		Session  string
		Enabled  bool
		Watching []string
	}
	decode(t, c.ok("watch", map[string]any{"session": "planted"}), &w)
	if !w.Enabled || len(w.Watching) != 0 {
		t.Errorf("watch of a session over an untrusted source: %+v, want no source watched", w)
	}
	if out := c.ok("grep", map[string]any{"pattern": "folders"}); !strings.HasPrefix(out, "no matches") {
		t.Errorf("grep in the planted session read the untrusted source: %q", out)
	}
	stop()
	for _, l := range logs.lines {
		if strings.Contains(l, "watching "+vault) {
			t.Errorf("the server watched the untrusted source: %s", l)
		}
	}
}

// watch with set_current false creates the session without making it
// current; allow_create false refuses a session that does not exist.
func TestWatchLeavesTheCurrentSession(t *testing.T) {
	vault := folderVault(t)
	idx := indexDir(t, vault)
	c, _ := startServer(t, idx, &mcpserver.Options{Tools: "yams"})
	c.ok("session_start", map[string]any{"name": "main"})
	var w struct {
		Session string
		Created bool
	}
	decode(t, c.ok("watch", map[string]any{"session": "side", "root": "c", "set_current": false, "enable": false}), &w)
	if w.Session != "side" || !w.Created {
		t.Errorf("watch of a new session: %+v", w)
	}
	var l struct{ Session string }
	decode(t, c.ok("list", nil), &l)
	if l.Session != "main" {
		t.Errorf("current session after watch set_current false: %q, want main", l.Session)
	}
	if got := listPaths(t, c, map[string]any{"session": "side"}); !cmp.Equal(got, []string{"c/four.md"}) {
		t.Errorf("list of the watch's session: %v, want its root's document", got)
	}
	if r := c.call("watch", map[string]any{"session": "nope", "allow_create": false}); !r.IsError || !strings.Contains(r.Text, "allow_create is false") {
		t.Errorf("watch allow_create false: %+v", r)
	}
}
