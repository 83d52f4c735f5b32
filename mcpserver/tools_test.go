package mcpserver_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/grep"
	"github.com/braidsearch/braid/internal/testenv"
	"github.com/braidsearch/braid/mcpserver"
)

var update = flag.Bool("update", false, "rewrite testdata/tools.golden.json")

const noModel = "ONNX Runtime not found: run make ort"

// lexicalServer serves an index of a 12-note vault plus a long note of six
// sections, opened without models (as when none are installed).
func lexicalServer(t *testing.T, opt *mcpserver.Options) (vault string, c *clientT) {
	t.Helper()
	vault = t.TempDir()
	writeVault(t, vault, 12, "alpha")
	var long strings.Builder
	long.WriteString("# Long\n\nA long note about the river delta.\n")
	for i := 1; i <= 6; i++ {
		fmt.Fprintf(&long, "\n## Part %d\n\nSection %d talks about topic%d in detail. %s\n", i, i, i, strings.Repeat("More words on the same subject. ", 30))
	}
	if err := os.WriteFile(filepath.Join(vault, "long.md"), []byte(long.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	idx := filepath.Join(t.TempDir(), "idx")
	e, err := braid.Open(idx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Index(context.Background(), []braid.SourceSpec{{Path: vault, ChunkTokens: 64}}, nil); err != nil {
		t.Fatal(err)
	}
	e.Close()
	if opt == nil {
		opt = trusting(t)
	}
	srv := mcpserver.New(opener(idx, &braid.Options{NoVectors: noModel, NoRerank: "no reranker model installed"}), opt)
	return vault, &clientT{connect(t, srv), t}
}

func TestToolsGolden(t *testing.T) {
	_, c := lexicalServer(t, nil)
	res, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(res.Tools, func(i, j int) bool { return res.Tools[i].Name < res.Tools[j].Name })
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
		if len(tl.Description) < 80 {
			t.Errorf("%s: description %q is too short to tell an agent when to use it", tl.Name, tl.Description)
		}
		if tl.InputSchema.AdditionalProperties != false {
			t.Errorf("%s: additionalProperties %v, want false (unknown arguments are refused)", tl.Name, tl.InputSchema.AdditionalProperties)
		}
		// Every argument is documented: by a description of its own, or,
		// where a tool's arguments share one (filters, rg's flags), named
		// in the tool's description (issue 35, point 3).
		for p, v := range tl.InputSchema.Properties {
			named := regexp.MustCompile(`\b` + p + `\b`).MatchString(tl.Description)
			if d, _ := v.(map[string]any)["description"].(string); len(d) < 15 && !named {
				t.Errorf("%s.%s: description %q, and the tool's description does not name it; want one that says what it means",
					tl.Name, p, d)
			}
		}
	}
	want := []string{"add", "ask", "cite", "compare_versions", "configure", "create_snapshot", "delete_by_name", "download", "explore_links", "find", "find_gaps", "get",
		"get_current_datetime", "get_document", "get_info", "get_organization_info", "get_stats", "graph", "grep", "index_path", "inject_tags", "list", "list_collections",
		"list_contents", "list_directory_structure", "list_snapshots", "list_sources", "list_versions", "read", "read_around", "read_node_content",
		"remove_source", "restore", "scratchpad_list", "scratchpad_read", "search", "search_documents", "search_keyword", "search_knowledge",
		"session_pin", "session_start", "session_stop", "session_unpin", "status", "trace_chunk_lineage", "update", "view_chunk_image", "watch"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	got, err := json.MarshalIndent(res.Tools, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	golden := filepath.Join("testdata", "tools.golden.json")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	wantJSON, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./mcpserver -update to create it)", err)
	}
	if diff := cmp.Diff(string(wantJSON), string(got)); diff != "" {
		t.Errorf("tool schemas changed (-golden +got); if intended, run go test ./mcpserver -update:\n%s", diff)
	}
}

type hitJSON struct {
	ID           string             `json:"id"`
	ChunkID      string             `json:"chunk_id"`
	Path         string             `json:"path"`
	Title        string             `json:"title"`
	Score        float64            `json:"score"`
	Snippet      string             `json:"snippet"`
	Line         braid.Lines        `json:"line"`
	Highlights   []braid.Range      `json:"highlights"`
	Source       string             `json:"source"`
	Context      string             `json:"context"`
	ContextError string             `json:"context_error"`
	Explain      *braid.Explanation `json:"explain"`
}

type searchJSON struct {
	Results []hitJSON `json:"results"`
	Total   int       `json:"total"`
	TookMS  float64   `json:"took_ms"`
	Warning string    `json:"warning"`
}

func TestSearchTools(t *testing.T) {
	vault, c := lexicalServer(t, nil)

	var r searchJSON
	search := func(tool string, args map[string]any) {
		t.Helper()
		r = searchJSON{}
		decode(t, c.ok(tool, args), &r)
	}
	search("search", map[string]any{"query": "note number alpha", "limit": 5, "explain": true, "vector_weight": 0.6})
	if len(r.Results) != 5 || r.Total < 12 {
		t.Fatalf("search: %d results of %d, want 5 of at least 12", len(r.Results), r.Total)
	}
	h := r.Results[0]
	if h.Source != "lexical" || h.ID == "" || !strings.HasPrefix(h.ChunkID, h.ID+"#") || h.Line.Start < 1 || len(h.Highlights) == 0 || h.Explain == nil {
		t.Errorf("first hit %+v: want a lexical hit with ids, lines, highlights and explain", h)
	}
	// Hybrid asked for, but no model: the search says it ran on keywords;
	// reranking, not asked for, goes unsaid (issue 35, point 2).
	if !strings.Contains(r.Warning, "lexical only") || !strings.Contains(r.Warning, noModel) || strings.Contains(r.Warning, "rerank") {
		t.Errorf("warning %q, want it to say the search was lexical only and why, and nothing of reranking", r.Warning)
	}
	// Asked for with rerank: true, the first such search says why not.
	search("search", map[string]any{"query": "note number alpha", "vector_weight": 0, "rerank": true})
	if r.Warning != "results are not reranked: no reranker model installed" {
		t.Errorf("search with rerank: true: warning %q, want why it is not reranked", r.Warning)
	}

	search("search", map[string]any{"query": "topic4", "context": 1, "line_numbers": true, "rerank": false})
	if len(r.Results) != 1 || r.Results[0].Path != "long.md" {
		t.Fatalf("search topic4: %+v, want long.md", r.Results)
	}
	lines := strings.Split(strings.TrimSuffix(r.Results[0].Context, "\n"), "\n")
	if len(lines) != 3 || !strings.Contains(lines[1], ":Section 4 talks about topic4") || !strings.Contains(lines[0], "-") {
		t.Errorf("context %q: want the matching line numbered N: between two N- lines", r.Results[0].Context)
	}

	var paths struct{ Paths []string }
	decode(t, c.ok("search", map[string]any{"query": "alpha", "paths_only": true, "line_numbers": true, "limit": 3, "tags": []string{"n2"}}), &paths)
	if len(paths.Paths) != 2 || !strings.HasPrefix(paths.Paths[0], "note-00") || !strings.Contains(paths.Paths[0], ".md:") {
		t.Errorf("paths_only with tag n2: %v, want notes 2 and 9 as path:start-end", paths.Paths)
	}

	search("search", map[string]any{"query": "alpah", "fuzzy": true, "vector_weight": 0, "fusion": "rrf", "path": "note-000*"})
	if len(r.Results) == 0 || r.Warning != "" {
		t.Errorf("fuzzy search: %d results, warning %q: want results, and no warning (no reranker was said once already)", len(r.Results), r.Warning)
	}
	for _, h := range r.Results {
		if !strings.HasPrefix(h.Path, "note-000") {
			t.Errorf("path filter let %s through", h.Path)
		}
	}

	search("search_keyword", map[string]any{"query": "alpha", "limit": 20})
	if len(r.Results) != 12 || r.Warning != "" {
		t.Errorf("search_keyword: %d results, warning %q; want 12 and no warning (BM25 asks for no model)", len(r.Results), r.Warning)
	}
	for _, h := range r.Results {
		if h.Source != "lexical" {
			t.Errorf("search_keyword hit source %q, want lexical", h.Source)
		}
	}

	// grep prints like ripgrep, with absolute paths.
	out := c.ok("grep", map[string]any{"pattern": `note number \d+ with`, "line_numbers": true})
	if n := strings.Count(out, "\n"); n != 12 || !strings.Contains(out, filepath.Join(vault, "note-0003.md")+":7:This is note number 3 with alpha") {
		t.Errorf("grep -n: %d lines:\n%s", n, out)
	}
	out = c.ok("grep", map[string]any{"pattern": "TOPIC[12]", "ignore_case": true, "count": true, "paths": []string{filepath.Join(vault, "long.md")}})
	if out != "2\n" {
		t.Errorf("grep -ic on one file: %q, want \"2\\n\" (no file name for a single file)", out)
	}
	out = c.ok("grep", map[string]any{"pattern": "topic[35]", "context": 1, "line_numbers": true, "with_filename": false, "paths": []string{vault}})
	if lines := strings.Split(out, "\n"); len(lines) != 8 || lines[0] != "14-" || !strings.HasPrefix(lines[1], "15:Section 3 talks") ||
		lines[2] != "16-" || lines[3] != "--" || lines[4] != "22-" || !strings.HasPrefix(lines[5], "23:Section 5") {
		t.Errorf("grep -n -C1 --no-filename: %q", out)
	}
	if out := c.ok("grep", map[string]any{"pattern": "zebra"}); out != "no matches\n" {
		t.Errorf("grep without a match: %q", out)
	}
	out = c.ok("grep", map[string]any{"pattern": "topic", "files_with_matches": true})
	if out != filepath.Join(vault, "long.md")+"\n" {
		t.Errorf("grep -l: %q", out)
	}
}

func TestDocumentTools(t *testing.T) {
	vault, c := lexicalServer(t, nil)
	var r searchJSON
	decode(t, c.ok("search", map[string]any{"query": "topic3", "rerank": false}), &r)
	if len(r.Results) != 1 {
		t.Fatalf("search topic3: %+v", r)
	}
	hit := r.Results[0]

	want := testenv.Must1(os.ReadFile(filepath.Join(vault, "long.md")))(t)
	for _, id := range []string{hit.ID, hit.ChunkID, "long.md", "long", "Long", filepath.Join(vault, "long.md")} {
		if got := c.ok("read_node_content", map[string]any{"id": id}); got != string(want) {
			t.Errorf("read_node_content %q: got %d bytes, want the file's %d", id, len(got), len(want))
		}
	}

	var doc struct {
		ID, Path, Title, File, Content string
		Tags                           []string
		Headings                       []braid.Heading
		ChunkIDs                       []string `json:"chunk_ids"`
		Changed                        bool
	}
	decode(t, c.ok("get_document", map[string]any{"document_id": "note-0003"}), &doc)
	if doc.Title != "Note 3" || !cmp.Equal(doc.Tags, []string{"n3"}) || !strings.Contains(doc.Content, "note number 3") ||
		doc.File != filepath.Join(vault, "note-0003.md") || len(doc.Headings) != 2 || doc.Changed {
		t.Errorf("get_document: %+v", doc)
	}
	doc.Content, doc.File = "", ""
	decode(t, c.ok("get_document", map[string]any{"document_id": hit.ID, "include_content": false}), &doc)
	if doc.Title != "Long" || doc.Content != "" || doc.File != "" || len(doc.ChunkIDs) < 6 {
		t.Errorf("get_document without content: %+v", doc)
	}

	var around struct {
		ID     string
		Chunks []struct {
			ChunkID string `json:"chunk_id"`
			Offset  int
			Label   string
			Text    string
			Line    braid.Lines
		}
		MoreBefore int `json:"more_before"`
		MoreAfter  int `json:"more_after"`
	}
	decode(t, c.ok("read_around", map[string]any{"chunk_id": hit.ChunkID, "radius": 1}), &around)
	if len(around.Chunks) != 3 || around.ID != hit.ID {
		t.Fatalf("read_around radius 1: %+v", around)
	}
	labels := []string{}
	for i, ch := range around.Chunks {
		labels = append(labels, fmt.Sprintf("%d %s", ch.Offset, ch.Label))
		if i > 0 && ch.Line.Start < around.Chunks[i-1].Line.Start {
			t.Errorf("chunks out of document order: %+v", around.Chunks)
		}
	}
	if diff := cmp.Diff([]string{"-1 before", "0 hit", "1 after"}, labels); diff != "" {
		t.Errorf("labels (-want +got):\n%s", diff)
	}
	if around.Chunks[1].ChunkID != hit.ChunkID || !strings.Contains(around.Chunks[1].Text, "topic3") ||
		around.MoreBefore+around.MoreAfter+3 != len(doc.ChunkIDs) {
		t.Errorf("read_around: hit chunk %+v, %d before and %d after of %d", around.Chunks[1], around.MoreBefore, around.MoreAfter, len(doc.ChunkIDs))
	}
	decode(t, c.ok("read_around", map[string]any{"chunk_id": doc.ChunkIDs[0]}), &around)
	if len(around.Chunks) != 3 || around.Chunks[0].Label != "hit" || around.MoreBefore != 0 {
		t.Errorf("read_around of the first chunk, radius 2: %+v", around)
	}
}

// Every failure an agent can fix is a tool result with isError and a
// message naming the argument and the fix.
func TestToolErrors(t *testing.T) {
	vault, c := lexicalServer(t, nil)
	gone := filepath.Join(vault, "note-0005.md")
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		tool string
		args map[string]any
		want []string // substrings of the message
	}{
		{"vector_weight out of range", "search", map[string]any{"query": "alpha", "vector_weight": 1.5}, []string{`search: invalid option: vector_weight "1.5" is out of range`, "from 0 (keywords only) to 1"}},
		{"negative vector_weight", "search", map[string]any{"query": "alpha", "vector_weight": -0.1}, []string{"vector_weight", "out of range"}},
		{"unknown argument", "search", map[string]any{"query": "alpha", "limt": 3}, []string{`unknown argument "limt"`, "limit"}},
		{"wrong type", "search", map[string]any{"query": "alpha", "limit": "ten"}, []string{"bad argument limit", "string", "integer"}},
		{"fraction for an integer", "search", map[string]any{"query": "alpha", "limit": 2.5}, []string{"limit", "integer"}},
		{"missing query", "search", map[string]any{}, []string{"query is required"}},
		{"blank query", "search_keyword", map[string]any{"query": "  "}, []string{"query is required"}},
		{"limit too big", "search", map[string]any{"query": "alpha", "limit": 1001}, []string{`limit "1001"`, "from 1 to 1000"}},
		{"unknown fusion", "search", map[string]any{"query": "alpha", "fusion": "max"}, []string{"fusion", `"max"`, "linear or rrf"}},
		{"unknown source", "search", map[string]any{"query": "alpha", "source_id": "nope"}, []string{`no source "nope"`, "list_sources"}},
		{"bad glob", "search", map[string]any{"query": "alpha", "path": "[z-a]"}, []string{"bad argument path", "[z-a]"}},
		{"unknown argument, keyword", "search_keyword", map[string]any{"query": "alpha", "vector_weight": 0.5}, []string{`unknown argument "vector_weight"`}},
		{"invalid regex", "grep", map[string]any{"pattern": "(unclosed"}, []string{"grep: bad argument pattern", "missing closing )", "escape"}},
		{"empty pattern", "grep", map[string]any{}, []string{"pattern", "required"}},
		{"negative context", "grep", map[string]any{"pattern": "a", "context": -1}, []string{"context", "out of range"}},
		{"grep missing path", "grep", map[string]any{"pattern": "a", "paths": []string{filepath.Join(vault, "nope")}}, []string{"not an indexed file", "grep reads the indexed files only"}},
		{"grep outside", "grep", map[string]any{"pattern": "root", "paths": []string{"/etc/passwd"}}, []string{"not an indexed file"}},
		{"unknown document", "read_node_content", map[string]any{"id": "no-such-note"}, []string{"not found", `"no-such-note"`, "search tool"}},
		{"missing file", "read_node_content", map[string]any{"id": "note-0005"}, []string{gone, "no such file", "index_path"}},
		{"missing file, get_document", "get_document", map[string]any{"document_id": "note-0005.md"}, []string{"no such file"}},
		{"unknown document, get_document", "get_document", map[string]any{"document_id": "zzz"}, []string{"not found"}},
		{"unknown chunk", "read_around", map[string]any{"chunk_id": "abc#def.0"}, []string{`no chunk "abc#def.0"`, "chunk_id of a search hit"}},
		{"radius too big", "read_around", map[string]any{"chunk_id": "abc#def.0", "radius": 11}, []string{"radius", "0..10"}},
		{"index missing path", "index_path", map[string]any{"path": filepath.Join(vault, "missing")}, []string{"does not exist", "check the path"}},
		{"watch a missing path", "index_path", map[string]any{"path": filepath.Join(vault, "missing"), "watch": true}, []string{"does not exist"}},
		{"unknown source, remove", "remove_source", map[string]any{"source_id": "zzz"}, []string{`no source "zzz"`}},
		{"unknown scratchpad", "scratchpad_read", map[string]any{"id": "sp-99"}, []string{`no scratchpad entry "sp-99"`}},
		{"arguments for a tool without any", "get_stats", map[string]any{"verbose": true}, []string{`unknown argument "verbose"; this tool takes no arguments`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := c.call(tc.tool, tc.args)
			if !r.IsError {
				t.Fatalf("%s %v: %q, want a tool error", tc.tool, tc.args, r.Text)
			}
			t.Log(r.Text)
			if !strings.HasPrefix(r.Text, tc.tool+": ") {
				t.Errorf("message %q does not start with the tool name", r.Text)
			}
			for _, w := range tc.want {
				if !strings.Contains(r.Text, w) {
					t.Errorf("message %q lacks %q", r.Text, w)
				}
			}
		})
	}
	// An unknown tool is a protocol error, not a tool result.
	if _, err := callErr(c.Client, "serach", map[string]any{"query": "x"}, nil); err == nil {
		t.Error("calling an unknown tool succeeded; want a JSON-RPC error")
	}
}

func TestSourceTools(t *testing.T) {
	vault, c := lexicalServer(t, nil)
	var list struct {
		Sources []struct {
			ID, Name, Path string
			Documents      int
			Recursive      bool
		}
	}
	decode(t, c.ok("list_sources", nil), &list)
	if len(list.Sources) != 1 || list.Sources[0].Documents != 13 || list.Sources[0].Path != vault || !list.Sources[0].Recursive {
		t.Fatalf("list_sources: %+v", list)
	}

	more := t.TempDir()
	writeVault(t, more, 30, "beta")
	testenv.Must(t, os.WriteFile(filepath.Join(more, "skip.txt"), []byte("beta in a text file"), 0o644))
	var mu sync.Mutex
	var notes []map[string]any
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == "notifications/progress" {
			mu.Lock()
			notes = append(notes, n.Params.AdditionalFields)
			mu.Unlock()
		}
	})
	r, err := callErr(c.Client, "index_path", map[string]any{"path": more, "pattern": "*.md"}, &mcp.Meta{ProgressToken: "tok-1"})
	if err != nil || r.IsError {
		t.Fatalf("index_path: %v %q", err, r.Text)
	}
	var idx struct {
		Summary braid.Summary
		Source  struct{ ID, Path string }
	}
	decode(t, r.Text, &idx)
	if idx.Summary.Added != 30 || idx.Source.Path != more || idx.Source.ID == "" {
		t.Errorf("index_path: %+v", idx)
	}
	// Notifications may trail the answer by a moment.
	deadline := time.Now().Add(testenv.Guard)
	for {
		mu.Lock()
		n := len(notes)
		mu.Unlock()
		if n > 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	mu.Lock()
	if len(notes) == 0 {
		t.Error("index_path with a progressToken sent no progress notification")
	}
	last := -1.0
	for _, n := range notes {
		p, _ := n["progress"].(float64)
		if n["progressToken"] != "tok-1" || p <= last {
			t.Errorf("progress notification %v: want token tok-1 and growing progress (last %v)", n, last)
		}
		last = p
	}
	if len(notes) > 0 && (notes[len(notes)-1]["total"] != 30.0 || last != 30) {
		t.Errorf("last progress %v, want 30 of 30 files", notes[len(notes)-1])
	}
	mu.Unlock()

	var sr searchJSON
	decode(t, c.ok("search_keyword", map[string]any{"query": "beta", "source_id": idx.Source.ID}), &sr)
	if sr.Total != 30 {
		t.Errorf("search in the new source: %d matching chunks, want 30", sr.Total)
	}

	var removed struct {
		RemovedDocuments int `json:"removed_documents"`
	}
	decode(t, c.ok("remove_source", map[string]any{"source_id": idx.Source.ID}), &removed)
	if removed.RemovedDocuments != 30 {
		t.Errorf("remove_source removed %d documents, want 30", removed.RemovedDocuments)
	}
	decode(t, c.ok("search_keyword", map[string]any{"query": "beta"}), &sr)
	if len(sr.Results) != 0 {
		t.Errorf("search after remove_source: %+v", sr.Results)
	}

	var st struct {
		Documents int
		Models    braid.Capabilities
		Server    struct {
			MaxOutput int `json:"max_output"`
		}
	}
	decode(t, c.ok("get_stats", nil), &st)
	if st.Documents != 13 || st.Models.Vectors || st.Models.NoVectors != noModel || st.Models.ReadOnly || st.Server.MaxOutput != 8192 {
		t.Errorf("get_stats: %+v", st)
	}

	res, err := c.ReadResource(context.Background(), mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: mcpserver.SummaryURI}})
	if err != nil || len(res.Contents) != 1 {
		t.Fatalf("read %s: %v %+v", mcpserver.SummaryURI, err, res)
	}
	text, _ := res.Contents[0].(mcp.TextResourceContents)
	if !strings.Contains(text.Text, "13 documents") || !strings.Contains(text.Text, "| "+filepath.Base(vault)+" |") || !strings.Contains(text.Text, noModel) {
		t.Errorf("summary resource:\n%s", text.Text)
	}
}

// Output over the limit is cut, kept whole in the scratchpad, and read
// back page by page.
func TestScratchpad(t *testing.T) {
	vault, c := lexicalServer(t, &mcpserver.Options{MaxOutput: 1000, Scratchpads: 2, Tools: "all"})
	full := grepAll(t, vault, "filler")
	if len(full) < 5000 {
		t.Fatalf("the grep output is only %d bytes", len(full))
	}
	r := c.ok("grep", map[string]any{"pattern": "filler"})
	head, note, found := strings.Cut(r, "\n[output truncated")
	if !found || len(head) > 1000 || !strings.HasPrefix(full, head) || !strings.Contains(note, `scratchpad_read with {"id": "sp-1"`) {
		t.Fatalf("reply of %d bytes: %q", len(r), r)
	}
	got := head + readPad(t, c, "sp-1", len(head), 1000)
	if got != full {
		t.Errorf("pages put together (%d bytes) differ from the whole output (%d bytes)", len(got), len(full))
	}

	// A search answer too long for the limit keeps the results that fit,
	// as valid JSON.
	var sr struct {
		searchJSON
		Truncated string
	}
	decode(t, c.ok("search_keyword", map[string]any{"query": "gardens rivers", "limit": 12}), &sr)
	if len(sr.Results) == 0 || len(sr.Results) >= 12 || !strings.Contains(sr.Truncated, "scratchpad sp-2") {
		t.Fatalf("long search: %d results, truncated %q; want fewer than 12 and a note naming sp-2", len(sr.Results), sr.Truncated)
	}
	var whole searchJSON
	decode(t, readPad(t, c, "sp-2", 0, 1000), &whole)
	if len(whole.Results) != 12 || whole.Results[0].ChunkID != sr.Results[0].ChunkID {
		t.Errorf("the scratchpad holds %d results, want all 12 in the same order", len(whole.Results))
	}

	// Two entries are kept; the least recently used goes first.
	c.ok("scratchpad_read", map[string]any{"id": "sp-1"})
	c.ok("grep", map[string]any{"pattern": "rivers"}) // sp-3 pushes out sp-2
	var list struct {
		Entries []struct {
			ID, Tool string
			Bytes    int
		}
	}
	decode(t, c.ok("scratchpad_list", nil), &list)
	var ids []string
	for _, e := range list.Entries {
		ids = append(ids, e.ID+" "+e.Tool)
	}
	if diff := cmp.Diff([]string{"sp-3 grep", "sp-1 grep"}, ids); diff != "" {
		t.Errorf("scratchpad entries (-want +got):\n%s", diff)
	}
	if r := c.call("scratchpad_read", map[string]any{"id": "sp-2"}); !r.IsError {
		t.Errorf("sp-2 should have been dropped: %q", r.Text)
	}
	if r := c.call("scratchpad_read", map[string]any{"id": "sp-1", "offset": len(full) + 1}); !r.IsError || !strings.Contains(r.Text, "past the end") {
		t.Errorf("offset past the end: %+v", r)
	}
}

// readPad reads a scratchpad entry from offset to its end, page by page,
// checking each page's size and continuation note.
func readPad(t *testing.T, c *clientT, id string, offset, limit int) string {
	t.Helper()
	var got strings.Builder
	for i := 0; ; i++ {
		page := c.ok("scratchpad_read", map[string]any{"id": id, "offset": offset})
		text, more, cut := strings.Cut(page, "\n[bytes ")
		if len(text) > limit {
			t.Fatalf("a page of %d bytes, over the %d limit", len(text), limit)
		}
		got.WriteString(text)
		offset += len(text)
		if !cut {
			return got.String()
		}
		if !strings.Contains(more, fmt.Sprintf(`"offset": %d`, offset)) || i > 1000 {
			t.Fatalf("page note %q does not name offset %d", more, offset)
		}
	}
}

// grepAll is what the grep tool prints for pattern over the vault, found
// through the engine directly.
func grepAll(t *testing.T, vault, pattern string) string {
	t.Helper()
	e, err := braid.Open(filepath.Join(t.TempDir(), "idx"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, err := e.Index(context.Background(), []braid.SourceSpec{{Path: vault}}, nil); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	f := grep.Format{WithFilename: true}
	err = e.Grep(context.Background(), pattern, braid.GrepOptions{Options: grep.Options{NoRanges: true}}, func(r grep.Result) error {
		return f.Write(&b, r)
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestGraphTools(t *testing.T) {
	vault := t.TempDir()
	writeVault(t, vault, 6, "alpha")
	testenv.Must(t, os.MkdirAll(filepath.Join(vault, "sub", "deep"), 0o755))
	inner := filepath.Join(vault, "sub", "deep", "inner.md")
	testenv.Must(t, os.WriteFile(inner, []byte("# Inner\n\nLinks to [[Note 1]].\n"), 0o644))
	testenv.Must(t, os.WriteFile(filepath.Join(vault, "sub", "kiwi-a.md"), []byte("# Kiwi vines\n\nKiwi vines want pruning in winter; kiwi fruit ripens off the vine.\n"), 0o644))
	testenv.Must(t, os.WriteFile(filepath.Join(vault, "sub", "kiwi-b.md"), []byte("# Growing kiwi\n\nPrune kiwi vines in winter and let kiwi fruit ripen off the vine.\n"), 0o644))
	c := &clientT{connect(t, mcpserver.New(opener(indexDir(t, vault), nil), trusting(t))), t}

	type step struct {
		Path  string
		Depth int
	}
	var links struct {
		Doc   struct{ Path string }
		Links []step
	}
	decode(t, c.ok("explore_links", map[string]any{"id": "note-0001", "reverse": true}), &links)
	if diff := cmp.Diff([]step{{"note-0000.md", 1}, {"sub/deep/inner.md", 1}}, links.Links); diff != "" || links.Doc.Path != "note-0001.md" {
		t.Errorf("backlinks of note 1 (-want +got):\n%s", diff)
	}
	links.Links = nil
	decode(t, c.ok("explore_links", map[string]any{"id": "note-0001", "depth": 2, "relation": "cites"}), &links)
	if diff := cmp.Diff([]step{{"note-0002.md", 1}, {"note-0003.md", 2}}, links.Links); diff != "" {
		t.Errorf("links of note 1, depth 2 (-want +got):\n%s", diff)
	}

	var gaps struct {
		Gaps    []json.RawMessage
		Method  string
		Warning string
	}
	out := c.ok("find_gaps", map[string]any{"limit": 3, "threshold": 0.2})
	decode(t, out, &gaps)
	if len(gaps.Gaps) == 0 || gaps.Method != "lexical" || !strings.Contains(gaps.Warning, "lexical") || !strings.Contains(out, "kiwi-a.md") || !strings.Contains(out, "kiwi-b.md") {
		t.Errorf("find_gaps: %s", out)
	}

	tree := c.ok("list_directory_structure", nil)
	want := filepath.Base(vault) + " (source "
	if !strings.HasPrefix(tree, want) || !strings.Contains(tree, "): 9 documents\n  sub/ 3\n    deep/ 1\n") {
		t.Errorf("list_directory_structure:\n%s", tree)
	}

	var tagged struct {
		Added, Tags []string
	}
	decode(t, c.ok("inject_tags", map[string]any{"file_path": inner, "tags": []string{"project/x", "n1"}}), &tagged)
	if !cmp.Equal(tagged.Added, []string{"project/x", "n1"}) {
		t.Errorf("inject_tags added %v", tagged.Added)
	}
	if data, _ := os.ReadFile(inner); !strings.HasPrefix(string(data), "---\ntags:") || !strings.HasSuffix(string(data), "# Inner\n\nLinks to [[Note 1]].\n") {
		t.Errorf("tagged file:\n%s", data)
	}
	var sr searchJSON
	decode(t, c.ok("search_keyword", map[string]any{"query": "links", "tags": []string{"project/x"}}), &sr)
	if len(sr.Results) != 1 || sr.Results[0].Path != "sub/deep/inner.md" {
		t.Errorf("search by the injected tag: %+v", sr.Results)
	}
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"explore_links", map[string]any{"id": "nobody"}, "not found"},
		{"explore_links", map[string]any{"id": "note-0001", "depth": 9}, "1..5"},
		{"find_gaps", map[string]any{"threshold": 2}, "threshold"},
		{"inject_tags", map[string]any{"file_path": inner}, "tags is required"},
		{"inject_tags", map[string]any{"file_path": inner, "tags": []string{"x"}, "style": "yaml"}, "style"},
		{"inject_tags", map[string]any{"file_path": filepath.Join(t.TempDir(), "elsewhere.md"), "tags": []string{"x"}}, ""},
	} {
		if r := c.call(tc.tool, tc.args); !r.IsError || !strings.Contains(r.Text, tc.want) {
			t.Errorf("%s %v: %+v, want a tool error with %q", tc.tool, tc.args, r, tc.want)
		}
	}
}

// A long reason for a missing model is given in full by the first search
// that warns of it and pointed to after that, so an agent does not pay for
// it on every search.
func TestLongModelReasonGivenOnce(t *testing.T) {
	_, idx := indexed(t, 3, nil)
	why := "ONNX Runtime library not found (looked in /a, /b, /c); run make ort or set BRAID_ORT_LIB"
	c := &clientT{connect(t, mcpserver.New(opener(idx, &braid.Options{NoVectors: why, NoRerank: why, RerankNamed: true, ReadOnly: true}), &mcpserver.Options{Tools: "all"})), t}
	var first, second searchJSON
	decode(t, c.ok("search", map[string]any{"query": "alpha", "vector_weight": 0.6}), &first)
	decode(t, c.ok("search", map[string]any{"query": "note", "vector_weight": 0.6}), &second)
	if strings.Count(first.Warning, why) != 1 || !strings.Contains(first.Warning, "not reranked either") {
		t.Errorf("first warning %q, want the reason once in full", first.Warning)
	}
	if strings.Contains(second.Warning, why) || !strings.Contains(second.Warning, "(see get_stats), so this search is lexical only") ||
		strings.Contains(second.Warning, "rerank") {
		t.Errorf("second warning %q, want a pointer to get_stats, and reranking not mentioned again", second.Warning)
	}
	var st struct{ Models braid.Capabilities }
	if decode(t, c.ok("get_stats", nil), &st); st.Models.NoVectors != why {
		t.Errorf("get_stats no_vectors %q, want the full reason", st.Models.NoVectors)
	}
	// The core profile has no get_stats: the pointer is to the first warning.
	c = &clientT{connect(t, mcpserver.New(opener(idx, &braid.Options{NoVectors: why, ReadOnly: true}), nil)), t}
	decode(t, c.ok("search", map[string]any{"query": "alpha", "vector_weight": 0.6}), &first)
	decode(t, c.ok("search", map[string]any{"query": "note", "vector_weight": 0.6}), &second)
	if !strings.Contains(first.Warning, why) || !strings.Contains(second.Warning, "(given in an earlier warning), so this search is lexical only") {
		t.Errorf("core warnings %q, %q: want the reason, then a pointer to it naming no tool core lacks", first.Warning, second.Warning)
	}
}
