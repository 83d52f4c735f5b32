package mcpserver_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/braidsearch/braid/mcpserver"
)

// searchable polls search_keyword until word matches, for up to 15s.
func searchable(t *testing.T, c *clientT, word string) time.Duration {
	t.Helper()
	start := time.Now()
	for time.Since(start) < 15*time.Second {
		var sr searchJSON
		decode(t, c.ok("search_keyword", map[string]any{"query": word}), &sr)
		if sr.Total > 0 {
			return time.Since(start)
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%q not searchable within 15s of the write", word)
	return 0
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
	searchable(t, c, "okapi")
}

func TestServeWatch(t *testing.T) {
	vault, c := lexicalServer(t, &mcpserver.Options{Watch: true, Tools: "all"})
	c.ok("get_stats", nil) // the engine is open, so the watch is starting
	// The watch is set up in the background: rewrite until it is seen.
	deadline := time.Now().Add(15 * time.Second)
	for i := 0; ; i++ {
		if err := os.WriteFile(filepath.Join(vault, "note-0001.md"), []byte("# Changed\n\nnow about capybaras "+string(rune('a'+i%26))+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		var sr searchJSON
		decode(t, c.ok("search_keyword", map[string]any{"query": "capybaras"}), &sr)
		if sr.Total > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a change to a registered source was not re-indexed within 15s")
		}
		time.Sleep(300 * time.Millisecond)
	}
}
