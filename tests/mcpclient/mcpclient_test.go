// Package mcpclient runs the official TypeScript MCP client
// (@modelcontextprotocol/sdk, pinned in package-lock.json) against a
// freshly built braid serve. client.mjs checks over stdio that the ks and
// yams profiles list exactly their seeds' tools (mcpserver/testdata/
// seed_tools.json) and calls each of their new tools; http.mjs drives a
// team's braid serve --http over Streamable HTTP with bearer tokens, as
// alice and bob, each seeing only their grants. It needs node and the
// package's node_modules (make mcpclient-deps, which runs npm ci);
// without them the tests skip, saying so.
package mcpclient

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/braidsearch/braid/internal/testenv"
)

// nodeAndBraid returns node and a braid built from this checkout, or
// skips the test when node or the SDK is not installed.
func nodeAndBraid(t *testing.T, ctx context.Context) (node, bin string) {
	t.Helper()
	if _, err := os.Stat(filepath.Join("node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		t.Skip("no node_modules: tests/mcpclient needs make mcpclient-deps (npm ci) to run the TypeScript MCP client")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("no node: the TypeScript MCP client needs Node.js 18 or later on PATH")
	}
	bin = filepath.Join(t.TempDir(), "braid")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "../../cmd/braid")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/braid: %v\n%s", err, out)
	}
	return node, bin
}

func TestTypeScriptClient(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), testenv.Guard)
	defer cancel()
	node, bin := nodeAndBraid(t, ctx)
	run := exec.CommandContext(ctx, node, "client.mjs", bin)
	out, err := run.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("node client.mjs: %v (its checks are above)", err)
	}
}

// The TypeScript client's Streamable HTTP transport against braid serve
// --http over three sources, with a token file and a policy granting
// alice alpha and the group eng (bob) beta: http.mjs checks that each
// sees only their grants, and that a session is its user's alone.
func TestTypeScriptClientHTTP(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), testenv.Guard)
	defer cancel()
	node, bin := nodeAndBraid(t, ctx)
	dir := t.TempDir()
	idx := filepath.Join(dir, "idx")
	braid := func(args ...string) string {
		t.Helper()
		cmd := exec.CommandContext(ctx, bin, append([]string{"--index", idx, "--model", "none"}, args...)...)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("braid %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
		}
		return strings.TrimSpace(string(out))
	}
	sources := []string{"alpha", "beta", "gamma"}
	braid(append([]string{"index"}, testenv.TeamSources(t, dir, sources...)...)...)
	tokens, policy := filepath.Join(dir, "tokens"), filepath.Join(dir, "policy.json")
	type user struct {
		Token   string   `json:"token"`
		Sources []string `json:"sources"`
	}
	users := map[string]user{
		"alice": {braid("tokens", "add", "alice", "--file", tokens), []string{"alpha"}},
		"bob":   {braid("tokens", "add", "bob", "--groups", "eng", "--file", tokens), []string{"beta"}},
	}
	grants := `{"grants": [{"who": "alice", "sources": ["alpha"]}, {"who": "group:eng", "sources": ["beta"]}]}`
	if err := os.WriteFile(policy, []byte(grants), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(map[string]any{"sources": sources, "users": users})
	if err != nil {
		t.Fatal(err)
	}
	usersFile := filepath.Join(dir, "users.json")
	if err := os.WriteFile(usersFile, b, 0o600); err != nil {
		t.Fatal(err)
	}

	serve := exec.Command(bin, "--index", idx, "--model", "none", "serve", "--http", "127.0.0.1:0", "--auth-tokens", tokens, "--policy", policy)
	url, stop := startServe(t, serve)
	defer stop()
	// node runs the users in the order of users.json's keys (json.Marshal
	// sorts them): alice first, then bob, who presents alice's session id.
	run := exec.CommandContext(ctx, node, "http.mjs", url, usersFile)
	out, err := run.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("node http.mjs: %v (its checks are above)", err)
	}
}

// startServe starts serve, a braid serve --http, and returns the URL of
// its /mcp endpoint once its log line says it, and what stops it.
func startServe(t *testing.T, serve *exec.Cmd) (url string, stop func()) {
	t.Helper()
	stderr, err := serve.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	stop = func() {
		serve.Process.Signal(syscall.SIGTERM)
		serve.Wait()
	}
	base, err := testenv.ServeAddr(stderr, nil)
	if err != nil {
		stop()
		t.Fatal(err)
	}
	return base + "/mcp", stop
}
