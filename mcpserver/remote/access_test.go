package remote_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/auth"
	"github.com/braidsearch/braid/internal/testenv"
	"github.com/braidsearch/braid/mcpserver"
	"github.com/braidsearch/braid/mcpserver/remote"
	"github.com/braidsearch/braid/policy"
)

// teamUsers: wendy writes the team source, the others read it, alice
// reads another, admin reads every source.
var teamUsers = tokens{
	"wendy-token": {Name: "wendy"},
	"bob-token":   {Name: "bob"},
	"carol-token": {Name: "carol"},
	"dan-token":   {Name: "dan"},
	"alice-token": {Name: "alice"},
	"admin-token": {Name: "admin"},
}

const teamPolicy = `{"grants": [
  {"who": "wendy", "sources": ["team"], "tools": "all", "writes": true},
  {"who": "*", "sources": ["team"], "tools": "core"},
  {"who": "alice", "sources": ["other"], "tools": "core"},
  {"who": "admin", "sources": ["*"], "tools": "all"}
]}`

// serveTeam indexes a folder named team with five notes, and serves it
// under teamPolicy; it returns the server and the folder.
func serveTeam(t *testing.T) (*running, string) {
	t.Helper()
	team := filepath.Join(t.TempDir(), "team")
	testenv.Must(t, os.Mkdir(team, 0o755))
	for i := range 5 {
		body := fmt.Sprintf("# Note %d\n\nThis note is about alpha rivers, number %d.\n", i, i)
		testenv.Must(t, os.WriteFile(filepath.Join(team, fmt.Sprintf("note-%d.md", i)), []byte(body), 0o644))
	}
	idx := filepath.Join(t.TempDir(), "idx")
	e, err := braid.Open(idx, nil)
	testenv.Must(t, err)
	if _, err := e.Index(context.Background(), []braid.SourceSpec{{Path: team, Name: "team"}}, nil); err != nil {
		t.Fatal(err)
	}
	e.Close()
	p, err := policy.Parse([]byte(teamPolicy))
	testenv.Must(t, err)
	srv := mcpserver.New(opener(idx, nil, nil), &mcpserver.Options{Policy: p, Tools: "all", AllowWrites: true})
	return start(t, srv, remote.Options{Authenticators: []auth.Authenticator{teamUsers}}), team
}

// answer is the JSON-RPC result in a /mcp answer, JSON or one SSE event.
func answer(t *testing.T, text string) map[string]any {
	t.Helper()
	if i := strings.Index(text, "data:"); i >= 0 && !strings.HasPrefix(strings.TrimSpace(text), "{") {
		text = strings.TrimSpace(strings.SplitN(text[i+len("data:"):], "\n", 2)[0])
	}
	var msg struct {
		Result map[string]any `json:"result"`
	}
	if err := json.Unmarshal([]byte(text), &msg); err != nil || msg.Result == nil {
		t.Fatalf("not a JSON-RPC result (%v): %s", err, text)
	}
	return msg.Result
}

// Lists differ by user, so a 2026-07-28 list answer says no shared cache
// may keep it; and the whole index's summary is not listed to a user
// who may not read it.
func TestHTTPListsArePrivate(t *testing.T) {
	r, _ := serveTeam(t)
	for _, m := range []string{"tools/list", "resources/list", "prompts/list"} {
		body, h := modern(m, nil, "bob-token")
		res, text := post(t, r.url, body, h)
		if res.StatusCode != 200 {
			t.Fatalf("%s: status %d: %s", m, res.StatusCode, text)
		}
		got := answer(t, text)
		if got["cacheScope"] != "private" {
			t.Errorf("%s: cacheScope %v, want private: %s", m, got["cacheScope"], text)
		}
		if _, ok := got["ttlMs"]; !ok {
			t.Errorf("%s: no ttlMs: %s", m, text)
		}
	}
	for _, u := range []struct {
		token string
		want  bool
	}{{"alice-token", false}, {"wendy-token", false}, {"bob-token", false}, {"admin-token", true}} {
		body, h := modern("resources/list", nil, u.token)
		_, text := post(t, r.url, body, h)
		if got := strings.Contains(text, mcpserver.SummaryURI); got != u.want {
			t.Errorf("%s's resources/list shows the summary: %v, want %v", u.token, got, u.want)
		}
	}
}

// callTool calls a tool and returns its text, or an error for a
// protocol or tool error; safe from any goroutine.
func callTool(c *client.Client, name string, args map[string]any) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), testenv.Guard)
	defer cancel()
	var req mcp.CallToolRequest
	req.Params.Name, req.Params.Arguments = name, args
	res, err := c.CallTool(ctx, req)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, ct := range res.Content {
		if tc, ok := mcp.AsTextContent(ct); ok {
			b.WriteString(tc.Text)
		}
	}
	if res.IsError {
		return "", fmt.Errorf("tool error: %s", b.String())
	}
	return b.String(), nil
}

// One user's index_path runs while other users search, over HTTP: every
// search answers, with every note indexed before (nothing vanishes while
// the source is re-indexed), and afterwards every note the write added
// is found.
func TestHTTPWriterAndReaders(t *testing.T) {
	r, team := serveTeam(t)
	const added = 300
	for i := range added {
		body := fmt.Sprintf("# Added %d\n\nA zephyr note, marker zq%dx.\n", i, i)
		testenv.Must(t, os.WriteFile(filepath.Join(team, fmt.Sprintf("added-%03d.md", i)), []byte(body), 0o644))
	}
	var writing atomic.Bool
	var during atomic.Int64 // searches answered wholly while the write was in flight
	writerIn := make(chan struct{})
	r.srv.MCP().Use(func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if req.Params.Name == "index_path" {
				writing.Store(true)
				close(writerIn)
				defer writing.Store(false)
			}
			return next(ctx, req)
		}
	})
	writer := connect(t, r.url, "wendy-token", false)
	defer writer.Close()
	readers := []string{"bob-token", "carol-token", "dan-token", "bob-token"}
	done := make(chan struct{})
	searched := make(chan struct{}, len(readers))
	errs := make(chan error, len(readers))
	var wg sync.WaitGroup
	for i, token := range readers {
		c := connect(t, r.url, token, i%2 == 1) // both protocol eras
		defer c.Close()
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; ; n++ {
				select {
				case <-done:
					errs <- nil
					return
				default:
				}
				before := writing.Load()
				text, err := callTool(c, "search_keyword", map[string]any{"query": "alpha rivers", "limit": 20})
				if err != nil {
					errs <- fmt.Errorf("%s's search %d: %w", token, n, err)
					return
				}
				var res struct {
					Total int `json:"total"`
				}
				if err := json.Unmarshal([]byte(text), &res); err != nil || res.Total != 5 {
					errs <- fmt.Errorf("%s's search %d: total %d (%v), want the 5 notes: %.300s", token, n, res.Total, err, text)
					return
				}
				if before && writing.Load() {
					during.Add(1)
				}
				if n == 0 {
					searched <- struct{}{}
				}
			}
		}()
	}
	for range readers { // every reader is searching before the write begins
		<-searched
	}
	text, err := callTool(writer, "index_path", map[string]any{"path": team})
	close(done)
	wg.Wait()
	close(errs)
	for e := range errs {
		if e != nil {
			t.Error(e)
		}
	}
	if err != nil {
		t.Fatalf("wendy's index_path: %v", err)
	}
	<-writerIn
	var sum struct {
		Summary struct {
			Added int `json:"added"`
		} `json:"summary"`
	}
	if err := json.Unmarshal([]byte(text), &sum); err != nil || sum.Summary.Added != added {
		t.Errorf("index_path added %d (%v), want %d: %.300s", sum.Summary.Added, err, added, text)
	}
	if during.Load() == 0 {
		t.Error("no search was answered while the write was in flight")
	}
	t.Logf("%d searches answered while the write was in flight", during.Load())
	// Every added note is found, by its own marker and all together.
	reader := connect(t, r.url, "carol-token", false)
	defer reader.Close()
	text, err = callTool(reader, "search_keyword", map[string]any{"query": "zephyr", "limit": 5})
	var all struct {
		Total int `json:"total"`
	}
	if err != nil || json.Unmarshal([]byte(text), &all) != nil || all.Total != added {
		t.Errorf("carol's search for the added notes: total %d (%v), want %d", all.Total, err, added)
	}
	for i := 0; i < added; i += 37 {
		marker := fmt.Sprintf("zq%dx", i)
		if text, err := callTool(reader, "search_keyword", map[string]any{"query": marker}); err != nil || !strings.Contains(text, fmt.Sprintf("added-%03d.md", i)) {
			t.Errorf("carol's search for %s: %v %.200s", marker, err, text)
		}
	}
}
