package mcpserver_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/braidsearch/braid/mcpserver"
)

// session_pin refuses in one line the pins that match nothing whatever
// the index holds ("/", "../x", file://…), which it used to keep; watch
// refuses such a root before it makes a session, where it used to answer
// enabled (issue 47, "also noticed"). A pin that can match still works.
func TestPinsThatMatchNothingRefused(t *testing.T) {
	vault := folderVault(t)
	c, stop := startServer(t, indexDir(t, vault), &mcpserver.Options{Tools: "yams"})
	defer stop()
	c.ok("session_start", map[string]any{"name": "s"})
	for _, pin := range []string{"/", "//", ".", "../x", "a/../../etc", "file:///etc/passwd", "file://" + vault, "s3://bucket/x"} {
		r := c.call("session_pin", map[string]any{"path": pin})
		if !r.IsError || strings.Count(strings.TrimSpace(r.Text), "\n") != 0 || !strings.Contains(r.Text, "pin ") {
			t.Errorf("session_pin %q: %+v; want one line refusing it", pin, r)
		}
	}
	if out := c.ok("session_pin", map[string]any{"path": filepath.Join(vault, "a")}); !strings.Contains(out, `"matched": 3`) && !strings.Contains(out, `"matched":3`) {
		t.Errorf("session_pin of a folder in the source: %s; want 3 matched", out)
	}

	for _, root := range []string{"/", "../x", "file://" + vault} {
		r := c.call("watch", map[string]any{"root": root, "session": "w"})
		if !r.IsError || strings.Contains(r.Text, "enabled") || strings.Count(strings.TrimSpace(r.Text), "\n") != 0 || !strings.Contains(r.Text, "root") {
			t.Errorf("watch root %q: %+v; want one line refusing the root", root, r)
		}
	}
	if r := c.call("watch", map[string]any{"session": "w", "allow_create": false}); !r.IsError || !strings.Contains(r.Text, "allow_create is false") {
		t.Errorf("a refused watch made its session: %+v", r)
	}
}
