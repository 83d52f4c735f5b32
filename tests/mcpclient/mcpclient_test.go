// Package mcpclient runs the official TypeScript MCP client
// (@modelcontextprotocol/sdk, pinned in package-lock.json) against a
// freshly built braid serve: client.mjs checks that the ks and yams
// profiles list exactly their seeds' tools (mcpserver/testdata/
// seed_tools.json) and calls each of their new tools. It needs node and
// the package's node_modules (make mcpclient-deps, which runs npm ci);
// without them the test skips, saying so.
package mcpclient

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/braidsearch/braid/internal/testenv"
)

func TestTypeScriptClient(t *testing.T) {
	if _, err := os.Stat(filepath.Join("node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		t.Skip("no node_modules: tests/mcpclient needs make mcpclient-deps (npm ci) to run the TypeScript MCP client")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("no node: the TypeScript MCP client needs Node.js 18 or later on PATH")
	}
	ctx, cancel := context.WithTimeout(context.Background(), testenv.Guard)
	defer cancel()
	bin := filepath.Join(t.TempDir(), "braid")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "../../cmd/braid")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/braid: %v\n%s", err, out)
	}
	run := exec.CommandContext(ctx, node, "client.mjs", bin)
	out, err := run.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("node client.mjs: %v (its checks are above)", err)
	}
}
