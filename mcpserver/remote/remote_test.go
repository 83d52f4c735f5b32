package remote_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/internal/testenv"
	"github.com/braidsearch/braid/mcpserver"
	"github.com/braidsearch/braid/mcpserver/remote"
)

// A signed-in user of either protocol era lists the tools and searches;
// the tools see who signed in.
func TestHTTPSignedIn(t *testing.T) {
	r := serveIndex(t, remote.Options{})
	for _, legacy := range []bool{false, true} {
		c := connect(t, r.url, "alice-token", legacy)
		ctx, cancel := context.WithTimeout(context.Background(), testenv.Guard)
		tools, err := c.ListTools(ctx, mcp.ListToolsRequest{})
		cancel()
		if err != nil {
			t.Fatalf("legacy %v: tools/list: %v", legacy, err)
		}
		if !slices.ContainsFunc(tools.Tools, func(tl mcp.Tool) bool { return tl.Name == "search" }) {
			t.Errorf("legacy %v: tools/list has no search: %v", legacy, tools.Tools)
		}
		var reply struct {
			Results []struct {
				Path string `json:"path"`
			} `json:"results"`
		}
		if err := json.Unmarshal([]byte(search(t, c, "alpha rivers")), &reply); err != nil {
			t.Fatal(err)
		}
		if len(reply.Results) == 0 {
			t.Errorf("legacy %v: search found nothing", legacy)
		}
		c.Close()
	}
}

// Without a token, or with a bad one, /mcp is 401 and names the metadata,
// which names the public URL and the issuer; /healthz needs no token.
func TestHTTPUnauthorized(t *testing.T) {
	r := serveIndex(t, remote.Options{Issuers: []string{"https://id.example.com"}, Scopes: []string{"braid"}})
	meta := r.url + server.WellKnownProtectedResourcePath
	body, h := modern("tools/list", nil, "")
	res, _ := post(t, r.url, body, h)
	if res.StatusCode != http.StatusUnauthorized {
		t.Errorf("no token: status %d, want 401", res.StatusCode)
	}
	if got, want := res.Header.Get("WWW-Authenticate"), `Bearer resource_metadata="`+meta+`"`; got != want {
		t.Errorf("no token: WWW-Authenticate %q, want %q", got, want)
	}
	h["Authorization"] = "Bearer mallory-token"
	res, _ = post(t, r.url, body, h)
	if res.StatusCode != http.StatusUnauthorized {
		t.Errorf("bad token: status %d, want 401", res.StatusCode)
	}
	if got := res.Header.Get("WWW-Authenticate"); !strings.Contains(got, `resource_metadata="`+meta+`"`) || !strings.Contains(got, `error="invalid_token"`) {
		t.Errorf("bad token: WWW-Authenticate %q", got)
	}
	if _, err := dial(r.url, "mallory-token", false); err == nil {
		t.Error("the mcp-go client signed in with a bad token")
	}
	res, text := get(t, meta, nil)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("metadata: status %d", res.StatusCode)
	}
	var doc server.ProtectedResourceMetadataConfig
	if err := json.Unmarshal([]byte(text), &doc); err != nil {
		t.Fatal(err)
	}
	want := server.ProtectedResourceMetadataConfig{Resource: r.url, AuthorizationServers: []string{"https://id.example.com"},
		ScopesSupported: []string{"braid"}, BearerMethodsSupported: []string{"header"}, ResourceName: "braid"}
	if diff := cmp.Diff(want, doc); diff != "" {
		t.Errorf("metadata (-want +got):\n%s", diff)
	}
	if res, _ := get(t, r.url+"/metrics", nil); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("/metrics without a token: status %d, want 401", res.StatusCode)
	}
}

// A browser's Origin must be the public URL's or an allowed one; no
// Origin is fine. The protocol's own checks hold: a Mcp-Method that is
// not the body's is 400, GET is 405.
func TestHTTPOriginAndProtocol(t *testing.T) {
	r := serveIndex(t, remote.Options{AllowedOrigins: []string{"https://app.example.com"}})
	body, h := modern("tools/list", nil, "alice-token")
	for _, tc := range []struct {
		name, origin string
		want         int
	}{
		{"absent", "", http.StatusOK},
		{"public URL", r.url, http.StatusOK},
		{"allowed", "https://app.example.com", http.StatusOK},
		{"other", "https://evil.example.com", http.StatusForbidden},
		{"null", "null", http.StatusForbidden},
	} {
		h2 := map[string]string{"Origin": tc.origin}
		for k, v := range h {
			h2[k] = v
		}
		if tc.origin == "" {
			delete(h2, "Origin")
		}
		if res, text := post(t, r.url, body, h2); res.StatusCode != tc.want {
			t.Errorf("origin %s: status %d, want %d (%s)", tc.name, res.StatusCode, tc.want, text)
		}
	}
	// The header says tools/list, the body is a tools/call.
	body, h = modern("tools/call", map[string]any{"name": "search", "arguments": map[string]any{"query": "alpha"}}, "alice-token")
	h["Mcp-Method"] = "tools/list"
	res, text := post(t, r.url, body, h)
	if res.StatusCode != http.StatusBadRequest || !strings.Contains(text, strconv.Itoa(mcp.HEADER_MISMATCH)) {
		t.Errorf("header mismatch: status %d, body %s; want 400 with %d", res.StatusCode, text, mcp.HEADER_MISMATCH)
	}
	for _, version := range []string{"2026-07-28", mcp.LATEST_LEGACY_PROTOCOL_VERSION} {
		res, _ := get(t, r.url+"/mcp", map[string]string{"Authorization": "Bearer alice-token", "Mcp-Protocol-Version": version})
		if res.StatusCode != http.StatusMethodNotAllowed {
			t.Errorf("GET /mcp (%s): status %d, want 405", version, res.StatusCode)
		}
	}
	if res, _ := post(t, r.url, body, nil); res.StatusCode == http.StatusOK {
		t.Error("a request without a token got 200")
	}
}

// A 2025-11-25 session belongs to the user who started it: bob cannot use
// alice's id, and a second server with the same key accepts it for alice
// (no shared store, no sticky balancer).
func TestHTTPSessionBoundToUser(t *testing.T) {
	idx := index(t)
	key := []byte("a key the two servers share, 32+ bytes long")
	ro := &braid.Options{ReadOnly: true}
	a := start(t, mcpserver.New(opener(idx, ro, nil), nil), remote.Options{SessionKey: key})
	b := start(t, mcpserver.New(opener(idx, ro, nil), nil), remote.Options{SessionKey: key})
	c := connect(t, a.url, "alice-token", true)
	defer c.Close()
	id := c.GetTransport().(*transport.StreamableHTTP).GetSessionId()
	if id == "" {
		t.Fatal("the 2025-11-25 client got no session id")
	}
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}`
	h := func(token string) map[string]string {
		return map[string]string{"Authorization": "Bearer " + token, "Mcp-Session-Id": id, "Mcp-Protocol-Version": mcp.LATEST_LEGACY_PROTOCOL_VERSION}
	}
	for _, tc := range []struct {
		name, url, token string
		want             int
	}{
		{"alice here", a.url, "alice-token", http.StatusOK},
		{"alice on the other server", b.url, "alice-token", http.StatusOK},
		{"bob here", a.url, "bob-token", http.StatusNotFound},
		{"bob on the other server", b.url, "bob-token", http.StatusNotFound},
	} {
		if res, text := post(t, tc.url, list, h(tc.token)); res.StatusCode != tc.want {
			t.Errorf("%s: status %d, want %d (%s)", tc.name, res.StatusCode, tc.want, text)
		}
	}
	forged := strings.Replace(id, "YWxpY2U", "Ym9i", 1) // alice's id, relabelled bob's
	hb := h("bob-token")
	hb["Mcp-Session-Id"] = forged
	if res, _ := post(t, a.url, list, hb); res.StatusCode != http.StatusNotFound {
		t.Errorf("a relabelled id: status %d, want 404", res.StatusCode)
	}
	other := start(t, mcpserver.New(opener(idx, ro, nil), nil), remote.Options{})
	if res, _ := post(t, other.url, list, h("alice-token")); res.StatusCode != http.StatusNotFound {
		t.Errorf("a server with another key: status %d, want 404", res.StatusCode)
	}
	// No server can end a session every server accepts: a DELETE, alice's
	// or bob's, is 405 (the transport's "termination not allowed"), and the
	// id still holds, rather than a 200 after which it would not be 404.
	for _, token := range []string{"alice-token", "bob-token"} {
		req, err := http.NewRequest(http.MethodDelete, a.url+"/mcp", nil)
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range h(token) {
			req.Header.Set(k, v)
		}
		if res, text := do(t, req); res.StatusCode != http.StatusMethodNotAllowed {
			t.Errorf("DELETE of alice's session with %s: status %d, want 405 (%s)", token, res.StatusCode, text)
		}
	}
	if res, text := post(t, a.url, list, h("alice-token")); res.StatusCode != http.StatusOK {
		t.Errorf("alice's session after the DELETE: status %d, want 200 (%s)", res.StatusCode, text)
	}
}

// /healthz is 503 while the index opens, 200 once it is open, without a
// token either way.
func TestHTTPHealthz(t *testing.T) {
	gate := make(chan struct{})
	srv := mcpserver.New(opener(index(t), nil, gate), nil)
	r := start(t, srv, remote.Options{})
	res, _ := get(t, r.url+"/healthz", nil)
	if res.StatusCode != http.StatusServiceUnavailable || res.Header.Get("Retry-After") == "" {
		t.Errorf("opening: status %d, Retry-After %q; want 503 with Retry-After", res.StatusCode, res.Header.Get("Retry-After"))
	}
	close(gate)
	ctx, cancel := context.WithTimeout(context.Background(), testenv.Guard)
	defer cancel()
	_, release, err := srv.Lend(ctx, false) // returns once the engine is open
	if err != nil {
		t.Fatal(err)
	}
	release()
	if res, text := get(t, r.url+"/healthz", nil); res.StatusCode != http.StatusOK {
		t.Errorf("open: status %d (%s), want 200", res.StatusCode, text)
	}
}

// Past a user's rate a request is 429 with Retry-After, and other users
// keep theirs; past the body bound it is 413.
func TestHTTPLimits(t *testing.T) {
	r := serveIndex(t, remote.Options{Rate: 0.001, Burst: 2, MaxBody: 2048})
	body, h := modern("tools/list", nil, "alice-token")
	for i := range 2 {
		if res, text := post(t, r.url, body, h); res.StatusCode != http.StatusOK {
			t.Fatalf("request %d: status %d (%s)", i, res.StatusCode, text)
		}
	}
	res, _ := post(t, r.url, body, h)
	if res.StatusCode != http.StatusTooManyRequests {
		t.Errorf("past the rate: status %d, want 429", res.StatusCode)
	}
	if s, err := strconv.Atoi(res.Header.Get("Retry-After")); err != nil || s < 1 {
		t.Errorf("past the rate: Retry-After %q, want whole seconds", res.Header.Get("Retry-After"))
	}
	bobBody, bh := modern("tools/list", nil, "bob-token")
	if res, _ := post(t, r.url, bobBody, bh); res.StatusCode != http.StatusOK {
		t.Errorf("bob, under his own rate: status %d", res.StatusCode)
	}
	big, bh := modern("tools/call", map[string]any{"name": "search", "arguments": map[string]any{"query": strings.Repeat("alpha ", 1000)}}, "bob-token")
	if res, _ := post(t, r.url, big, bh); res.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("a body over the bound: status %d, want 413", res.StatusCode)
	}
}

// entered returns a channel that receives each tool call's name as the
// call reaches its tool, after every limit let it through.
func entered(srv *mcpserver.Server) chan string {
	ch := make(chan string, 16)
	srv.MCP().Use(func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			ch <- req.Params.Name
			return next(ctx, req)
		}
	})
	return ch
}

// With every slot taken, a request is answered 503 with Retry-After once
// its short wait for a slot is over, not queued; and shutdown lets the call under way finish before
// the engine closes.
func TestHTTPBusyAndDrain(t *testing.T) {
	gate := make(chan struct{})
	srv := mcpserver.New(opener(index(t), nil, gate), nil)
	r := start(t, srv, remote.Options{MaxInFlight: 1, Drain: testenv.Guard})
	in := entered(srv) // after remote.New: innermost
	c := connect(t, r.url, "alice-token", false)
	defer c.Close()
	answered := make(chan string, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), testenv.Guard)
		defer cancel()
		var req mcp.CallToolRequest
		req.Params.Name = "search"
		req.Params.Arguments = map[string]any{"query": "alpha"}
		res, err := c.CallTool(ctx, req)
		switch {
		case err != nil:
			answered <- "error: " + err.Error()
		case res.IsError:
			answered <- "tool error"
		default:
			answered <- "ok"
		}
	}()
	<-in // the search holds the one slot, waiting for the index to open
	body, h := modern("tools/list", nil, "bob-token")
	res, _ := post(t, r.url, body, h)
	if res.StatusCode != http.StatusServiceUnavailable || res.Header.Get("Retry-After") == "" {
		t.Errorf("all slots taken: status %d, Retry-After %q; want 503 with Retry-After", res.StatusCode, res.Header.Get("Retry-After"))
	}
	stopped := make(chan error, 1)
	go func() { stopped <- r.stop() }()
	addr := strings.TrimPrefix(r.url, "http://")
	for { // shutdown has begun once the listener is closed
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			break
		}
		conn.Close()
		time.Sleep(time.Millisecond)
	}
	close(gate) // the index opens; the search under way finishes
	if got := <-answered; got != "ok" {
		t.Errorf("the call under way at shutdown: %s, want ok", got)
	}
	if err := <-stopped; err != nil {
		t.Errorf("Serve: %v", err)
	}
	if srv.Ready() {
		t.Error("the engine is still open after Serve returned")
	}
}

// Every tool call is an audit line and a metric; the query only with
// AuditQueries.
func TestHTTPAuditAndMetrics(t *testing.T) {
	for _, queries := range []bool{false, true} {
		var log testenv.Buffer
		r := serveIndex(t, remote.Options{Audit: &log, AuditQueries: queries})
		c := connect(t, r.url, "alice-token", false)
		search(t, c, "alpha rivers")
		c.Close()
		sc := bufio.NewScanner(strings.NewReader(log.String()))
		var lines []remote.Entry
		for sc.Scan() {
			var e remote.Entry
			if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
				t.Fatalf("audit line %q: %v", sc.Text(), err)
			}
			lines = append(lines, e)
		}
		if len(lines) != 1 {
			t.Fatalf("audit log has %d lines, want 1:\n%s", len(lines), log.String())
		}
		e := lines[0]
		if e.Results == nil || *e.Results == 0 || e.Time.IsZero() {
			t.Errorf("audit entry %+v: want a result count and a time", e)
		}
		want := remote.Entry{User: "alice", Tool: "search", Sources: []string{"*"}, Status: "ok"}
		if queries {
			want.Query = "alpha rivers"
		}
		got := remote.Entry{User: e.User, Tool: e.Tool, Sources: e.Sources, Status: e.Status, Query: e.Query}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("audit entry (-want +got):\n%s", diff)
		}
		if queries {
			continue
		}
		res, text := get(t, r.url+"/metrics", map[string]string{"Authorization": "Bearer bob-token"})
		if res.StatusCode != http.StatusOK {
			t.Fatalf("/metrics: status %d", res.StatusCode)
		}
		for _, m := range []string{
			`braid_tool_calls_total{status="ok",tool="search"} 1`,
			`braid_tool_call_seconds_count{tool="search"} 1`,
			`braid_http_in_flight 0`, // the scrape is not an /mcp request
			`braid_http_rejected_total{reason="rate"} 0`,
			`braid_index_documents 5`,
		} {
			if !strings.Contains(text, m+"\n") {
				t.Errorf("/metrics lacks %q", m)
			}
		}
	}
}

// With MaxLag, a request is answered 503 with Retry-After, before any
// work, once the server's goroutines wait for a core longer than it; with
// a bound of a nanosecond, any timer's lateness is over it, so the first
// measure turns every request away.
func TestHTTPMaxLag(t *testing.T) {
	r := serveIndex(t, remote.Options{MaxLag: time.Nanosecond})
	body, h := modern("tools/list", nil, "alice-token")
	ctx, cancel := context.WithTimeout(context.Background(), testenv.Guard)
	defer cancel()
	for {
		res, text := post(t, r.url, body, h)
		if res.StatusCode == http.StatusServiceUnavailable {
			if s, err := strconv.Atoi(res.Header.Get("Retry-After")); err != nil || s < 1 {
				t.Errorf("behind: Retry-After %q, want whole seconds", res.Header.Get("Retry-After"))
			}
			if !strings.Contains(text, "--max-lag") {
				t.Errorf("behind: %q does not name --max-lag", text)
			}
			break
		}
		if res.StatusCode != http.StatusOK {
			t.Fatalf("status %d (%s), want 200 until the lag is measured, then 503", res.StatusCode, text)
		}
		if ctx.Err() != nil {
			t.Fatal("no request refused within the guard time: the lag is never measured")
		}
	}
	res, text := get(t, r.url+"/metrics", map[string]string{"Authorization": "Bearer alice-token"})
	if res.StatusCode != http.StatusOK || !strings.Contains(text, `braid_http_rejected_total{reason="lag"}`) {
		t.Errorf("/metrics (status %d) counts no refusal for lag", res.StatusCode)
	}
}

// A client that sends its body slowly holds no slot: with one slot, a
// signed-in request whose body the server has begun to read (it answered
// the client's Expect: 100-continue) leaves the slot to the next request,
// which is answered.
func TestHTTPSlowBodyHoldsNoSlot(t *testing.T) {
	r := serveIndex(t, remote.Options{MaxInFlight: 1})
	body, h := modern("tools/list", nil, "alice-token")
	conn, err := net.Dial("tcp", strings.TrimPrefix(r.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(testenv.Guard))
	head := fmt.Sprintf("POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nExpect: 100-continue\r\nContent-Length: %d\r\n",
		strings.TrimPrefix(r.url, "http://"), len(body))
	for k, v := range h {
		head += k + ": " + v + "\r\n"
	}
	if _, err := io.WriteString(conn, head+"\r\n"+body[:5]); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil || !strings.Contains(line, "100 Continue") {
		t.Fatalf("the slow request's first answer: %q, %v; want 100 Continue (the server reading its body)", line, err)
	}
	bobBody, bh := modern("tools/list", nil, "bob-token")
	if res, text := post(t, r.url, bobBody, bh); res.StatusCode != http.StatusOK {
		t.Errorf("beside a body being sent slowly: status %d (%s), want 200", res.StatusCode, text)
	}
}
