package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/auth"
	"github.com/braidsearch/braid/internal/modeltest"
	"github.com/braidsearch/braid/internal/testenv"
	"github.com/braidsearch/braid/mcpserver"
	"github.com/braidsearch/braid/mcpserver/profile"
	"github.com/braidsearch/braid/policy"
)

// A team's index: three sources, each with its own marker word and the
// word "common" in every note.
var teamSources = map[string]string{"ruby": "quartz", "jade": "basalt", "opal": "granite"}

const teamPolicy = `{"grants": [
  {"who": "alice", "sources": ["ruby"], "tools": "all"},
  {"who": "bob", "sources": ["jade"], "tools": ["search", "search_keyword", "grep", "read", "get", "get_document", "read_around",
     "cite", "list", "list_sources", "ask", "scratchpad_read", "scratchpad_list", "get_stats", "index_path", "explore_links"]},
  {"who": "group:eng", "sources": ["opal"], "tools": "core"},
  {"who": "erin", "sources": ["purple"], "tools": "core"},
  {"who": "admin", "sources": ["*"], "tools": "all", "writes": true},
  {"who": "wendy", "sources": ["ruby"], "tools": "all", "writes": true},
  {"who": "wendy", "sources": ["jade"], "tools": "all"},
  {"who": "sam", "sources": ["ruby", "store"], "tools": "all", "writes": true}
]}`

// team indexes the three sources and returns a server answering from
// them under teamPolicy, with a small output limit (so long outputs go
// to the scratchpad), and the sources' folders.
func team(t *testing.T) (*mcpserver.Server, map[string]string) {
	t.Helper()
	root := t.TempDir()
	dirs := map[string]string{}
	var specs []braid.SourceSpec
	for name, marker := range teamSources {
		dir := filepath.Join(root, name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for i := range 4 {
			body := fmt.Sprintf("# %s note %d\n\nA common note about %s number %d.\n\n%s\n", name, i, marker, i, strings.Repeat("common words for a longer grep output. ", 20))
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s-%d.md", name, i)), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		dirs[name] = dir
		specs = append(specs, braid.SourceSpec{Path: dir, Name: name})
	}
	idx := filepath.Join(t.TempDir(), "idx")
	e, err := braid.Open(idx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Index(context.Background(), specs, nil); err != nil {
		t.Fatal(err)
	}
	e.Close()
	p, err := policy.Parse([]byte(teamPolicy))
	if err != nil {
		t.Fatal(err)
	}
	srv := mcpserver.New(opener(idx, nil), &mcpserver.Options{Policy: p, Tools: "all", AllowWrites: true, MaxOutput: 1500,
		Allow: []string{root, "s3://teambucket/docs"}})
	t.Cleanup(func() { srv.Close() })
	return srv, dirs
}

// member is a signed-in user calling the server in-process, as the HTTP
// transport does: the principal in every request's context.
type member struct {
	t   *testing.T
	srv *mcpserver.Server
	p   *auth.Principal // nil: no one signed in (stdio)
	id  int
}

func (m *member) rpc(method string, params any) (result json.RawMessage, protoErr string) {
	m.t.Helper()
	m.id++
	raw, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.id, "method": method, "params": params})
	if err != nil {
		m.t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), testenv.Guard)
	defer cancel()
	if m.p != nil {
		ctx = auth.WithPrincipal(ctx, m.p)
	}
	out, err := json.Marshal(m.srv.MCP().HandleMessage(ctx, raw))
	if err != nil {
		m.t.Fatal(err)
	}
	var resp struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(out, &resp); err != nil {
		m.t.Fatalf("%s: %v\n%s", method, err, out)
	}
	if resp.Error != nil {
		return nil, fmt.Sprintf("%d %s", resp.Error.Code, resp.Error.Message)
	}
	return resp.Result, ""
}

// call calls a tool; a protocol error is returned as the text of an
// error result starting "protocol: ".
func (m *member) call(name string, args map[string]any) callResult {
	m.t.Helper()
	res, perr := m.rpc("tools/call", map[string]any{"name": name, "arguments": args})
	if perr != "" {
		return callResult{Text: "protocol: " + perr, IsError: true}
	}
	var r struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		m.t.Fatal(err)
	}
	var b strings.Builder
	for _, c := range r.Content {
		b.WriteString(c.Text)
	}
	return callResult{Text: b.String(), IsError: r.IsError}
}

func (m *member) ok(name string, args map[string]any) string {
	m.t.Helper()
	r := m.call(name, args)
	if r.IsError {
		m.t.Fatalf("%s as %v %v: %s", name, m.p, args, r.Text)
	}
	return r.Text
}

func (m *member) tools() []string {
	m.t.Helper()
	res, perr := m.rpc("tools/list", map[string]any{})
	if perr != "" {
		m.t.Fatalf("tools/list: %s", perr)
	}
	var r struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		m.t.Fatal(err)
	}
	names := []string{}
	for _, t := range r.Tools {
		names = append(names, t.Name)
	}
	slices.Sort(names)
	return names
}

func as(t *testing.T, srv *mcpserver.Server, name string, groups ...string) *member {
	return &member{t: t, srv: srv, p: &auth.Principal{Name: name, Groups: groups}}
}

// TestProfileToolsComplete keeps profile.Tools, which policies are
// checked against, equal to the server's own tools.
func TestProfileToolsComplete(t *testing.T) {
	srv := mcpserver.New(opener(t.TempDir(), nil), &mcpserver.Options{Tools: "all", AllowWrites: true})
	defer srv.Close()
	got := (&member{t: t, srv: srv}).tools()
	want := slices.Sorted(slices.Values(profile.Tools))
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("profile.Tools against the server's tools (-want +got):\n%s", diff)
	}
}

func TestAccessToolsList(t *testing.T) {
	srv, _ := team(t)
	for _, tc := range []struct {
		user   *member
		want   []string
		absent []string
	}{
		{as(t, srv, "bob"), []string{"ask", "cite", "get", "get_document", "grep", "list", "list_sources", "read", "read_around",
			"scratchpad_list", "scratchpad_read", "search", "search_keyword"}, nil},
		{as(t, srv, "dave", "eng"), []string{"ask", "get", "grep", "list", "read", "read_around", "scratchpad_read", "search", "search_keyword"}, nil},
		{as(t, srv, "carol"), []string{}, nil},
		{as(t, srv, "alice"), nil, []string{"index_path", "add", "get_stats", "explore_links", "session_start", "configure", "restore"}},
	} {
		got := tc.user.tools()
		if tc.want != nil {
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s's tools (-want +got):\n%s", tc.user.p.Name, diff)
			}
		}
		for _, name := range tc.absent {
			if slices.Contains(got, name) {
				t.Errorf("%s is offered %s", tc.user.p.Name, name)
			}
		}
	}
	admin := as(t, srv, "admin").tools()
	stdio := (&member{t: t, srv: srv}).tools()
	if diff := cmp.Diff(stdio, admin); diff != "" || len(stdio) != len(profile.Tools) {
		t.Errorf("admin's tools against the unsigned user's (-stdio +admin):\n%s", diff)
	}
	// A tool not granted answers as a tool that does not exist.
	carol := as(t, srv, "carol")
	refused, unknown := carol.call("search", map[string]any{"query": "common"}), carol.call("no_such", map[string]any{"query": "common"})
	if !refused.IsError || strings.ReplaceAll(refused.Text, "search", "X") != strings.ReplaceAll(unknown.Text, "no_such", "X") {
		t.Errorf("carol's search %q, want as the unknown tool's %q", refused.Text, unknown.Text)
	}
	// Without writes, writing tools are unknown; bob's grant names index_path.
	if r := as(t, srv, "bob").call("index_path", map[string]any{"path": t.TempDir()}); !strings.HasPrefix(r.Text, "protocol: ") || !strings.Contains(r.Text, "not found") {
		t.Errorf("bob's index_path: %q, want the unknown tool's protocol error", r.Text)
	}
	// A whole-index tool needs every source, even when named.
	if r := as(t, srv, "bob").call("get_stats", nil); !strings.Contains(r.Text, "not found") {
		t.Errorf("bob's get_stats: %q, want unknown tool", r.Text)
	}
}

// markers finds the sources' marker words in text.
func markers(text string) []string {
	var out []string
	for name, m := range teamSources {
		if strings.Contains(text, m) || strings.Contains(text, name+"-") || strings.Contains(text, "/"+name+"/") {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

func TestAccessReadsOnlyGrantedSources(t *testing.T) {
	srv, _ := team(t)
	admin := as(t, srv, "admin")
	for _, u := range []struct {
		m    *member
		mine string
	}{{as(t, srv, "alice"), "ruby"}, {as(t, srv, "bob"), "jade"}, {as(t, srv, "dave", "eng"), "opal"}} {
		name := u.m.p.Name
		for _, c := range []struct {
			tool string
			args map[string]any
		}{
			{"search", map[string]any{"query": "common", "limit": 50}},
			{"search", map[string]any{"query": "common", "limit": 50, "explain": true, "paths_only": true}},
			{"search_keyword", map[string]any{"query": "common", "limit": 50}},
			{"ask", map[string]any{"question": "common note"}},
			{"grep", map[string]any{"pattern": "common note", "files_with_matches": true}},
			{"list", map[string]any{}},
		} {
			text := u.m.ok(c.tool, c.args)
			if got := markers(text); !slices.Equal(got, []string{u.mine}) {
				t.Errorf("%s's %s %v shows sources %v, want only %s:\n%.600s", name, c.tool, c.args, got, u.mine, text)
			}
		}
		// Totals count only their documents: as the admin's search of their source alone.
		var mine, whole struct {
			Total int `json:"total"`
		}
		decode(t, u.m.ok("search_keyword", map[string]any{"query": "common"}), &mine)
		decode(t, admin.ok("search_keyword", map[string]any{"query": "common", "source_id": u.mine}), &whole)
		if mine.Total != whole.Total || mine.Total == 0 {
			t.Errorf("%s's total %d, want %d (their source's alone)", name, mine.Total, whole.Total)
		}
		// A source they are not granted answers as one that does not exist.
		for other := range teamSources {
			if other == u.mine {
				continue
			}
			for _, tool := range []string{"search_keyword", "ask", "list"} {
				args := func(src string) map[string]any {
					switch tool {
					case "ask":
						return map[string]any{"question": "common", "source_id": src}
					case "list":
						return map[string]any{"source_id": src}
					}
					return map[string]any{"query": "common", "source_id": src}
				}
				refused, missing := u.m.call(tool, args(other)), u.m.call(tool, args("nosuch"))
				if !refused.IsError || strings.ReplaceAll(refused.Text, other, "X") != strings.ReplaceAll(missing.Text, "nosuch", "X") {
					t.Errorf("%s's %s of %s: %q; want as of a source that does not exist: %q", name, tool, other, refused.Text, missing.Text)
				}
			}
		}
	}
	// list_sources shows bob his own source alone.
	var ls struct {
		Sources []struct {
			Name string `json:"name"`
		} `json:"sources"`
	}
	decode(t, as(t, srv, "bob").ok("list_sources", nil), &ls)
	if len(ls.Sources) != 1 || ls.Sources[0].Name != "jade" {
		t.Errorf("bob's list_sources: %+v, want jade alone", ls.Sources)
	}
	// An unsigned (stdio) caller still sees everything.
	if got := markers((&member{t: t, srv: srv}).ok("grep", map[string]any{"pattern": "common note", "files_with_matches": true})); len(got) != 3 {
		t.Errorf("the unsigned caller sees %v, want every source", got)
	}
}

func TestAccessGrantOfNoSourceIsNothing(t *testing.T) {
	srv, _ := team(t)
	erin := as(t, srv, "erin") // granted "purple", which no source is named
	var r struct {
		Results []any `json:"results"`
		Total   int   `json:"total"`
	}
	decode(t, erin.ok("search", map[string]any{"query": "common"}), &r)
	if len(r.Results) != 0 || r.Total != 0 {
		t.Errorf("erin's search: %d results, total %d; want none", len(r.Results), r.Total)
	}
	if got := erin.ok("grep", map[string]any{"pattern": "common"}); !strings.HasPrefix(got, "no matches") {
		t.Errorf("erin's grep: %.300q, want no matches", got)
	}
	if got := markers(erin.ok("list", map[string]any{})); len(got) != 0 {
		t.Errorf("erin's list shows %v", got)
	}
}

func TestAccessDocumentReads(t *testing.T) {
	srv, _ := team(t)
	admin, bob := as(t, srv, "admin"), as(t, srv, "bob")
	var res struct {
		Results []struct {
			ID      string `json:"id"`
			ChunkID string `json:"chunk_id"`
			Path    string `json:"path"`
		} `json:"results"`
	}
	decode(t, admin.ok("search_keyword", map[string]any{"query": "quartz", "limit": 1}), &res)
	if len(res.Results) != 1 {
		t.Fatalf("no ruby hit: %+v", res)
	}
	alices := res.Results[0]
	for _, c := range []struct {
		tool, arg, value, missing string
	}{
		{"read", "id", alices.ID, "nothing-here"},
		{"read", "id", alices.Path, "nothing-here.md"},
		{"read", "id", alices.ChunkID, alices.ID + "x#1"},
		{"get_document", "document_id", alices.ID, "nothing-here"},
		{"get", "name", alices.Path, "nothing-here.md"},
		{"read_around", "chunk_id", alices.ChunkID, "nothing#1"},
		{"cite", "chunk_id", alices.ChunkID, "nothing#1"},
	} {
		refused, missing := bob.call(c.tool, map[string]any{c.arg: c.value}), bob.call(c.tool, map[string]any{c.arg: c.missing})
		if !refused.IsError || strings.Contains(refused.Text, "quartz") ||
			strings.ReplaceAll(refused.Text, c.value, "X") != strings.ReplaceAll(missing.Text, c.missing, "X") {
			t.Errorf("bob's %s of alice's %s: %q; want as of one that does not exist: %q", c.tool, c.value, refused.Text, missing.Text)
		}
		if r := admin.call(c.tool, map[string]any{c.arg: c.value}); r.IsError || !strings.Contains(r.Text, "quartz") && c.tool != "cite" {
			t.Errorf("admin's %s of %s: %.200q", c.tool, c.value, r.Text)
		}
	}
	// Alice reads her own.
	if got := as(t, srv, "alice").ok("read", map[string]any{"id": alices.ID}); !strings.Contains(got, "quartz") {
		t.Errorf("alice's read of her note: %.200q", got)
	}
}

func TestAccessScratchpadIsTheUsers(t *testing.T) {
	srv, _ := team(t)
	alice, bob := as(t, srv, "alice"), as(t, srv, "alice")
	bob.p.Name = "bob"
	out := alice.ok("grep", map[string]any{"pattern": "common"})
	m := regexp.MustCompile(`scratchpad (sp-[0-9A-Za-z]+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("alice's long grep names no scratchpad entry:\n%.300s", out)
	}
	if got := alice.ok("scratchpad_read", map[string]any{"id": m[1], "offset": 0}); !strings.Contains(got, "quartz") {
		t.Errorf("alice cannot read her own entry: %.200q", got)
	}
	refused, missing := bob.call("scratchpad_read", map[string]any{"id": m[1]}), bob.call("scratchpad_read", map[string]any{"id": "sp-nothing"})
	if !refused.IsError || strings.ReplaceAll(refused.Text, m[1], "X") != strings.ReplaceAll(missing.Text, "sp-nothing", "X") {
		t.Errorf("bob's read of alice's %s: %q; want as a missing entry's %q", m[1], refused.Text, missing.Text)
	}
	if got := bob.ok("scratchpad_list", nil); strings.Contains(got, m[1]) {
		t.Errorf("bob's scratchpad_list shows alice's entry: %s", got)
	}
}

func TestAccessSessionsAndResources(t *testing.T) {
	srv, _ := team(t)
	alice := as(t, srv, "alice")
	if r := alice.call("search", map[string]any{"query": "common", "session": "x"}); !r.IsError || !strings.Contains(r.Text, "every source") {
		t.Errorf("alice's search in a session: %q", r.Text)
	}
	if _, perr := alice.rpc("resources/read", map[string]any{"uri": mcpserver.SummaryURI}); perr == "" {
		t.Error("alice read the whole index's summary")
	}
	if _, perr := as(t, srv, "admin").rpc("resources/read", map[string]any{"uri": mcpserver.SummaryURI}); perr != "" {
		t.Errorf("admin's summary: %s", perr)
	}
}

// TestAccessRecall: a user granted one small source among many gets, by
// vectors alone, the results an index of that source alone gives: the
// filter is applied where the vector candidates are made, not to a
// fixed list of the nearest of the whole index.
func TestAccessRecall(t *testing.T) {
	emb := modeltest.Tiny(t)
	opt := &braid.Options{Embedder: emb, Model: "braid/tiny-encoder"}
	root := t.TempDir()
	small, big := filepath.Join(root, "small"), filepath.Join(root, "big")
	for _, d := range []string{small, big} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 6 {
		body := fmt.Sprintf("# Compiler %d\n\nRegister allocation pass %d spills to the stack.\n", i, i)
		if err := os.WriteFile(filepath.Join(small, fmt.Sprintf("c%d.md", i)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 900 { // more chunks than a search's candidates times eight
		body := fmt.Sprintf("# Garden %d\n\nRivers and gardens, stones and water, number %d.\n", i, i)
		if err := os.WriteFile(filepath.Join(big, fmt.Sprintf("g%03d.md", i)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	build := func(specs ...braid.SourceSpec) string {
		idx := filepath.Join(t.TempDir(), "idx")
		e, err := braid.Open(idx, opt)
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		if _, err := e.Index(context.Background(), specs, nil); err != nil {
			t.Fatal(err)
		}
		return idx
	}
	both := build(braid.SourceSpec{Path: small, Name: "small"}, braid.SourceSpec{Path: big, Name: "big"})
	alone := build(braid.SourceSpec{Path: small, Name: "small"})
	p, err := policy.Parse([]byte(`{"grants": [{"who": "sam", "sources": ["small"], "tools": "core"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	paths := func(m *member) []string {
		var r struct {
			Paths []string `json:"paths"`
		}
		decode(t, m.ok("search", map[string]any{"query": "rivers and gardens", "vector_weight": 1, "paths_only": true, "rerank": false}), &r)
		return r.Paths
	}
	srvBoth := mcpserver.New(opener(both, opt), &mcpserver.Options{Policy: p})
	defer srvBoth.Close()
	srvAlone := mcpserver.New(opener(alone, opt), nil)
	defer srvAlone.Close()
	got, want := paths(as(t, srvBoth, "sam")), paths(&member{t: t, srv: srvAlone})
	if len(want) == 0 {
		t.Fatal("the small index alone found nothing")
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sam's results in the shared index against the small index alone (-alone +shared):\n%s", diff)
	}
}
