package mcpserver_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/internal/testenv"
	"github.com/braidsearch/braid/mcpserver"
)

// searchable polls search_keyword until word matches (for up to
// testenv.Guard, a last guard). save, when not nil, is called first and
// then every 2 s: a watch set up in the background misses a change made
// before it, so the change is made again until it is seen.
func searchable(t *testing.T, c *clientT, word string, save func()) time.Duration {
	t.Helper()
	start := time.Now()
	var saved time.Time
	for time.Since(start) < testenv.Guard {
		if save != nil && time.Since(saved) > 2*time.Second {
			save()
			saved = time.Now()
		}
		var sr searchJSON
		decode(t, c.ok("search_keyword", map[string]any{"query": word}), &sr)
		if sr.Total > 0 {
			return time.Since(start)
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%q not searchable within %v of the write", word, testenv.Guard)
	return 0
}

// save writes body to path at once, as an editor's atomic save does
// (through a hidden file, which the watcher leaves out), so no re-index
// reads half of it.
func save(t *testing.T, path, body string) {
	t.Helper()
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".swp")
	if err := os.WriteFile(tmp, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

func TestIndexPathWatch(t *testing.T) {
	_, c := lexicalServer(t, nil)
	more := t.TempDir()
	writeVault(t, more, 3, "beta")
	var reply struct {
		Watching bool
		Summary  struct{ Added int }
	}
	decode(t, c.ok("index_path", map[string]any{"path": more, "watch": true}), &reply)
	if !reply.Watching || reply.Summary.Added != 3 {
		t.Fatalf("index_path watch: %+v, want watching and 3 added", reply)
	}
	// Asking again keeps the one watch (it would re-index each change twice).
	decode(t, c.ok("index_path", map[string]any{"path": more, "watch": true}), &reply)
	if !reply.Watching {
		t.Errorf("second index_path watch: %+v", reply)
	}
	if err := os.WriteFile(filepath.Join(more, "new.md"), []byte("# New\n\nan okapi appears\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	searchable(t, c, "okapi", nil)
}

func TestServeWatch(t *testing.T) {
	vault, c := lexicalServer(t, &mcpserver.Options{Watch: true, Tools: "all"})
	c.ok("get_stats", nil) // the engine is open, so the watch is starting
	searchable(t, c, "capybaras", func() { save(t, filepath.Join(vault, "note-0001.md"), "# Changed\n\nnow about capybaras\n") })
}

// A cloned index (its source sealed by someone else's key) served with
// watching on, from the start or by configure, is not watched: each
// request says so once, with the fix, and nothing is walked.
func TestServeWatchSkipsAnUntrustedSource(t *testing.T) {
	vault := folderVault(t)
	idx := indexDirWith(t, vault, &braid.Options{KeyFile: filepath.Join(t.TempDir(), "someone-else.key")})
	logs := newLogLines()
	c, stop := startServer(t, idx, &mcpserver.Options{Watch: true, Tools: "all", Log: logs})
	c.ok("get_stats", nil) // the engine is open: the watch was asked for
	n := logs.wait(t, 0, "watch "+vault+": not watched: ")
	c.ok("configure", map[string]any{"name": "watch", "value": "true"})
	logs.wait(t, n, "watch "+vault+": not watched: ")
	stop()
	refusals := 0
	for _, l := range logs.lines {
		if strings.Contains(l, "watching "+vault) {
			t.Errorf("the server watched the untrusted source: %s", l)
		}
		if strings.Contains(l, "not watched") {
			refusals++
			if !strings.Contains(l, "braid sources trust") {
				t.Errorf("the refusal names no fix: %s", l)
			}
		}
	}
	if refusals != 2 {
		t.Errorf("%d refusals logged, want one for each of the two requests", refusals)
	}
}
