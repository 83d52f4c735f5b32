package mcpserver_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/braidsearch/braid/graph"
	"github.com/braidsearch/braid/internal/testdata"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/internal/testenv"
	"github.com/braidsearch/braid/mcpserver"
	"github.com/braidsearch/braid/notes"
)

// navServer serves a lexical index of a vault with nested folders, linked
// notes and the twins, registered as source "kb".
func navServer(t *testing.T) (vault string, c *clientT) {
	t.Helper()
	vault = t.TempDir()
	testdata.WriteNavVault(t, vault)
	idx := filepath.Join(t.TempDir(), "idx")
	e, err := braid.Open(idx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Index(context.Background(), []braid.SourceSpec{{Path: vault, Name: "kb", ChunkTokens: 48}}, nil); err != nil {
		t.Fatal(err)
	}
	e.Close()
	srv := mcpserver.New(opener(idx, &braid.Options{NoVectors: noModel, NoRerank: "no reranker model installed"}), &mcpserver.Options{Tools: "all"})
	return vault, &clientT{connect(t, srv), t}
}

func TestHashTools(t *testing.T) {
	_, c := navServer(t)
	a := testdata.SHA256Hex(testdata.TwinA)
	var doc struct {
		Path, Hash, Content string
		Graph               *graph.Related
	}
	decode(t, c.ok("get", map[string]any{"hash": a[:10]}), &doc)
	if doc.Path != "twin-a.md" || doc.Hash != a || doc.Content != testdata.TwinA || doc.Graph != nil {
		t.Errorf("get by hash prefix: %+v", doc)
	}
	// The document tools take a hash as a name.
	if got := c.ok("read_node_content", map[string]any{"id": testdata.SHA256Hex(testdata.TwinB)}); got != testdata.TwinB {
		t.Errorf("read_node_content by hash: %q", got)
	}
	doc.Content = ""
	decode(t, c.ok("get_document", map[string]any{"document_id": a, "include_content": false}), &doc)
	if doc.Path != "twin-a.md" || doc.Content != "" {
		t.Errorf("get_document by hash: %+v", doc)
	}

	var res struct {
		Lookup  string
		Total   int
		Results []struct {
			Path  string
			Score float64
		}
	}
	decode(t, c.ok("search", map[string]any{"hash": testdata.SHA256Hex(testdata.TwinB)[:12]}), &res)
	if res.Lookup != "hash" || len(res.Results) != 1 || res.Results[0].Path != "twin-b.md" || res.Results[0].Score != 1 {
		t.Errorf("search with hash: %+v", res)
	}
	res.Lookup = ""
	decode(t, c.ok("search", map[string]any{"query": testdata.TwinPrefix}), &res)
	if res.Lookup != "hash" || res.Total != 2 {
		t.Errorf("search for a hash as the query: %+v", res)
	}
	var paths struct {
		Lookup string
		Paths  []string
	}
	decode(t, c.ok("search", map[string]any{"hash": testdata.SHA256Hex(testdata.TwinB)[:12], "paths_only": true}), &paths)
	if paths.Lookup != "hash" || len(paths.Paths) != 1 || paths.Paths[0] != "twin-b.md" {
		t.Errorf("paths_only search with hash: %+v", paths)
	}
	res.Lookup = ""
	decode(t, c.ok("search", map[string]any{"query": "budget"}), &res)
	if res.Lookup != "" || len(res.Results) == 0 {
		t.Errorf("an ordinary search: %+v", res)
	}

	for _, tt := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"get", map[string]any{"hash": testdata.TwinPrefix}, "matches 2 documents"},
		{"get", map[string]any{"hash": "abc"}, "bad argument hash"},
		{"get", map[string]any{"hash": a, "name": "garden"}, "not both"},
		{"get", map[string]any{}, "bad argument name"},
		{"get", map[string]any{"name": "garden", "depth": 6}, "bad argument depth"},
		{"get", map[string]any{"hash": "0000000000000000"}, "not found"},
		{"search", map[string]any{}, "query is required"},
		{"search", map[string]any{"hash": "xyz12345"}, "bad argument hash"},
		{"search", map[string]any{"hash": testdata.TwinPrefix}, "matches 2 documents"},
	} {
		r := c.call(tt.tool, tt.args)
		if !r.IsError || !strings.Contains(r.Text, tt.want) {
			t.Errorf("%s %v: %+v, want an error saying %q", tt.tool, tt.args, r, tt.want)
		}
	}
}

func TestGetGraphTool(t *testing.T) {
	_, c := navServer(t)
	var doc struct {
		Path, Content string
		Graph         struct {
			Depth     int
			Links     []graph.Step
			Backlinks []graph.Step
		}
	}
	decode(t, c.ok("get", map[string]any{"name": "gardening", "graph": true, "include_content": false}), &doc)
	paths := func(steps []graph.Step) []string {
		var out []string
		for _, s := range steps {
			out = append(out, s.Path)
		}
		return out
	}
	if doc.Path != "gardening.md" || doc.Content != "" || doc.Graph.Depth != 1 {
		t.Errorf("get gardening with graph: %+v", doc)
	}
	if diff := cmp.Diff([]string{"compost.md"}, paths(doc.Graph.Links)); diff != "" {
		t.Errorf("links (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"compost.md", "garden.md"}, paths(doc.Graph.Backlinks)); diff != "" {
		t.Errorf("backlinks (-want +got):\n%s", diff)
	}
	decode(t, c.ok("get", map[string]any{"name": "garden", "graph": true, "depth": 2}), &doc)
	if diff := cmp.Diff([]string{"gardening.md", "compost.md"}, paths(doc.Graph.Links)); diff != "" || !strings.Contains(doc.Content, "The garden") {
		t.Errorf("depth 2 from garden (-want +got):\n%s\n%+v", diff, doc)
	}
}

func TestFindTool(t *testing.T) {
	vault, c := navServer(t)
	var res struct {
		Results []struct{ Path, Match, Field string }
		Total   int
	}
	decode(t, c.ok("find", map[string]any{"query": "garden"}), &res)
	var got []string
	for _, f := range res.Results {
		got = append(got, f.Path+" "+f.Match+" "+f.Field)
	}
	want := []string{"garden.md exact title", "gardening.md prefix name", "notes/winter-garden.md word title"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("find garden (-want +got):\n%s", diff)
	}
	for _, parent := range []string{"notes", "kb/notes", filepath.Join(vault, "notes")} {
		decode(t, c.ok("find", map[string]any{"query": "garden", "parent": parent}), &res)
		if len(res.Results) != 1 || res.Results[0].Path != "notes/winter-garden.md" {
			t.Errorf("find with parent %s: %+v", parent, res)
		}
	}
	decode(t, c.ok("find", map[string]any{"query": "gdn", "limit": 1}), &res)
	if len(res.Results) != 1 || res.Total != 3 || res.Results[0].Match != "subsequence" {
		t.Errorf("find gdn limit 1: %+v", res)
	}
	if r := c.call("find", map[string]any{"query": "garden", "parent": "nowhere"}); !r.IsError || !strings.Contains(r.Text, "list_directory_structure") {
		t.Errorf("find under an unknown parent: %+v", r)
	}
	if r := c.call("find", map[string]any{"query": "garden", "limit": 0}); !r.IsError || !strings.Contains(r.Text, "bad argument limit") {
		t.Errorf("find limit 0: %+v", r)
	}
}

func TestInfoCiteTools(t *testing.T) {
	vault, c := navServer(t)
	var hits searchJSON
	decode(t, c.ok("search", map[string]any{"query": "quarter spending"}), &hits)
	if len(hits.Results) == 0 {
		t.Fatal("no hit for quarter spending")
	}
	chunk := hits.Results[0].ChunkID

	var in struct {
		Type, ID string
		SourceID string `json:"source_id"`
		Ancestry []notes.InfoNode
	}
	decode(t, c.ok("get_info", map[string]any{"id": chunk}), &in)
	var got []string
	for _, n := range in.Ancestry {
		got = append(got, n.Type+":"+n.Name)
	}
	want := []string{"source:kb", "folder:notes", "folder:projects", "folder:alpha", "document:plan.md", "heading:Plan", "heading:Budget", "heading:Q1", "chunk:"}
	if diff := cmp.Diff(want, got); diff != "" || in.Type != "chunk" || in.ID != chunk || in.SourceID == "" {
		t.Errorf("get_info chunk (-want +got):\n%s\n%+v", diff, in)
	}
	data := testenv.Must1(os.ReadFile(filepath.Join(vault, "notes", "projects", "alpha", "plan.md")))(t)
	lines := strings.Split(string(data), "\n")
	for _, n := range in.Ancestry[5:8] {
		if n.Lines == nil || !strings.HasSuffix(lines[n.Lines.Start-1], "# "+n.Name) {
			t.Errorf("heading %q at %+v", n.Name, n.Lines)
		}
	}
	decode(t, c.ok("get_info", map[string]any{"id": "kb/notes/projects"}), &in)
	if in.Type != "folder" || len(in.Ancestry) != 3 {
		t.Errorf("get_info of a folder: %+v", in)
	}
	if r := c.call("get_info", map[string]any{"id": "no/such/thing"}); !r.IsError || !strings.Contains(r.Text, "find or search can find it") {
		t.Errorf("get_info of an unknown id: %+v", r)
	}

	var ct notes.Citation
	decode(t, c.ok("cite", map[string]any{"chunk_id": chunk}), &ct)
	if ct.ChunkID != chunk || ct.Title != "Alpha Plan" || ct.File != filepath.Join(vault, "notes", "projects", "alpha", "plan.md") ||
		!strings.HasPrefix(ct.Tag, "[Alpha Plan](notes/projects/alpha/plan.md#L") {
		t.Fatalf("cite: %+v", ct)
	}
	span := strings.Join(strings.Fields(strings.Join(lines[ct.StartLine-1:ct.EndLine], "\n")), " ")
	if !strings.Contains(span, strings.TrimSuffix(ct.Snippet, "…")) || !strings.Contains(span, "quarter spending") {
		t.Errorf("lines %d-%d do not hold the cited text %q:\n%s", ct.StartLine, ct.EndLine, ct.Snippet, span)
	}
	if r := c.call("cite", map[string]any{"chunk_id": "nope#x.0"}); !r.IsError || !strings.Contains(r.Text, "chunk_id of a search hit") {
		t.Errorf("cite of an unknown chunk: %+v", r)
	}
}
