package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/internal/testenv"
	"github.com/braidsearch/braid/mcpserver"
)

// connect serves srv over a pair of pipes, as `braid serve` does over
// stdin and stdout, and returns an initialized mcp-go client speaking the
// initialize handshake that current MCP clients use. The client, the
// server and the engine are closed when the test ends. The stdio transport
// keeps its session in a package variable: tests here do not run in
// parallel.
func connect(tb testing.TB, srv *mcpserver.Server, opts ...client.ClientOption) *client.Client {
	tb.Helper()
	c, stop := serve(tb, srv, opts...)
	tb.Cleanup(stop)
	ctx, cancel := context.WithTimeout(context.Background(), testenv.Guard)
	defer cancel()
	if _, err := c.Initialize(ctx, initRequest()); err != nil {
		tb.Fatalf("initialize: %v", err)
	}
	return c
}

// serve starts srv on pipes and a client on their other ends, not yet
// initialized; stop closes the client and waits for the server to end.
// initRequest pins the handshake revision; a request without one makes
// the client try the modern protocol first.
func serve(tb testing.TB, srv *mcpserver.Server, opts ...client.ClientOption) (*client.Client, func()) {
	tb.Helper()
	toServer, fromClient := io.Pipe()
	toClient, fromServer := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- srv.Serve(context.Background(), toServer, fromServer)
		fromServer.Close() // ends the client's reader
	}()
	c := client.NewClient(transport.NewIO(toClient, fromClient, io.NopCloser(strings.NewReader(""))), opts...)
	if err := c.Start(context.Background()); err != nil {
		tb.Fatalf("start client: %v", err)
	}
	return c, func() {
		c.Close()
		select {
		case err := <-done:
			if err != nil {
				tb.Errorf("Serve: %v", err)
			}
		case <-time.After(testenv.Guard):
			tb.Error("Serve did not return after the client closed its end")
		}
	}
}

func initRequest() mcp.InitializeRequest {
	var req mcp.InitializeRequest
	req.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	req.Params.ClientInfo = mcp.Implementation{Name: "braid-test", Version: "1"}
	return req
}

// opener opens the index in dir with opt, closed by the server.
func opener(dir string, opt *braid.Options) mcpserver.Opener {
	return func() (*braid.Engine, func(), error) {
		e, err := braid.Open(dir, opt)
		if err != nil {
			return nil, nil, err
		}
		return e, func() { e.Close() }, nil
	}
}

// callResult is a tool's answer as the client saw it.
type callResult struct {
	Text    string
	IsError bool
}

// call invokes a tool and fails the test on a protocol error.
func call(tb testing.TB, c *client.Client, name string, args map[string]any) callResult {
	tb.Helper()
	r, err := callErr(c, name, args, nil)
	if err != nil {
		tb.Fatalf("%s %v: protocol error %v", name, args, err)
	}
	return r
}

func callErr(c *client.Client, name string, args map[string]any, meta *mcp.Meta) (callResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), testenv.Guard)
	defer cancel()
	var req mcp.CallToolRequest
	req.Params.Name = name
	if args != nil {
		req.Params.Arguments = args
	}
	req.Params.Meta = meta
	res, err := c.CallTool(ctx, req)
	if err != nil {
		return callResult{}, err
	}
	var b strings.Builder
	for _, ct := range res.Content {
		if t, ok := mcp.AsTextContent(ct); ok {
			b.WriteString(t.Text)
		}
	}
	return callResult{Text: b.String(), IsError: res.IsError}, nil
}

// ok calls a tool that must succeed and returns its text.
func ok(tb testing.TB, c *client.Client, name string, args map[string]any) string {
	tb.Helper()
	r := call(tb, c, name, args)
	if r.IsError {
		tb.Fatalf("%s %v: tool error %q", name, args, r.Text)
	}
	return r.Text
}

// decode parses a tool's JSON answer into v.
func decode(tb testing.TB, text string, v any) {
	tb.Helper()
	if err := json.Unmarshal([]byte(text), v); err != nil {
		tb.Fatalf("answer is not the JSON expected: %v\n%s", err, text)
	}
}

// writeVault writes n notes: each has a title, a tag, a marker word, a
// wikilink and a long filler section.
func writeVault(tb testing.TB, dir string, n int, marker string) {
	tb.Helper()
	for i := range n {
		body := fmt.Sprintf("---\ntitle: Note %d\ntags: [n%d]\n---\n# Note %d\n\nThis is note number %d with %s and [[Note %d]].\n\n## Details\n\n%s\n",
			i, i%7, i, i, marker, (i+1)%n, strings.Repeat("filler words about gardens and rivers. ", 20))
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("note-%04d.md", i)), []byte(body), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

// indexed builds an index of a fresh vault and returns the vault and the
// index directory; opt configures the engine that builds it.
func indexed(tb testing.TB, n int, opt *braid.Options) (vault, idx string) {
	tb.Helper()
	vault = tb.TempDir()
	writeVault(tb, vault, n, "alpha")
	return vault, indexDirWith(tb, vault, opt)
}

// indexDir indexes vault into a fresh index directory.
func indexDir(tb testing.TB, vault string) string {
	tb.Helper()
	return indexDirWith(tb, vault, nil)
}

// indexDirWith is indexDir with opt configuring the engine that builds it.
func indexDirWith(tb testing.TB, vault string, opt *braid.Options) string {
	tb.Helper()
	idx := filepath.Join(tb.TempDir(), "idx")
	e, err := braid.Open(idx, opt)
	if err != nil {
		tb.Fatal(err)
	}
	defer e.Close()
	if _, err := e.Index(context.Background(), []braid.SourceSpec{{Path: vault}}, nil); err != nil {
		tb.Fatal(err)
	}
	return idx
}

// clientT is a client bound to a test, for short calls.
type clientT struct {
	*client.Client
	tb testing.TB
}

func (c *clientT) ok(name string, args map[string]any) string {
	c.tb.Helper()
	return ok(c.tb, c.Client, name, args)
}

func (c *clientT) call(name string, args map[string]any) callResult {
	c.tb.Helper()
	return call(c.tb, c.Client, name, args)
}

// trusting is the server options of a test that is not about confinement:
// every folder of the test's temporary directory is allowed, and so are
// the writing tools.
func trusting(t testing.TB) *mcpserver.Options {
	return &mcpserver.Options{Allow: []string{filepath.Dir(t.TempDir())}, AllowWrites: true, Tools: "all"}
}
