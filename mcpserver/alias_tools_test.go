package mcpserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/mcpserver"
)

// sameAnswer calls two tools with the same arguments and fails unless they
// answer alike, but for how long they took.
func sameAnswer(t *testing.T, c *clientT, alias, tool string, args map[string]any) string {
	t.Helper()
	a, b := c.call(alias, args), c.call(tool, args)
	if a.IsError || b.IsError {
		t.Fatalf("%s: %+v; %s: %+v", alias, a, tool, b)
	}
	if diff := cmp.Diff(withoutTime(t, b.Text), withoutTime(t, a.Text)); diff != "" {
		t.Errorf("%s %v answers unlike %s (-%s +%s):\n%s", alias, args, tool, tool, alias, diff)
	}
	return a.Text
}

// withoutTime is a JSON answer without took_ms, or any other text as it is.
func withoutTime(t *testing.T, text string) any {
	var v map[string]any
	if json.Unmarshal([]byte(text), &v) != nil {
		return text
	}
	delete(v, "took_ms")
	return v
}

func TestAliasTools(t *testing.T) {
	_, c := lexicalServer(t, nil)
	// The first search says there is no reranker; later ones do not repeat
	// it. Let that pass before comparing answers.
	c.ok("search", map[string]any{"query": "alpha"})

	// search_documents is search.
	var r searchJSON
	decode(t, sameAnswer(t, c, "search_documents", "search", map[string]any{"query": "note number alpha", "limit": 4, "explain": true}), &r)
	if len(r.Results) != 4 {
		t.Errorf("search_documents: %d results, want 4", len(r.Results))
	}
	sameAnswer(t, c, "search_documents", "search", map[string]any{"query": "topic4", "context": 1, "line_numbers": true, "tags": []string{}})
	if res := c.call("search_documents", map[string]any{"query": "x", "limit": 1001}); !res.IsError || !strings.HasPrefix(res.Text, `search_documents: invalid option: limit "1001" is out of range`) {
		t.Errorf("search_documents with a bad limit: %+v, want an error naming the alias and the argument", res)
	}

	// search_knowledge is search with vector_weight 1; without a model it
	// says, as search does, that it ran on keywords.
	for _, args := range []map[string]any{{"query": "river delta"}, {"query": "river delta", "rerank": false, "limit": 3, "paths_only": true}} {
		want := map[string]any{"vector_weight": 1}
		for k, v := range args {
			want[k] = v
		}
		if diff := cmp.Diff(withoutTime(t, c.ok("search", want)), withoutTime(t, c.ok("search_knowledge", args))); diff != "" {
			t.Errorf("search_knowledge %v differs from search with vector_weight 1 (-search +search_knowledge):\n%s", args, diff)
		}
	}
	got := c.ok("search_knowledge", map[string]any{"query": "river delta"})
	r = searchJSON{}
	decode(t, got, &r)
	if len(r.Results) == 0 || !strings.Contains(r.Warning, "lexical only") || !strings.Contains(r.Warning, noModel) {
		t.Errorf("search_knowledge on a lexical index: %d results, warning %q; want results and a warning that it is lexical only and why", len(r.Results), r.Warning)
	}
	for _, w := range []any{0.5, 1, nil} {
		res := c.call("search_knowledge", map[string]any{"query": "river", "vector_weight": w})
		if !res.IsError || !strings.Contains(res.Text, "search_knowledge: bad argument vector_weight") || !strings.Contains(res.Text, "call search") {
			t.Errorf("search_knowledge with vector_weight %v: %+v, want an error pointing to search", w, res)
		}
	}

	// read is read_node_content.
	if out := sameAnswer(t, c, "read", "read_node_content", map[string]any{"id": "long.md"}); !strings.HasPrefix(out, "# Long\n") {
		t.Errorf("read long.md: %q", out)
	}
	if res := c.call("read", map[string]any{"id": "no-such-note"}); !res.IsError || !strings.HasPrefix(res.Text, "read: ") || !strings.Contains(res.Text, "search tool can find it") {
		t.Errorf("read of a missing note: %+v", res)
	}

	// The schemas: the same arguments, less the one search_knowledge fixes.
	tools, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]mcp.Tool{}
	for _, tl := range tools.Tools {
		byName[tl.Name] = tl
	}
	search := byName["search"].InputSchema
	if diff := cmp.Diff(search, byName["search_documents"].InputSchema); diff != "" {
		t.Errorf("search_documents schema (-search +alias):\n%s", diff)
	}
	delete(search.Properties, "vector_weight")
	search.PropertyOrder = slices.DeleteFunc(search.PropertyOrder, func(p string) bool { return p == "vector_weight" })
	if diff := cmp.Diff(search, byName["search_knowledge"].InputSchema); diff != "" {
		t.Errorf("search_knowledge schema (-search without vector_weight +alias):\n%s", diff)
	}
	if diff := cmp.Diff(byName["read_node_content"].InputSchema, byName["read"].InputSchema); diff != "" {
		t.Errorf("read schema (-read_node_content +read):\n%s", diff)
	}
	// read is in the core profile, which has no read_node_content to
	// point at (issue 35, point 3): its description stands alone.
	for alias, of := range map[string]string{"search_documents": "search", "search_knowledge": "search"} {
		if !strings.HasPrefix(byName[alias].Description, "Alias of "+of) {
			t.Errorf("%s: description %q, want it to say it is an alias of %s", alias, byName[alias].Description, of)
		}
	}
}

// get_current_datetime answers without the engine.
func TestGetCurrentDatetime(t *testing.T) {
	blocked := make(chan struct{})
	srv := mcpserver.New(func() (*braid.Engine, func(), error) {
		<-blocked
		return nil, nil, errors.New("closed")
	}, &mcpserver.Options{Tools: "all"})
	c := &clientT{connect(t, srv), t}
	t.Cleanup(func() { close(blocked) })

	type reply struct {
		Datetime, Timezone, Abbreviation string
		Unix                             int64
	}
	var r reply
	before := time.Now().Unix()
	decode(t, c.ok("get_current_datetime", map[string]any{"timezone": "Asia/Tokyo"}), &r)
	at, err := time.Parse(time.RFC3339, r.Datetime)
	if err != nil || r.Timezone != "Asia/Tokyo" || r.Abbreviation != "JST" || !strings.HasSuffix(r.Datetime, "+09:00") {
		t.Errorf("Asia/Tokyo: %+v (%v)", r, err)
	}
	if at.Unix() != r.Unix || r.Unix < before || r.Unix > time.Now().Unix() {
		t.Errorf("unix %d, datetime %s: want the same instant, now", r.Unix, r.Datetime)
	}
	r = reply{}
	decode(t, c.ok("get_current_datetime", nil), &r)
	if _, err := time.Parse(time.RFC3339, r.Datetime); err != nil || r.Timezone == "" || r.Unix < before {
		t.Errorf("local time: %+v (%v)", r, err)
	}
	for args, want := range map[string]map[string]any{
		"not an IANA time zone": {"timezone": "Mars/Olympus"},
		"unknown argument":      {"tz": "UTC"},
	} {
		if res := c.call("get_current_datetime", want); !res.IsError || !strings.Contains(res.Text, args) {
			t.Errorf("get_current_datetime %v: %+v, want an error saying %q", want, res, args)
		}
	}
}
