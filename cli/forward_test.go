package cli

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/braidsearch/braid/internal/relay"
	"github.com/braidsearch/braid/internal/testenv"
)

// socketPath is the socket of the index in idx.
func socketPath(t *testing.T, idx string) string {
	t.Helper()
	p, err := relay.SocketPath(idx)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// waitForSocket waits until a braid serve answers on the index's socket.
func waitForSocket(t *testing.T, idx string) {
	t.Helper()
	deadline := time.Now().Add(testenv.Guard)
	for {
		c, err := relay.Dial(socketPath(t, idx))
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("braid serve did not listen on %s: %v", socketPath(t, idx), err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// While braid serve holds the index, other braid commands run through it:
// reads beside the server's own tool calls and beside each other, writes
// in turn with index_path, and the server sees what they wrote. After the
// server ends they run on their own again.
func TestCLIBesideServe(t *testing.T) {
	idx := filepath.Join(t.TempDir(), "idx")
	vault := vaultDir(t, 6, "alpha")
	if _, errOut, code := runCLI(t, "--index", idx, "--model", "none", "index", vault); code != 0 {
		t.Fatalf("index: %s", errOut)
	}
	var serveErr testenv.Buffer
	c := serveClient(t, &serveErr, "--index", idx, "--model", "none", "serve", "--tools", "all")
	waitForSocket(t, idx)

	// Reads: search, get (a path relative to the client's directory), grep, stats, batch.
	out, errOut, code := runCLI(t, "--index", idx, "--json", "search", "note number alpha")
	var res struct {
		Hits []struct{ Path string } `json:"results"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &res) != nil || len(res.Hits) != 6 {
		t.Fatalf("search beside serve: code %d, stderr %q, out %.300q", code, errOut, out)
	}
	t.Chdir(vault)
	if out, errOut, code := runCLI(t, "--index", idx, "get", "./note-0002.md"); code != 0 || !strings.Contains(out, "note number 2 ") {
		t.Errorf("get by a relative path: code %d, stderr %q, out %.200q", code, errOut, out)
	}
	if out, _, code := runCLI(t, "--index", idx, "grep", "-l", "number 3 "); code != 0 || strings.TrimSpace(out) != "note-0003.md" {
		t.Errorf("grep names files relative to the client's directory: code %d, %q", code, out)
	}
	queries := filepath.Join(t.TempDir(), "q.jsonl")
	testenv.Must(t, os.WriteFile(queries, []byte(`{"id":"a","query":"alpha"}`+"\n"+`{"id":"b","query":"gardens"}`+"\n"), 0o644))
	if out, errOut, code := runCLI(t, "--index", idx, "batch", queries); code != 0 || strings.Count(out, "\n") != 2 {
		t.Errorf("batch: code %d, stderr %q, out %.300q", code, errOut, out)
	}

	// A write through the server, many searches at the same time, and an
	// index_path from the MCP client racing it: all succeed, in turn.
	more := filepath.Join(t.TempDir(), "more")
	testenv.Must(t, os.Mkdir(more, 0o755))
	writeVault(t, more, 40, "beta")
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	wg.Go(func() {
		if _, errOut, code := runCLI(t, "--index", idx, "-q", "index", more); code != 0 {
			errs <- "index: " + errOut
		}
	})
	wg.Go(func() {
		if out, isErr := callTool(t, c, "index_path", map[string]any{"path": vault}); isErr {
			errs <- "index_path: " + out
		}
	})
	for i := range 8 {
		wg.Go(func() {
			if _, errOut, code := runCLI(t, "--index", idx, "search-keyword", fmt.Sprintf("note number %d", i)); code != 0 {
				errs <- "search: " + errOut
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	out, isErr := callTool(t, c, "search_keyword", map[string]any{"query": "beta", "limit": 3})
	var found struct{ Total int }
	if isErr || json.Unmarshal([]byte(out), &found) != nil || found.Total != 40 {
		t.Errorf("the server does not see what the CLI indexed through it: %.300q", out)
	}

	// Commands that need the index to themselves say why.
	if _, errOut, code := runCLI(t, "--index", idx, "index", "--watch"); code != 1 || !strings.Contains(errOut, "serve") || !strings.Contains(errOut, "--watch") {
		t.Errorf("index --watch beside serve: code %d, %q", code, errOut)
	}
	if _, errOut, code := runCLI(t, "--index", idx, "doctor", "--repair"); code != 1 || !strings.Contains(errOut, "braid serve") {
		t.Errorf("doctor --repair beside serve: code %d, %q", code, errOut)
	}

	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(testenv.Guard)
	for _, err := os.Stat(socketPath(t, idx)); err == nil && time.Now().Before(deadline); _, err = os.Stat(socketPath(t, idx)) {
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := os.Stat(socketPath(t, idx)); err == nil {
		t.Error("the socket outlived the server")
	}
	if out, errOut, code := runCLI(t, "--index", idx, "--model", "none", "search-keyword", "beta"); code != 0 || !strings.Contains(out, "with «beta»") {
		t.Errorf("search after the server ended: code %d, %s, out %.300q", code, errOut, out)
	}
	if t.Failed() {
		t.Logf("serve stderr:\n%s", serveErr.String())
	}
}

// A command does not go to a socket of another user, nor run on its own
// beside it: it says whose the socket is. A socket folder that is not
// private is not searched for a server, and the command runs here.
func TestForwardRefusals(t *testing.T) {
	vault := vaultDir(t, 3, "alpha")
	t.Run("another user's socket", func(t *testing.T) {
		if os.Getuid() != 0 {
			t.Skip("not root: giving a socket to another user (uid 65534) needs root")
		}
		idx := filepath.Join(t.TempDir(), "idx")
		if _, errOut, code := runCLI(t, "--index", idx, "--model", "none", "index", vault); code != 0 {
			t.Fatalf("index: %s", errOut)
		}
		path := socketPath(t, idx)
		ln, err := net.Listen("unix", path)
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		if err := os.Lchown(path, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		out, errOut, code := runCLI(t, "--index", idx, "search-keyword", "alpha")
		if code != 1 || out != "" || !strings.Contains(errOut, "held by uid 65534") || !strings.Contains(errOut, "not sending") {
			t.Errorf("code %d, stdout %.200q, stderr %q; want exit 1, no result, and whose the socket is", code, out, errOut)
		}
	})
	t.Run("open socket folder", func(t *testing.T) {
		tmp := t.TempDir()
		t.Setenv("TMPDIR", tmp)
		t.Setenv("XDG_RUNTIME_DIR", "")
		folder := filepath.Join(tmp, "braid-"+strconv.Itoa(os.Getuid()))
		testenv.Must(t, os.Mkdir(folder, 0o700))
		testenv.Must(t, os.Chmod(folder, 0o777))
		idx := filepath.Join(t.TempDir(), strings.Repeat("i", 120))
		if _, errOut, code := runCLI(t, "--index", idx, "--model", "none", "index", vault); code != 0 {
			t.Fatalf("index: %s", errOut)
		}
		out, errOut, code := runCLI(t, "--index", idx, "--model", "none", "search-keyword", "alpha")
		if code != 0 || !strings.Contains(out, "with «alpha»") || !strings.Contains(errOut, "warning: not looking for a braid serve") || !strings.Contains(errOut, folder+" is open to other users") {
			t.Errorf("code %d, stdout %.200q, stderr %q; want the result and a warning naming %s", code, out, errOut, folder)
		}
	})
}
