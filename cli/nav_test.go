package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/braidsearch/braid/internal/testdata"
	"github.com/braidsearch/braid/internal/testenv"
)

// navIndex indexes a vault with nested folders, linked notes and the twin
// documents, as source "kb", and returns the vault and the index.
func navIndex(t *testing.T) (vault, idx string) {
	t.Helper()
	vault = t.TempDir()
	testdata.WriteNavVault(t, vault)
	idx = filepath.Join(t.TempDir(), "idx")
	if _, errOut, code := runCLI(t, "--index", idx, "-q", "index", "--name", "kb", "--chunk-tokens", "48", vault); code != 0 {
		t.Fatalf("index: %s", errOut)
	}
	return vault, idx
}

// navJSON runs a command with --json that must succeed and decodes its output.
func navJSON(t *testing.T, v any, args ...string) {
	t.Helper()
	out, errOut, code := runCLI(t, append([]string{"--json"}, args...)...)
	if code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, errOut)
	}
	if err := json.Unmarshal([]byte(out), v); err != nil {
		t.Fatalf("%v printed %q: %v", args, out, err)
	}
}

func TestHashCLI(t *testing.T) {
	_, idx := navIndex(t)
	a := testdata.SHA256Hex(testdata.TwinA)
	out, errOut, code := runCLI(t, "--index", idx, "get", a[:10])
	if code != 0 || out != testdata.TwinA {
		t.Errorf("get by hash prefix: %q %q (exit %d)", out, errOut, code)
	}
	var doc struct{ Path, Hash string }
	navJSON(t, &doc, "--index", idx, "get", a)
	if doc.Path != "twin-a.md" || doc.Hash != a {
		t.Errorf("get --json by full hash: %+v", doc)
	}
	_, errOut, code = runCLI(t, "--index", idx, "get", testdata.TwinPrefix)
	if code != 1 || !strings.Contains(errOut, "ambiguous") || !strings.Contains(errOut, "twin-a.md") || !strings.Contains(errOut, "twin-b.md") {
		t.Errorf("get with a shared prefix: exit %d %q, want an ambiguity naming both", code, errOut)
	}

	var res struct {
		Lookup  string
		Total   int
		Results []struct {
			Path    string
			Score   float64
			ChunkID string `json:"chunk_id"`
		}
	}
	navJSON(t, &res, "--index", idx, "search", "--hash", testdata.SHA256Hex(testdata.TwinB)[:9])
	if res.Lookup != "hash" || len(res.Results) != 1 || res.Results[0].Path != "twin-b.md" || res.Results[0].Score != 1 || res.Results[0].ChunkID == "" {
		t.Errorf("search --hash: %+v", res)
	}
	res.Lookup = ""
	navJSON(t, &res, "--index", idx, "search", testdata.TwinPrefix)
	if res.Lookup != "hash" || res.Total != 2 {
		t.Errorf("search for a hash as the query: %+v", res)
	}
	res.Lookup = ""
	navJSON(t, &res, "--index", idx, "search", "budget")
	if res.Lookup != "" || len(res.Results) == 0 {
		t.Errorf("an ordinary search: %+v", res)
	}
	out, _, code = runCLI(t, "--index", idx, "search", a[:12])
	if code != 0 || !strings.Contains(out, "twin-a.md") || !strings.Contains(out, "found by hash") {
		t.Errorf("search text for a hash: exit %d %q", code, out)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"search"}, "--hash"},
		{[]string{"search", "--hash", "abc"}, "at least 8"},
		{[]string{"search", "--hash", testdata.TwinPrefix}, "matches 2 documents"},
		{[]string{"search", "--hash", "0000000000000000"}, "not found"},
	} {
		_, errOut, code := runCLI(t, append([]string{"--index", idx}, tt.args...)...)
		if code != 1 || !strings.HasPrefix(errOut, "braid: ") || !strings.Contains(errOut, tt.want) {
			t.Errorf("%v: exit %d %q, want an error saying %q", tt.args, code, errOut, tt.want)
		}
	}
}

func TestGetGraphCLI(t *testing.T) {
	_, idx := navIndex(t)
	var doc struct {
		Path  string
		Graph struct {
			Depth     int
			Links     []struct{ Path string }
			Backlinks []struct{ Path string }
		}
	}
	navJSON(t, &doc, "--index", idx, "get", "--graph", "garden")
	if doc.Graph.Depth != 1 || len(doc.Graph.Links) != 1 || doc.Graph.Links[0].Path != "gardening.md" || len(doc.Graph.Backlinks) != 0 {
		t.Errorf("get --graph garden: %+v", doc.Graph)
	}
	navJSON(t, &doc, "--index", idx, "get", "--graph", "--depth", "2", "garden")
	if len(doc.Graph.Links) != 2 || doc.Graph.Links[1].Path != "compost.md" {
		t.Errorf("get --graph --depth 2 garden: %+v", doc.Graph)
	}
	out, errOut, code := runCLI(t, "--index", idx, "get", "--graph", "gardening")
	if code != 0 || !strings.HasPrefix(out, "---\ntitle: Gardening Guide") || !strings.Contains(out, "→ 1  compost.md") ||
		!strings.Contains(out, "← 1  garden.md") || !strings.Contains(out, "← 1  compost.md") {
		t.Errorf("get --graph text: exit %d %q %q", code, out, errOut)
	}
	if _, errOut, code := runCLI(t, "--index", idx, "get", "--graph", "--depth", "9", "garden"); code != 1 || !strings.Contains(errOut, "depth 9") {
		t.Errorf("--depth 9: exit %d %q", code, errOut)
	}
}

func TestFindCLI(t *testing.T) {
	vault, idx := navIndex(t)
	var res struct {
		Results []struct{ Path, Match string }
		Total   int
	}
	navJSON(t, &res, "--index", idx, "find", "garden")
	var got []string
	for _, f := range res.Results {
		got = append(got, f.Path+" "+f.Match)
	}
	want := []string{"garden.md exact", "gardening.md prefix", "notes/winter-garden.md word"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("find garden (-want +got):\n%s", diff)
	}
	for _, parent := range []string{"notes", "kb/notes", filepath.Join(vault, "notes")} {
		navJSON(t, &res, "--index", idx, "find", "--parent", parent, "garden")
		if len(res.Results) != 1 || res.Results[0].Path != "notes/winter-garden.md" {
			t.Errorf("find --parent %s: %+v", parent, res)
		}
	}
	out, _, code := runCLI(t, "--index", idx, "find", "-n", "1", "gdn")
	if code != 0 || !strings.HasPrefix(out, " 1. Garden  (garden.md)  subsequence") || !strings.Contains(out, "1 shown, 3 matching") {
		t.Errorf("find text: exit %d %q", code, out)
	}
	if _, errOut, code := runCLI(t, "--index", idx, "find", "--parent", "nowhere", "garden"); code != 1 || !strings.Contains(errOut, "braid tree") {
		t.Errorf("find --parent nowhere: exit %d %q", code, errOut)
	}
}

func TestInfoCiteCLI(t *testing.T) {
	vault, idx := navIndex(t)
	var hits struct {
		Results []struct {
			ID      string
			ChunkID string `json:"chunk_id"`
		}
	}
	navJSON(t, &hits, "--index", idx, "search", "quarter spending")
	if len(hits.Results) == 0 {
		t.Fatal("no hit for quarter spending")
	}
	chunk := hits.Results[0].ChunkID

	var in struct {
		Type     string
		ID       string
		Ancestry []struct {
			Type, Name, Path string
			Lines            *struct{ Start, End int }
		}
	}
	navJSON(t, &in, "--index", idx, "info", chunk)
	var types []string
	for _, n := range in.Ancestry {
		types = append(types, n.Type+":"+n.Name)
	}
	want := []string{"source:kb", "folder:notes", "folder:projects", "folder:alpha", "document:plan.md", "heading:Plan", "heading:Budget", "heading:Q1", "chunk:"}
	if diff := cmp.Diff(want, types); diff != "" || in.Type != "chunk" || in.ID != chunk {
		t.Errorf("info CHUNK ancestry (-want +got):\n%s\n%+v", diff, in)
	}
	out, _, code := runCLI(t, "--index", idx, "info", "notes/projects/alpha/plan.md")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 5 || !strings.HasPrefix(lines[0], "source    kb  "+vault) ||
		!strings.HasPrefix(lines[4], "        document  notes/projects/alpha/plan.md  \"Alpha Plan\"  id ") {
		t.Errorf("info text: exit %d\n%s", code, out)
	}

	var ct struct {
		ChunkID   string `json:"chunk_id"`
		File, Tag string
		StartLine int `json:"start_line"`
		EndLine   int `json:"end_line"`
		Snippet   string
	}
	navJSON(t, &ct, "--index", idx, "cite", chunk)
	data := testenv.Must1(os.ReadFile(filepath.Join(vault, "notes", "projects", "alpha", "plan.md")))(t)
	fileLines := strings.Split(string(data), "\n")
	if ct.File != filepath.Join(vault, "notes", "projects", "alpha", "plan.md") || ct.StartLine < 1 || ct.EndLine > len(fileLines) {
		t.Fatalf("cite: %+v", ct)
	}
	span := strings.Join(strings.Fields(strings.Join(fileLines[ct.StartLine-1:ct.EndLine], "\n")), " ")
	if !strings.Contains(span, strings.TrimSuffix(ct.Snippet, "…")) || !strings.Contains(span, "First quarter spending") {
		t.Errorf("lines %d-%d do not hold the cited text %q:\n%s", ct.StartLine, ct.EndLine, ct.Snippet, span)
	}
	out, _, code = runCLI(t, "--index", idx, "cite", chunk)
	if code != 0 || !strings.HasPrefix(out, ct.Tag+"\n") || !strings.HasPrefix(ct.Tag, "[Alpha Plan](notes/projects/alpha/plan.md#L") ||
		!strings.Contains(out, "§ Plan › Budget › Q1") {
		t.Errorf("cite text: exit %d %q", code, out)
	}
	if _, errOut, code := runCLI(t, "--index", idx, "cite", "nope#x.0"); code != 1 || !strings.Contains(errOut, "chunk_id of a search hit") {
		t.Errorf("cite of an unknown chunk: exit %d %q", code, errOut)
	}
}
