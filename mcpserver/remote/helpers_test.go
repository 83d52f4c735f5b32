package remote_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/auth"
	"github.com/braidsearch/braid/internal/mcptest"
	"github.com/braidsearch/braid/internal/testenv"
	"github.com/braidsearch/braid/mcpserver"
	"github.com/braidsearch/braid/mcpserver/remote"
)

// tokens is the tests' Authenticator: a fixed token for each user.
type tokens map[string]*auth.Principal

func (t tokens) Authenticate(_ context.Context, token string) (*auth.Principal, error) {
	if p, ok := t[token]; ok {
		return p, nil
	}
	return nil, fmt.Errorf("%w: unknown token", auth.ErrInvalidToken)
}

var users = tokens{
	"alice-token": {Name: "alice", Groups: []string{"eng"}},
	"bob-token":   {Name: "bob"},
}

// index writes a small vault and indexes it, as braid index would, and
// returns the index directory.
func index(tb testing.TB) string {
	tb.Helper()
	vault := tb.TempDir()
	for i := range 5 {
		body := fmt.Sprintf("# Note %d\n\nThis note is about alpha rivers, number %d.\n", i, i)
		if err := os.WriteFile(filepath.Join(vault, fmt.Sprintf("note-%d.md", i)), []byte(body), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	idx := filepath.Join(tb.TempDir(), "idx")
	e, err := braid.Open(idx, nil)
	if err != nil {
		tb.Fatal(err)
	}
	defer e.Close()
	if _, err := e.Index(context.Background(), []braid.SourceSpec{{Path: vault}}, nil); err != nil {
		tb.Fatal(err)
	}
	return idx
}

// opener opens idx as braid serve does; gate, when not nil, holds the
// open until it is closed.
func opener(idx string, opt *braid.Options, gate chan struct{}) mcpserver.Opener {
	return func() (*braid.Engine, func(), error) {
		if gate != nil {
			<-gate
		}
		e, err := braid.Open(idx, opt)
		if err != nil {
			return nil, nil, err
		}
		return e, func() { e.Close() }, nil
	}
}

// running is a remote server on 127.0.0.1 started by a test.
type running struct {
	url  string // http://127.0.0.1:port
	srv  *mcpserver.Server
	stop func() error // ends Serve and returns its error
}

// start serves srv with opt on a fresh loopback port until the test ends.
// A nil opt.Authenticators gets the test users; PublicURL, when empty,
// becomes the server's own URL.
func start(tb testing.TB, srv *mcpserver.Server, opt remote.Options) *running {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	if opt.Authenticators == nil {
		opt.Authenticators = []auth.Authenticator{users}
	}
	if opt.PublicURL == "" {
		opt.PublicURL = url
	}
	rs, err := remote.New(srv, &opt)
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- rs.Serve(ctx, ln) }()
	var once sync.Once
	var serr error
	stop := func() error {
		once.Do(func() {
			cancel()
			serr = <-done
		})
		return serr
	}
	tb.Cleanup(func() {
		if err := stop(); err != nil {
			tb.Errorf("Serve: %v", err)
		}
	})
	return &running{url: url, srv: srv, stop: stop}
}

// serveIndex starts a server over a fresh index with opt.
func serveIndex(tb testing.TB, opt remote.Options) *running {
	tb.Helper()
	return start(tb, mcpserver.New(opener(index(tb), nil, nil), nil), opt)
}

// connect returns an initialized mcp-go Streamable HTTP client signed in
// with token; legacy keeps it on the 2025-11-25 initialize handshake,
// else it speaks 2026-07-28.
func connect(tb testing.TB, url, token string, legacy bool) *client.Client {
	tb.Helper()
	c, err := dial(url, token, legacy)
	if err != nil {
		tb.Fatalf("connect as %s: %v", token, err)
	}
	return c
}

// dial connects to url as the holder of token (mcptest.Dial).
func dial(url, token string, legacy bool) (*client.Client, error) {
	c, _, err := mcptest.Dial(url, token, legacy)
	return c, err
}

// search calls the search tool and returns its text, failing on any error.
func search(tb testing.TB, c *client.Client, query string) string {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testenv.Guard)
	defer cancel()
	var req mcp.CallToolRequest
	req.Params.Name = "search"
	req.Params.Arguments = map[string]any{"query": query}
	res, err := c.CallTool(ctx, req)
	if err != nil {
		tb.Fatalf("search %q: %v", query, err)
	}
	text := ""
	for _, ct := range res.Content {
		if t, ok := mcp.AsTextContent(ct); ok {
			text += t.Text
		}
	}
	if res.IsError {
		tb.Fatalf("search %q: tool error %s", query, text)
	}
	return text
}

// post sends a raw JSON-RPC body to /mcp with headers and returns the
// answer, its body read.
func post(tb testing.TB, url, body string, headers map[string]string) (*http.Response, string) {
	tb.Helper()
	req, err := http.NewRequest(http.MethodPost, url+"/mcp", strings.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	return do(tb, req)
}

func get(tb testing.TB, url string, headers map[string]string) (*http.Response, string) {
	tb.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		tb.Fatal(err)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	return do(tb, req)
}

func do(tb testing.TB, req *http.Request) (*http.Response, string) {
	tb.Helper()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		tb.Fatal(err)
	}
	return res, string(b)
}

// modern is a 2026-07-28 request body for method with params, and its
// headers, signed in with token when it is not empty.
func modern(method string, params map[string]any, token string) (string, map[string]string) {
	if params == nil {
		params = map[string]any{}
	}
	params["_meta"] = map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "raw", "version": "1"},
		"io.modelcontextprotocol/clientCapabilities": map[string]any{},
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	h := map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": method}
	if name, ok := params["name"].(string); ok {
		h["Mcp-Name"] = name
	}
	if token != "" {
		h["Authorization"] = "Bearer " + token
	}
	return string(b), h
}
