package mcpserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/internal/testenv"
	"github.com/braidsearch/braid/mcpserver"
	"github.com/braidsearch/braid/mcpserver/profile"
)

// seedProfiles are the profiles' tools as the seed systems name them,
// and the seed tools braid leaves out with why, from
// testdata/seed_tools.json, which the TypeScript client test
// (tests/mcpclient) reads too.
var seedProfiles = func() map[string]seedProfile {
	data, err := os.ReadFile(filepath.Join("testdata", "seed_tools.json"))
	if err != nil {
		panic(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		panic(fmt.Sprintf("testdata/seed_tools.json: %v", err))
	}
	out := map[string]seedProfile{}
	for name, raw := range m {
		if strings.HasPrefix(name, "_") {
			continue
		}
		var p seedProfile
		if err := json.Unmarshal(raw, &p); err != nil {
			panic(fmt.Sprintf("testdata/seed_tools.json: %s: %v", name, err))
		}
		out[name] = p
	}
	return out
}()

type seedProfile struct {
	Tools   []string          `json:"tools"`
	LeftOut map[string]string `json:"left_out"`
}

// seedTools are the tools of each profile (seedProfiles).
var seedTools = func() map[string][]string {
	out := map[string][]string{}
	for name, p := range seedProfiles {
		out[name] = p.Tools
	}
	return out
}()

func listed(t *testing.T, c *clientT) []string {
	t.Helper()
	res, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	return names
}

// Each profile lists exactly its tools (those braid has), a call of a tool
// outside it is a protocol error that names the profile and how to widen
// it, and a call inside it works.
func TestToolProfiles(t *testing.T) {
	all := listedAll(t)
	for _, tc := range []struct {
		profile, outside, call string
		args                   map[string]any
		want                   string
	}{
		{"core", "get_stats", "ask", map[string]any{"question": "note number alpha", "budget": 200}, `"tag":"[Note `},
		{"amalfa", "search", "search_documents", map[string]any{"query": "topic4"}, `"path":"long.md"`},
		{"yams", "search_keyword", "graph", map[string]any{"name": "note-0001.md"}, `"links":[`},
		{"ks", "search", "search_knowledge", map[string]any{"query": "topic4", "top_k": 1}, `"path":"long.md"`},
		{"alloy", "grep", "list_sources", nil, `"documents":13`},
	} {
		t.Run(tc.profile, func(t *testing.T) {
			var logs testenv.Buffer
			opt := trusting(t)
			opt.Tools, opt.Log = tc.profile, &logs
			_, c := lexicalServer(t, opt)
			var want, missing []string
			for _, name := range seedTools[tc.profile] {
				if slices.Contains(all, name) {
					want = append(want, name)
				} else {
					missing = append(missing, name)
				}
			}
			slices.Sort(want)
			if diff := cmp.Diff(want, listed(t, c)); diff != "" {
				t.Errorf("tools/list (-want +got):\n%s", diff)
			}
			if len(missing) > 0 && !strings.Contains(logs.String(), "names "+strings.Join(missing, ", ")+", which this braid does not have yet") {
				t.Errorf("log %q, want it to name the missing %v", logs.String(), missing)
			}
			_, err := callErr(c.Client, tc.outside, nil, nil)
			if err == nil || !strings.Contains(err.Error(), `tool "`+tc.outside+`" is not offered: braid serve runs with --tools `+tc.profile) ||
				!strings.Contains(err.Error(), "--tools all") || !strings.Contains(err.Error(), "--tools "+tc.profile+","+tc.outside) {
				t.Errorf("%s outside the profile: %v, want a protocol error naming the profile and how to widen it", tc.outside, err)
			}
			if out := c.ok(tc.call, tc.args); !strings.Contains(out, tc.want) {
				t.Errorf("%s: %.400s\nwant it to contain %s", tc.call, out, tc.want)
			}
		})
	}
}

// listedAll is every tool's name, sorted.
func listedAll(t *testing.T) []string {
	t.Helper()
	opt := trusting(t)
	_, c := lexicalServer(t, opt)
	return listed(t, c)
}

// A list of profiles and names; unknown names are refused by CheckTools,
// and a server given one offers core and logs why.
func TestToolLists(t *testing.T) {
	opt := trusting(t)
	opt.Tools = "core, index_path,grep"
	_, c := lexicalServer(t, opt)
	want := append(slices.Clone(seedTools["core"]), "index_path")
	slices.Sort(want)
	if diff := cmp.Diff(want, listed(t, c)); diff != "" {
		t.Errorf("tools/list of core,index_path,grep (-want +got):\n%s", diff)
	}

	for _, ok := range []string{"", "core", "all", "amalfa", "yams", "ks", "alloy", "search,grep", "ks, core", "ask", "ks,all"} {
		if err := mcpserver.CheckTools(ok); err != nil {
			t.Errorf("CheckTools(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"nope", "core,nope", "core,", "Search", "configure_all", "all,nope"} {
		err := mcpserver.CheckTools(bad)
		if !errors.Is(err, profile.ErrBad) || !strings.Contains(err.Error(), "tool profile (core, all, amalfa, yams, ks, alloy)") ||
			!strings.Contains(err.Error(), "ask, cite,") || strings.Contains(err.Error(), "\n") {
			t.Errorf("CheckTools(%q) = %v, want one line listing the profiles and tools", bad, err)
		}
	}

	var logs testenv.Buffer
	opt = trusting(t)
	opt.Tools, opt.Log = "nope", &logs
	_, c = lexicalServer(t, opt)
	core := slices.Clone(seedTools["core"])
	slices.Sort(core)
	if diff := cmp.Diff(core, listed(t, c)); diff != "" || !strings.Contains(logs.String(), `"nope" is neither`) {
		t.Errorf("Tools nope: log %q, tools/list (-core +got):\n%s", logs.String(), diff)
	}
}

// The writing tools stay behind --allow-writes in every profile.
func TestProfileKeepsWritesGate(t *testing.T) {
	opt := &mcpserver.Options{Allow: []string{filepath.Dir(t.TempDir())}, Tools: "amalfa"}
	_, c := lexicalServer(t, opt)
	if slices.Contains(listed(t, c), "inject_tags") {
		t.Error("amalfa without --allow-writes lists inject_tags")
	}
	_, err := callErr(c.Client, "inject_tags", map[string]any{"file_path": "x.md", "tags": []string{"a"}}, nil)
	if err == nil || !strings.Contains(err.Error(), "only when started with --allow-writes") {
		t.Errorf("inject_tags without --allow-writes: %v", err)
	}
	if _, err := callErr(c.Client, "restore", map[string]any{"output_directory": t.TempDir()}, nil); err == nil ||
		!strings.Contains(err.Error(), `--tools amalfa,restore`) {
		t.Errorf("restore outside amalfa: %v", err)
	}
}

// A seed profile takes the seed's argument names beside braid's.
func TestProfileArgumentNames(t *testing.T) {
	opt := trusting(t)
	opt.Tools = "ks"
	_, c := lexicalServer(t, opt)
	res, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range res.Tools {
		if tl.Name != "get_info" {
			continue
		}
		if _, ok := tl.InputSchema.Properties["path_part_id"]; !ok || slices.Contains(tl.InputSchema.Required, "id") {
			t.Errorf("get_info schema in ks: %+v, want path_part_id beside an optional id", tl.InputSchema)
		}
	}
	var r searchJSON
	decode(t, c.ok("search_keyword", map[string]any{"query": "alpha", "top_k": 3}), &r)
	if len(r.Results) != 3 {
		t.Errorf("search_keyword top_k 3: %d results", len(r.Results))
	}
	if out := c.call("search_keyword", map[string]any{"query": "alpha", "top_k": 3, "limit": 2}); !out.IsError ||
		!strings.Contains(out.Text, "top_k: is another name for limit; give one of the two") {
		t.Errorf("top_k and limit: %+v", out)
	}
	if out := c.ok("read", map[string]any{"path_part_id": "long.md"}); !strings.HasPrefix(out, "# Long") {
		t.Errorf("read path_part_id: %.100q", out)
	}
	if out := c.call("get_info", map[string]any{}); !out.IsError || !strings.Contains(out.Text, "id is required") {
		t.Errorf("get_info without an id: %+v", out)
	}
	// The same tools under core keep their own names only.
	opt = trusting(t)
	_, core := lexicalServer(t, opt)
	if out := core.call("search_keyword", map[string]any{"query": "alpha", "top_k": 3}); !out.IsError || !strings.Contains(out.Text, `unknown argument "top_k"`) {
		t.Errorf("top_k under core: %+v", out)
	}
}

// YAMS's status and graph are get_stats and explore_links.
func TestYAMSAliases(t *testing.T) {
	opt := trusting(t)
	opt.Tools = "yams"
	_, c := lexicalServer(t, opt)
	if out := c.ok("status", nil); !strings.Contains(out, `"documents":13`) {
		t.Errorf("status: %.300s", out)
	}
	var doc struct {
		Hash string `json:"hash"`
	}
	decode(t, c.ok("get", map[string]any{"name": "note-0001.md", "include_content": false}), &doc)
	byName, byHash := c.ok("graph", map[string]any{"name": "note-0001.md"}), c.ok("graph", map[string]any{"hash": doc.Hash[:12]})
	if byName != byHash || !strings.Contains(byName, "note-0002.md") {
		t.Errorf("graph by name %s\nby hash %s", byName, byHash)
	}
	if out := c.call("graph", map[string]any{"name": "note-0001.md", "hash": doc.Hash}); !out.IsError || !strings.Contains(out.Text, "one of the two") {
		t.Errorf("graph with name and hash: %+v", out)
	}
}

// A profile without scratchpad_read keeps no long output: the reply says
// to ask for less.
func TestProfileWithoutScratchpad(t *testing.T) {
	opt := trusting(t)
	opt.Tools, opt.MaxOutput = "yams", 1000
	_, c := lexicalServer(t, opt)
	out := c.ok("grep", map[string]any{"pattern": "e"})
	if !strings.Contains(out, "[output truncated: bytes 0..") || !strings.Contains(out, "Ask for less") || strings.Contains(out, "scratchpad") {
		t.Errorf("truncated grep in yams: %s", out[max(0, len(out)-300):])
	}
	var r struct{ Truncated string }
	decode(t, c.ok("search", map[string]any{"query": "note number alpha", "limit": 12}), &r)
	if !strings.Contains(r.Truncated, "ask for fewer results") || strings.Contains(r.Truncated, "scratchpad") {
		t.Errorf("truncated search in yams: %q", r.Truncated)
	}
}

// The instructions say which tools a profile offers.
func TestProfileInstructions(t *testing.T) {
	_, idx := indexed(t, 2, nil)
	c, stop := serve(t, mcpserver.New(opener(idx, nil), &mcpserver.Options{Tools: "ks"}))
	defer stop()
	res, err := c.Initialize(context.Background(), initRequest())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Instructions, `only the tools of its profile "ks": search_knowledge, search_keyword, read,`) {
		t.Errorf("instructions %q", res.Instructions)
	}
}

// ask over MCP: a pack within budget, with tags; bad arguments refused.
func TestAskTool(t *testing.T) {
	_, c := lexicalServer(t, nil)
	var p braid.Pack
	decode(t, c.ok("ask", map[string]any{"question": "topic4 in detail", "budget": 150}), &p)
	if p.Budget != 150 || p.Tokens > 150 || p.Passages == 0 || p.Documents[0].Path != "long.md" ||
		!strings.HasPrefix(p.Documents[0].Passages[0].Tag, "[Long](long.md#L") {
		t.Errorf("ask: %+v", p)
	}
	// The budget bounds the reply, not the output limit: no scratchpad.
	opt := trusting(t)
	opt.MaxOutput = 1000
	_, small := lexicalServer(t, opt)
	out := small.ok("ask", map[string]any{"question": "note number alpha", "budget": 2000})
	decode(t, out, &p)
	if len(out) <= 1000 || p.Tokens > 2000 {
		t.Errorf("ask with a 1000-byte output limit: %d bytes, %d tokens; want the whole pack", len(out), p.Tokens)
	}
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{}, "question is required"},
		{map[string]any{"question": "  "}, "question is required"},
		{map[string]any{"question": strings.Repeat("alpha ", 700)}, "bad argument question: query too long"},
		{map[string]any{"question": "-alpha"}, "bad argument question: empty query"},
		{map[string]any{"question": "alpha", "budget": 99}, "budget: 99 is out of range; want 100..16000"},
		{map[string]any{"question": "alpha", "budget": 16001}, "want 100..16000"},
		{map[string]any{"question": "alpha", "path": "["}, "bad argument path: glob"},
		{map[string]any{"question": "alpha", "thread_id": "x"}, `unknown argument "thread_id"`},
	} {
		if r := c.call("ask", tc.args); !r.IsError || !strings.Contains(r.Text, tc.want) {
			t.Errorf("ask %v: %+v, want an error containing %q", tc.args, r, tc.want)
		}
	}
}

// Searching an index with nothing in it says so, naming the directory
// and a fix the agent has: index_path where the server offers it, else
// the command for its user (issue 35, point 1).
func TestEmptyIndexTools(t *testing.T) {
	idx := filepath.Join(t.TempDir(), "idx")
	e, err := braid.Open(idx, nil)
	if err != nil {
		t.Fatal(err)
	}
	e.Close()
	for _, tc := range []struct {
		tools, tool string
		args        map[string]any
		want        string
	}{
		{"core", "ask", map[string]any{"question": "alpha"}, "ask: no documents indexed yet in " + idx + "; run braid index PATH"},
		{"core", "search", map[string]any{"query": "alpha"}, "search: no documents indexed yet in " + idx + "; run braid index PATH"},
		{"core", "search_keyword", map[string]any{"query": "alpha"}, "search_keyword: no documents indexed yet in " + idx + "; run braid index PATH"},
		{"core,index_path", "search", map[string]any{"query": "alpha"},
			"search: no documents indexed yet in " + idx + "; call index_path with the folder to index"},
	} {
		t.Run(tc.tools+" "+tc.tool, func(t *testing.T) {
			c := &clientT{connect(t, mcpserver.New(opener(idx, nil), &mcpserver.Options{Tools: tc.tools})), t}
			if r := c.call(tc.tool, tc.args); !r.IsError || r.Text != tc.want {
				t.Errorf("%s on an empty index: %+v, want the error %q", tc.tool, r, tc.want)
			}
		})
	}
}

// A --tools value is accepted or refused with one line, never a panic.
func FuzzCheckTools(f *testing.F) {
	for _, s := range []string{"", "core", "all", "ks,grep", " yams , search ", ",", "core,,", "a\nb", "\xff", strings.Repeat("core,", 100)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		err := mcpserver.CheckTools(spec)
		if err != nil && (!errors.Is(err, profile.ErrBad) || strings.Contains(err.Error(), "\n")) {
			t.Errorf("CheckTools(%q) = %v", spec, err)
		}
	})
}
