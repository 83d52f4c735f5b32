package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/braidsearch/braid/internal/testenv"
)

// The hostile-client suite: braid serve, run as its own process, driven
// over stdio by a client that tries to make it read or write outside the
// folders its user allowed. Every attempt must end in a tool error (or a
// protocol error for a tool that is not offered), nothing outside may be
// read into a reply or written, and the server must answer the next call.

const secretText = "TOPSECRET-9f2c"

// hostileSetup makes base/vault (indexed), base/outside/secret.txt, and in
// the vault a link to the secret, a link to the outside folder and a FIFO.
func hostileSetup(t *testing.T) (idx, vault, outside string) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	vault, outside = filepath.Join(base, "vault"), filepath.Join(base, "outside")
	for _, d := range []string{vault, outside, filepath.Join(base, "other")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeVault(t, vault, 3, "alpha")
	if err := os.WriteFile(filepath.Join(outside, "secret.txt"), []byte(secretText+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "keep.md"), []byte("original\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"passwd.md": filepath.Join(outside, "secret.txt"), "out": outside} {
		if err := os.Symlink(target, filepath.Join(vault, link)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(vault, "pipe.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	idx = filepath.Join(base, "idx")
	if _, errOut, code := runCLI(t, "--index", idx, "--model", "none", "index", vault); code != 0 {
		t.Fatalf("index: %s", errOut)
	}
	return idx, vault, outside
}

// roots is a client's roots/list answer, changeable mid-session.
type roots struct {
	mu   sync.Mutex
	dirs []string
}

func (r *roots) set(dirs ...string) {
	r.mu.Lock()
	r.dirs = dirs
	r.mu.Unlock()
}

func (r *roots) ListRoots(context.Context, mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	res := &mcp.ListRootsResult{Roots: []mcp.Root{}}
	for _, d := range r.dirs {
		res.Roots = append(res.Roots, mcp.Root{URI: "file://" + d, Name: filepath.Base(d)})
	}
	return res, nil
}

// rootsClient is serveClient for a client that declares roots.
func rootsClient(t *testing.T, r *roots, errOut *testenv.Buffer, args ...string) *client.Client {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	tr := transport.NewStdioWithOptions(self, []string{"BRAID_TEST_MAIN=1"}, args, transport.WithCommandStderrWriter(errOut))
	c := client.NewClient(tr, client.WithRootsHandler(r))
	ctx, cancel := context.WithTimeout(context.Background(), testenv.Guard)
	defer cancel()
	if err := c.Start(context.Background()); err != nil { // the server lives as long as the client
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	var req mcp.InitializeRequest
	req.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	req.Params.ClientInfo = mcp.Implementation{Name: "braid-hostile", Version: "1"}
	if _, err := c.Initialize(ctx, req); err != nil {
		t.Fatalf("initialize: %v (stderr %q)", err, errOut.String())
	}
	return c
}

// mustRefuse calls a tool and fails the test unless it is refused with a
// message holding want, without the secret in it.
func mustRefuse(t *testing.T, c *client.Client, name string, args map[string]any, want string) {
	t.Helper()
	var req mcp.CallToolRequest
	req.Params.Name, req.Params.Arguments = name, args
	ctx, cancel := context.WithTimeout(context.Background(), testenv.Guard)
	defer cancel()
	res, err := c.CallTool(ctx, req)
	if err != nil {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%s %v: protocol error %v, want one saying %q", name, args, err, want)
		}
		return
	}
	var b strings.Builder
	for _, ct := range res.Content {
		if tc, ok := mcp.AsTextContent(ct); ok {
			b.WriteString(tc.Text)
		}
	}
	text := b.String()
	if !res.IsError || !strings.Contains(text, want) || strings.Contains(text, secretText) {
		t.Errorf("%s %v: isError %v, %q; want a refusal saying %q", name, args, res.IsError, text, want)
	}
}

func TestHostileClientStaysInside(t *testing.T) {
	idx, vault, outside := hostileSetup(t)
	var errOut testenv.Buffer
	c := serveClient(t, &errOut, "--index", idx, "--model", "none", "serve", "--tools", "all")
	secret := filepath.Join(outside, "secret.txt")
	rel, err := filepath.Rel(mustGetwd(t), secret)
	if err != nil {
		t.Fatal(err)
	}
	const outsideMsg = "outside the folders this server may use"
	long := "/" + strings.Repeat("a/", 3000)
	for _, p := range []string{outside, "/etc", filepath.Join(vault, "..", "outside"), filepath.Join(vault, "out"),
		filepath.Join(vault, "out", "secret.txt"), filepath.Join(vault, "passwd.md"), rel, "/"} {
		mustRefuse(t, c, "index_path", map[string]any{"path": p}, outsideMsg)
		mustRefuse(t, c, "add", map[string]any{"path": p, "name": "x.md"}, outsideMsg)
	}
	for _, p := range []string{vault + "/a\x00b", long} {
		mustRefuse(t, c, "index_path", map[string]any{"path": p}, "path")
		mustRefuse(t, c, "add", map[string]any{"path": p, "name": "x.md"}, "path")
	}
	// A Windows-style path is one odd file name here: nothing by that name exists.
	mustRefuse(t, c, "index_path", map[string]any{"path": `..\..\outside`}, outsideMsg)
	// Inside the vault but no regular file: answered at once.
	mustRefuse(t, c, "add", map[string]any{"path": filepath.Join(vault, "pipe.md")}, "FIFO")
	for _, p := range []string{secret, "/etc/passwd", "../../../../etc/passwd", filepath.Join(vault, "passwd.md"), filepath.Join(vault, "out", "secret.txt"), "/dev/zero"} {
		mustRefuse(t, c, "grep", map[string]any{"pattern": "TOPSECRET|root", "paths": []string{p}}, "not an indexed file")
	}
	for _, id := range []string{secret, filepath.Join(vault, "passwd.md"), "../outside/secret.txt"} {
		mustRefuse(t, c, "read_node_content", map[string]any{"id": id}, "")
	}
	// The writing tools are not offered at all.
	tools, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools.Tools {
		if tl.Name == "restore" || tl.Name == "inject_tags" {
			t.Errorf("tools/list offers %s without --allow-writes", tl.Name)
		}
	}
	if out, isErr := callTool(t, c, "add", map[string]any{"content": "owned\n", "name": "keep.md", "collection": "c1"}); isErr { // it stays in the store
		t.Fatalf("add content: %q", out)
	}
	mustRefuse(t, c, "restore", map[string]any{"collection": "c1", "output_directory": outside, "overwrite": true}, "only when started with --allow-writes")
	mustRefuse(t, c, "inject_tags", map[string]any{"file_path": filepath.Join(vault, "note-0000.md"), "tags": []string{"x"}}, "only when started with --allow-writes")

	// Nothing outside was read in or written, and the server still answers.
	if out, isErr := callTool(t, c, "grep", map[string]any{"pattern": "TOPSECRET"}); isErr || strings.Contains(out, secretText) {
		t.Errorf("grep over the index: %q", out)
	}
	if out, isErr := callTool(t, c, "search_keyword", map[string]any{"query": "alpha"}); isErr || !strings.Contains(out, "note-0000.md") {
		t.Errorf("search after the attacks: %q", out)
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "keep.md")); string(b) != "original\n" {
		t.Errorf("keep.md outside became %q", b)
	}
	if out, _ := callTool(t, c, "list_sources", nil); strings.Count(out, `"id"`) != 2 { // the vault and the store
		t.Errorf("sources after the attacks: %s", out)
	}
}

// With --allow and --allow-writes the same calls work on the allowed
// folder, and restore still never replaces a file unless asked.
func TestHostileClientWithAllow(t *testing.T) {
	idx, vault, outside := hostileSetup(t)
	elsewhere := filepath.Join(filepath.Dir(outside), "elsewhere")
	if err := os.MkdirAll(elsewhere, 0o755); err != nil {
		t.Fatal(err)
	}
	var errOut testenv.Buffer
	c := serveClient(t, &errOut, "--index", idx, "--model", "none", "serve", "--tools", "all", "--allow", outside, "--allow-writes")
	if out, isErr := callTool(t, c, "index_path", map[string]any{"path": outside}); isErr || !strings.Contains(out, `"added":2`) {
		t.Fatalf("index_path under --allow: %q", out)
	}
	if out, isErr := callTool(t, c, "add", map[string]any{"path": filepath.Join(outside, "secret.txt"), "name": "s.txt"}); isErr {
		t.Fatalf("add under --allow: %q", out)
	}
	if out, isErr := callTool(t, c, "add", map[string]any{"content": "restored text\n", "name": "keep.md", "collection": "c1"}); isErr {
		t.Fatalf("add content: %q", out)
	}
	// restore: refused outside the allowed folders, skips an existing file
	// unless asked, replaces it when asked.
	mustRefuse(t, c, "restore", map[string]any{"collection": "c1", "output_directory": elsewhere}, "outside the folders")
	out, isErr := callTool(t, c, "restore", map[string]any{"collection": "c1", "output_directory": outside})
	if b, _ := os.ReadFile(filepath.Join(outside, "keep.md")); isErr || string(b) != "original\n" || !strings.Contains(out, "skipped") {
		t.Errorf("restore without overwrite: %q; keep.md %q", out, b)
	}
	if out, isErr := callTool(t, c, "restore", map[string]any{"collection": "c1", "output_directory": outside, "overwrite": true}); isErr {
		t.Errorf("restore with overwrite: %q", out)
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "keep.md")); string(b) != "restored text\n" {
		t.Errorf("keep.md after restore with overwrite: %q", b)
	}
	if _, isErr := callTool(t, c, "inject_tags", map[string]any{"file_path": filepath.Join(vault, "note-0000.md"), "tags": []string{"x"}}); isErr {
		t.Errorf("inject_tags with --allow-writes refused")
	}
	// /dev is not allowed; with it allowed, /dev/zero is refused as no regular file, at once.
	mustRefuse(t, c, "add", map[string]any{"path": "/dev/zero", "name": "z"}, "outside the folders")
}

func TestAddRefusesDevicesAtOnce(t *testing.T) {
	idx := filepath.Join(t.TempDir(), "idx")
	var errOut testenv.Buffer
	c := serveClient(t, &errOut, "--index", idx, "--model", "none", "serve", "--init", "--tools", "all", "--allow", "/dev")
	// A call that read the device would never answer: mustRefuse fails it
	// at its deadline, and one stuck worker per call would leave none for
	// get_stats.
	for i := 0; i < 6; i++ { // more calls than mcp-go has workers
		mustRefuse(t, c, "add", map[string]any{"path": "/dev/zero", "name": "z"}, "character device")
	}
	if _, isErr := callTool(t, c, "get_stats", nil); isErr {
		t.Error("the server stopped answering")
	}
}

func TestClientRoots(t *testing.T) {
	idx, _, outside := hostileSetup(t)
	other := filepath.Join(filepath.Dir(outside), "other")
	writeVault(t, other, 2, "gamma")
	r := &roots{}
	r.set(outside)
	var errOut testenv.Buffer
	c := rootsClient(t, r, &errOut, "--index", idx, "--model", "none", "serve", "--tools", "all")
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("server stderr: %s", errOut.String())
		}
	})
	if out, isErr := callTool(t, c, "index_path", map[string]any{"path": outside}); isErr {
		t.Fatalf("index_path under a client root: %q (stderr %q)", out, errOut.String())
	}
	mustRefuse(t, c, "index_path", map[string]any{"path": other}, "outside the folders")
	// The client moves its root: the old one is no longer allowed.
	r.set(other)
	if err := c.RootListChanges(context.Background()); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(testenv.Guard)
	for {
		out, isErr := callTool(t, c, "index_path", map[string]any{"path": other})
		if !isErr {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("index_path after roots changed: %q", out)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if out, isErr := callTool(t, c, "add", map[string]any{"path": filepath.Join(outside, "secret.txt"), "name": "s.txt"}); isErr {
		t.Errorf("add from a registered source after its root went: %q", out) // a source stays allowed
	}
}

// braid serve ends after SIGTERM or its client closing stdin (within
// testenv.Guard: a hang, not a timing claim).
func TestServeShutdownIsBounded(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, how := range []string{"sigterm", "stdin"} {
		t.Run(how, func(t *testing.T) {
			idx := filepath.Join(t.TempDir(), "idx")
			cmd := exec.Command(self, "--index", idx, "--model", "none", "serve", "--tools", "all")
			cmd.Env = append(os.Environ(), "BRAID_TEST_MAIN=1")
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			_, _ = stdin.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n"))
			time.Sleep(300 * time.Millisecond)
			if how == "sigterm" {
				_ = cmd.Process.Signal(syscall.SIGTERM)
			} else {
				stdin.Close()
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(testenv.Guard):
				_ = cmd.Process.Kill()
				t.Fatalf("braid serve still running %v after %s", testenv.Guard, how)
			}
		})
	}
}

func mustGetwd(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return wd
}
