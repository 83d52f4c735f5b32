package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/braidsearch/braid/internal/modeltest"
	"github.com/braidsearch/braid/internal/testenv"
)

// serveClient starts braid with args (a serve command line; this test
// binary acts as braid) and an initialized mcp-go stdio client talking to
// it; the server's stderr goes to errOut.
func serveClient(t *testing.T, errOut *testenv.Buffer, args ...string) *client.Client {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.NewStdioMCPClientWithOptions(self, []string{"BRAID_TEST_MAIN=1"}, args,
		transport.WithCommandStderrWriter(errOut))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), testenv.Guard)
	defer cancel()
	var req mcp.InitializeRequest
	req.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	req.Params.ClientInfo = mcp.Implementation{Name: "braid-test", Version: "1"}
	res, err := c.Initialize(ctx, req)
	if err != nil {
		t.Fatalf("initialize: %v (stderr %q)", err, errOut.String())
	}
	if res.ServerInfo.Name != "braid" {
		t.Errorf("server %+v", res.ServerInfo)
	}
	return c
}

func callTool(t *testing.T, c *client.Client, name string, args map[string]any) (string, bool) {
	t.Helper()
	var req mcp.CallToolRequest
	req.Params.Name, req.Params.Arguments = name, args
	ctx, cancel := context.WithTimeout(context.Background(), testenv.Guard)
	defer cancel()
	res, err := c.CallTool(ctx, req)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var b strings.Builder
	for _, ct := range res.Content {
		if tc, ok := mcp.AsTextContent(ct); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
}

// braid serve, run as its own process with the fixture models, answers a
// real MCP client: hybrid reranked search, index_path, and the writer lock
// that keeps other braid processes out while it runs.
func TestServeHybridOverStdio(t *testing.T) {
	t.Setenv("BRAID_ORT_LIB", modeltest.NeedRuntime(t))
	t.Setenv("BRAID_MODEL", modeltest.TinyDir())
	t.Setenv("BRAID_RERANKER", modeltest.TinyCrossDir())
	idx := filepath.Join(t.TempDir(), "idx")
	if _, errOut, code := runCLI(t, "--index", idx, "index", vaultDir(t, 4, "alpha")); code != 0 {
		t.Fatalf("index: %s", errOut)
	}
	var errOut testenv.Buffer
	c := serveClient(t, &errOut, "--index", idx, "serve", "--tools", "all", "--allow", filepath.Dir(t.TempDir()))

	tools, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	names := map[string]bool{}
	for _, tl := range tools.Tools {
		names[tl.Name] = true
	}
	for _, want := range []string{"search", "search_keyword", "grep", "read_node_content", "index_path", "explore_links"} {
		if !names[want] {
			t.Errorf("tools/list lacks %s", want)
		}
	}
	out, isErr := callTool(t, c, "search", map[string]any{"query": "note number alpha", "vector_weight": 0.7})
	var r searchJSON
	if isErr || json.Unmarshal([]byte(out), &r) != nil || len(r.Results) != 4 || r.Warning != "" {
		t.Fatalf("search: %q", out)
	}
	for _, h := range r.Results {
		if h.Source != "hybrid+rerank" {
			t.Errorf("hit source %q, want hybrid+rerank", h.Source)
		}
	}
	more := vaultDir(t, 3, "beta")
	if out, isErr := callTool(t, c, "index_path", map[string]any{"path": more}); isErr || !strings.Contains(out, `"added":3`) || !strings.Contains(out, `"embedded":`) {
		t.Errorf("index_path: %q", out)
	}
	// The server holds the index for writing: a CLI search runs inside it,
	// on its models.
	cliOut, cliErr, code := runCLI(t, "--index", idx, "--json", "search", "note number beta")
	if code != 0 || json.Unmarshal([]byte(cliOut), &r) != nil || len(r.Results) == 0 || r.Results[0].Source != "hybrid+rerank" {
		t.Errorf("braid search beside braid serve: code %d, stderr %q, out %.300q", code, cliErr, cliOut)
	}
	if err := c.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	// Closing stdin ends the server and frees the index.
	if _, cliErr, code := runCLI(t, "--index", idx, "--model", "none", "search-keyword", "beta"); code != 0 {
		t.Errorf("search after the server ended: %s", cliErr)
	}
}

// stdout carries only JSON-RPC messages, even when the server has
// warnings to give and gets a line that is not JSON; logs go to stderr.
func TestServeStdoutIsProtocolOnly(t *testing.T) {
	t.Setenv("BRAID_ORT_LIB", filepath.Join(t.TempDir(), "missing", "libonnxruntime.so.1"))
	idx := filepath.Join(t.TempDir(), "idx")
	vault := vaultDir(t, 3, "alpha")
	if _, errOut, code := runCLI(t, "--index", idx, "index", vault); code != 0 {
		t.Fatalf("index: %s", errOut)
	}
	self := testenv.Must1(os.Executable())(t)
	cmd := exec.Command(self, "--index", idx, "serve", "--tools", "all", "--max-output", "2000")
	cmd.Env = append(os.Environ(), "BRAID_TEST_MAIN=1")
	requests := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search","arguments":{"query":"alpha","vector_weight":0.9}}}`,
		`this is not json`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"grep","arguments":{"pattern":"["}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"read_node_content","arguments":{"id":"note-0001"}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":"braid://stats/summary"}}`,
		`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"no_such_tool","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"grep","arguments":{"pattern":"e"}}}`,
		`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"search","arguments":{"query":"filler","vector_weight":0.9}}}`,
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr testenv.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for _, r := range requests {
		io.WriteString(stdin, r+"\n")
	}
	// Read every line until the eight answers are in, then close stdin: the
	// server ends when its input does.
	ids := map[float64]string{}
	lines := make(chan []byte)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			lines <- append([]byte(nil), sc.Bytes()...)
		}
	}()
	timeout := time.After(testenv.Guard)
	for len(ids) < 8 {
		var line []byte
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("stdout ended after %d answers; stderr %q", len(ids), stderr.String())
			}
			line = l
		case <-timeout:
			cmd.Process.Kill()
			t.Fatalf("%d answers in 30s; stderr %q", len(ids), stderr.String())
		}
		var m struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      *float64        `json:"id"`
			Result  json.RawMessage `json:"result"`
			Error   json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(line, &m); err != nil || m.JSONRPC != "2.0" {
			t.Errorf("stdout line is not a JSON-RPC message: %q", line)
			continue
		}
		if m.ID != nil {
			ids[*m.ID] = string(m.Result) + string(m.Error)
		}
	}
	stdin.Close()
	for l := range lines {
		t.Errorf("stdout after the last answer: %q", l)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("serve: %v; stderr %q", err, stderr.String())
	}
	for id, want := range map[float64]string{
		1: `"serverInfo":{"name":"braid"`,
		3: `"isError":true`,
		4: `note number 1 with alpha`,
		5: `3 documents`,
		6: `"code":`, // an unknown tool is a protocol error
		7: `[output truncated: bytes 0..`,
	} {
		if !strings.Contains(ids[id], want) {
			t.Errorf("answer %v: %s\nwant it to contain %s", id, ids[id], want)
		}
	}
	// No model: searches warn in their answers, not on stdout, and give
	// the reason once and a pointer to get_stats once (which search comes
	// first is up to the workers); that they are not reranked, which no
	// search asked for, is not said (issue 35, point 2).
	both := ids[2] + ids[8]
	if strings.Count(both, "no ONNX Runtime found") != 1 || strings.Count(both, "(see get_stats), so this search is lexical only") != 1 ||
		strings.Contains(both, "rerank") {
		t.Errorf("search warnings:\n%s\n%s\nwant the reason once in full, once shortened, and reranking not mentioned", ids[2], ids[8])
	}
	if !strings.Contains(stderr.String(), "braid: warning: indexing without embeddings") {
		t.Errorf("stderr %q, want the missing-model warning there", stderr.String())
	}
}

// --read-only holds a shared lock: CLI searches run beside the server,
// and the writing tools say how to get write access.
func TestServeReadOnly(t *testing.T) {
	idx := filepath.Join(t.TempDir(), "idx")
	if _, errOut, code := runCLI(t, "--index", idx, "index", vaultDir(t, 2, "alpha")); code != 0 {
		t.Fatalf("index: %s", errOut)
	}
	var errOut testenv.Buffer
	c := serveClient(t, &errOut, "--index", idx, "--model", "none", "serve", "--tools", "all", "--read-only", "--allow", filepath.Dir(t.TempDir()))
	if out, isErr := callTool(t, c, "search_keyword", map[string]any{"query": "alpha"}); isErr || !strings.Contains(out, "note-0000.md") {
		t.Fatalf("search_keyword: %q", out)
	}
	if out, _, code := runCLI(t, "--index", idx, "--model", "none", "search-keyword", "alpha"); code != 0 || !strings.Contains(out, "Note 0") {
		t.Errorf("CLI search beside braid serve --read-only: code %d, %q", code, out)
	}
	out, isErr := callTool(t, c, "index_path", map[string]any{"path": t.TempDir()})
	if !isErr || !strings.Contains(out, "read-only") || !strings.Contains(out, "without --read-only") {
		t.Errorf("index_path on a read-only server: %q", out)
	}
	var st struct {
		Models struct {
			ReadOnly bool `json:"read_only"`
		}
	}
	if out, _ := callTool(t, c, "get_stats", nil); json.Unmarshal([]byte(out), &st) != nil || !st.Models.ReadOnly {
		t.Errorf("get_stats on a read-only server: %s", out)
	}
}

// braid serve --tools PROFILE, driven by mcp-go's client: tools/list is
// the profile's tools, a tool outside it is refused with a protocol error
// that names the profile, and a call of each profile works.
func TestServeToolProfiles(t *testing.T) {
	idx := filepath.Join(t.TempDir(), "idx")
	vault := vaultDir(t, 4, "alpha")
	if _, errOut, code := runCLI(t, "--index", idx, "index", vault); code != 0 {
		t.Fatalf("index: %s", errOut)
	}
	seeds := seedTools(t)
	for _, tc := range []struct {
		profile string
		outside string
		call    string
		args    map[string]any
		want    string
	}{
		{"core", "get_stats", "ask", map[string]any{"question": "note number alpha", "budget": 300}, `"tag":"[Note `},
		{"amalfa", "search", "search_documents", map[string]any{"query": "alpha", "limit": 2}, `"path":"note-000`},
		{"yams", "search_keyword", "search",
			map[string]any{"query": "alpha", "path_pattern": "note-0002.md", "vector_weight": 0}, `"path":"note-0002.md"`},
		{"ks", "search", "search_keyword", map[string]any{"query": "alpha", "top_k": 1}, `"total":`},
		{"alloy", "grep", "list_sources", nil, `"documents":4`},
	} {
		t.Run(tc.profile, func(t *testing.T) {
			var errOut testenv.Buffer
			c := serveClient(t, &errOut, "--index", idx, "--model", "none", "serve", "--tools", tc.profile, "--allow-writes")
			res, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
			if err != nil {
				t.Fatalf("tools/list: %v", err)
			}
			var got []string
			for _, tl := range res.Tools {
				got = append(got, tl.Name)
			}
			want := slices.Clone(seeds[tc.profile])
			slices.Sort(want)
			slices.Sort(got)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("tools/list of --tools %s (-want +got):\n%s", tc.profile, diff)
			}
			var req mcp.CallToolRequest
			req.Params.Name = tc.outside
			ctx, cancel := context.WithTimeout(context.Background(), testenv.Guard)
			defer cancel()
			if _, err := c.CallTool(ctx, req); err == nil || !strings.Contains(err.Error(), `"`+tc.outside+`" is not offered: braid serve runs with --tools `+tc.profile) ||
				!strings.Contains(err.Error(), "--tools all") {
				t.Errorf("%s outside --tools %s: %v, want a protocol error naming the profile", tc.outside, tc.profile, err)
			}
			if out, isErr := callTool(t, c, tc.call, tc.args); isErr || !strings.Contains(out, tc.want) {
				t.Errorf("%s: %.400s (error %v), want %s", tc.call, out, isErr, tc.want)
			}
		})
	}
	// An unknown profile or tool: serve refuses to start, in one line.
	out, errOut, code := runCLI(t, "--index", idx, "serve", "--tools", "core,telepathy")
	if code != 1 || out != "" || !strings.HasPrefix(errOut, `braid: --tools: "telepathy" is neither a tool profile (core, all, amalfa, yams, ks, alloy) nor a tool (add, ask,`) ||
		strings.Count(errOut, "\n") != 1 {
		t.Errorf("serve --tools core,telepathy: code %d, stderr %q", code, errOut)
	}
}

// braid serve on an --index that holds no index (a typo such as .briad)
// refuses to start, naming the path, and creates nothing; --init creates
// the index and serves it (issue 35, point 1).
func TestServeRefusesMissingIndex(t *testing.T) {
	typo := filepath.Join(t.TempDir(), "notes", ".briad")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"missing", []string{"serve"}, "braid: no index in " + typo + "; check --index (or BRAID_INDEX) for a typo, or pass --init"},
		{"read-only", []string{"serve", "--read-only"}, "braid: no index in " + typo},
		{"init and read-only", []string{"serve", "--init", "--read-only"}, "braid: --init creates the index in " + typo + ", which --read-only forbids"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := runCLI(t, append([]string{"--index", typo, "--model", "none"}, tc.args...)...)
			if code != 1 || out != "" || !strings.HasPrefix(errOut, tc.want) || strings.Count(errOut, "\n") != 1 {
				t.Errorf("code %d, stdout %q, stderr %q; want exit 1 and one line starting %q", code, out, errOut, tc.want)
			}
			if _, err := os.Stat(filepath.Dir(typo)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the refused serve left %s behind (%v)", filepath.Dir(typo), err)
			}
		})
	}
	var errOut testenv.Buffer
	c := serveClient(t, &errOut, "--index", typo, "--model", "none", "serve", "--init")
	if out, isErr := callTool(t, c, "search", map[string]any{"query": "alpha"}); !isErr || !strings.Contains(out, "no documents indexed yet in "+typo) {
		t.Errorf("search on the index --init made: %q, want the empty-index error", out)
	}
	if _, err := os.Stat(filepath.Join(typo, "meta.db")); err != nil {
		t.Errorf("--init made no index: %v", err)
	}
}

// seedTools are each profile's tools, from the one list the MCP server's
// tests and the TypeScript client test read (mcpserver/testdata/seed_tools.json).
func seedTools(t *testing.T) map[string][]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "mcpserver", "testdata", "seed_tools.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for name, raw := range m {
		var p struct{ Tools []string }
		if !strings.HasPrefix(name, "_") && json.Unmarshal(raw, &p) == nil {
			out[name] = p.Tools
		}
	}
	return out
}
