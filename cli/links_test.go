package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/braidsearch/braid/internal/modeltest"
	"github.com/braidsearch/braid/internal/testenv"
)

// graphVault writes a small linked vault and indexes it.
func graphVault(t *testing.T) (idx, dir string) {
	t.Helper()
	dir = t.TempDir()
	files := map[string]string{
		"Compost.md":   "---\ntags: [garden]\n---\n# Compost\n\nCompost turns kitchen scraps into humus; worms and humus feed the soil. See [[Worms]].\n",
		"Soil.md":      "# Soil\n\nHealthy soil is rich in humus. Add compost and worms to the soil.\n",
		"Worms.md":     "---\nsupersededBy: \"[[Soil]]\"\n---\n# Worms\n\nWorms eat scraps. [[Missing Page]]\n",
		"notes/Far.md": "# Far\n\n[back](../Compost.md)\n",
		"Lone.md":      "# Lone\n\nNothing here.\n",
	}
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		testenv.Must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	idx = filepath.Join(t.TempDir(), "idx")
	if _, errOut, code := runCLI(t, "--index", idx, "-q", "index", dir); code != 0 {
		t.Fatalf("index: %s", errOut)
	}
	return idx, dir
}

type linksJSON struct {
	Doc struct {
		Path string `json:"path"`
	} `json:"doc"`
	Depth int `json:"depth"`
	Links []struct {
		Path   string   `json:"path"`
		ID     string   `json:"id"`
		Target string   `json:"target"`
		Broken bool     `json:"broken"`
		Depth  int      `json:"depth"`
		Via    []string `json:"via"`
		Edges  []struct {
			Type string `json:"type"`
			Line int    `json:"line"`
		} `json:"edges"`
	} `json:"links"`
}

func TestLinksCLI(t *testing.T) {
	idx, _ := graphVault(t)
	out, errOut, code := runCLI(t, "--index", idx, "--json", "links", "Compost", "--depth", "2")
	if code != 0 {
		t.Fatalf("links: exit %d: %s", code, errOut)
	}
	var l linksJSON
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		t.Fatalf("links --json printed %q: %v", out, err)
	}
	var got []string
	for _, s := range l.Links {
		got = append(got, strings.Join(s.Via, ">")+" "+s.Edges[0].Type)
	}
	want := []string{
		"Compost.md>Worms.md CITES",
		"Compost.md>#garden TAGGED_AS",
		"Compost.md>Worms.md>Soil.md supersededBy",
		"Compost.md>Worms.md>Missing Page CITES",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") || l.Doc.Path != "Compost.md" || l.Depth != 2 {
		t.Errorf("links Compost --depth 2:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	out, _, code = runCLI(t, "--index", idx, "links", "Compost", "--reverse")
	if code != 0 || !strings.Contains(out, "Compost.md: 1 backlinks") || !strings.Contains(out, "LINKS_TO") || !strings.Contains(out, "notes/Far.md") {
		t.Errorf("links --reverse printed %q (exit %d), want Far linking Compost", out, code)
	}
	out, _, _ = runCLI(t, "--index", idx, "links", "Soil", "--reverse", "--relation", "supersededby")
	if !strings.Contains(out, "supersededBy") || !strings.Contains(out, "Worms.md") {
		t.Errorf("links Soil --reverse --relation supersededby printed %q", out)
	}

	out, errOut, code = runCLI(t, "--index", idx, "links", "--broken")
	if code != 0 || out != "Worms.md:6: CITES Missing Page\n" || errOut != "1 broken link\n" {
		t.Errorf("links --broken printed %q %q (exit %d)", out, errOut, code)
	}
	out, _, _ = runCLI(t, "--index", idx, "--json", "links", "--orphans")
	var o struct {
		Orphans []struct {
			Path string `json:"path"`
		} `json:"orphans"`
		Count int `json:"count"`
	}
	if err := json.Unmarshal([]byte(out), &o); err != nil || o.Count != 1 || o.Orphans[0].Path != "Lone.md" {
		t.Errorf("links --orphans --json printed %q: want Lone.md alone", out)
	}

	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"links"}, "name a document"},
		{[]string{"links", "--broken", "--orphans"}, "one at a time"},
		{[]string{"links", "Compost", "--broken"}, "whole graph"},
		{[]string{"links", "Compost", "--depth", "9"}, "depth 9 out of range"},
		{[]string{"links", "Nowhere"}, "no document is named"},
	} {
		_, errOut, code := runCLI(t, append([]string{"--index", idx}, tt.args...)...)
		if code != 1 || !strings.HasPrefix(errOut, "braid: ") || !strings.Contains(errOut, tt.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want one line with %q", tt.args, code, errOut, tt.want)
		}
	}
}

type gapsJSON struct {
	Gaps []struct {
		A, B struct {
			Path string `json:"path"`
		}
		Similarity float64  `json:"similarity"`
		Terms      []string `json:"terms"`
		Suggest    struct {
			Type string `json:"type"`
		} `json:"suggest"`
		Reason string `json:"reason"`
	} `json:"gaps"`
	Method    string  `json:"method"`
	Threshold float64 `json:"threshold"`
	Warning   string  `json:"warning"`
}

func TestGapsCLI(t *testing.T) {
	t.Setenv("BRAID_ORT_LIB", filepath.Join(t.TempDir(), "missing", "libonnxruntime.so.1"))
	idx, _ := graphVault(t)
	out, errOut, code := runCLI(t, "--index", idx, "--json", "gaps")
	if code != 0 {
		t.Fatalf("gaps: exit %d %s", code, errOut)
	}
	var g gapsJSON
	if err := json.Unmarshal([]byte(out), &g); err != nil {
		t.Fatalf("gaps --json printed %q: %v", out, err)
	}
	if g.Method != "lexical" || !strings.Contains(g.Warning, "lexical") || !strings.Contains(errOut, "braid: warning:") {
		t.Errorf("gaps without a model: method %q warning %q stderr %q; want lexical, said in JSON and on stderr", g.Method, g.Warning, errOut)
	}
	if len(g.Gaps) != 1 || g.Gaps[0].A.Path+g.Gaps[0].B.Path != "Compost.mdSoil.md" || g.Gaps[0].Similarity < g.Threshold || len(g.Gaps[0].Terms) == 0 {
		t.Fatalf("gaps %+v, want Compost and Soil (Compost links Worms, Worms Soil, but not Compost Soil)", g.Gaps)
	}
	out, _, _ = runCLI(t, "--index", idx, "-q", "gaps", "--limit", "1")
	if !strings.Contains(out, "Compost.md ↔ Soil.md") || !strings.Contains(out, "add CITES Compost.md → Soil.md") {
		t.Errorf("gaps text printed %q", out)
	}
	if _, errOut, code := runCLI(t, "--index", idx, "gaps", "--threshold", "1.5"); code != 1 || !strings.Contains(errOut, "threshold") {
		t.Errorf("gaps --threshold 1.5: exit %d %q", code, errOut)
	}
}

func TestGapsCLIWithModel(t *testing.T) {
	t.Setenv("BRAID_ORT_LIB", modeltest.NeedRuntime(t))
	t.Setenv("BRAID_MODEL", modeltest.TinyDir())
	idx, _ := graphVault(t)
	out, errOut, code := runCLI(t, "--index", idx, "--json", "gaps", "--threshold", "0.01", "--limit", "50")
	if code != 0 {
		t.Fatalf("gaps: exit %d %s", code, errOut)
	}
	var g gapsJSON
	if err := json.Unmarshal([]byte(out), &g); err != nil {
		t.Fatal(err)
	}
	if g.Method != "embeddings" || g.Warning != "" || errOut != "" {
		t.Errorf("gaps with the tiny model: method %q warning %q stderr %q", g.Method, g.Warning, errOut)
	}
	for _, p := range g.Gaps {
		if pair := p.A.Path + " " + p.B.Path; pair == "Compost.md Worms.md" || pair == "Soil.md Worms.md" {
			t.Errorf("linked pair %s listed", pair)
		}
	}
}

func TestTagCLI(t *testing.T) {
	idx, dir := graphVault(t)
	out, errOut, code := runCLI(t, "--index", idx, "--json", "tag", filepath.Join(dir, "Soil.md"), "#earth", "garden")
	if code != 0 {
		t.Fatalf("tag: exit %d %s", code, errOut)
	}
	var res struct {
		Added []string `json:"added"`
		Tags  []string `json:"tags"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || strings.Join(res.Added, ",") != "earth,garden" || strings.Join(res.Tags, ",") != "earth,garden" {
		t.Errorf("tag --json printed %q", out)
	}
	b := testenv.Must1(os.ReadFile(filepath.Join(dir, "Soil.md")))(t)
	if string(b) != "---\ntags: [earth, garden]\n---\n# Soil\n\nHealthy soil is rich in humus. Add compost and worms to the soil.\n" {
		t.Errorf("Soil.md became %q", b)
	}
	out, _, _ = runCLI(t, "--index", idx, "links", "#garden", "--reverse")
	if !strings.Contains(out, "Soil.md") || !strings.Contains(out, "Compost.md") {
		t.Errorf("after tagging, #garden backlinks %q lack Soil.md", out)
	}
	out, _, code = runCLI(t, "--index", idx, "tag", "Lone", "quiet", "--style", "comment")
	if code != 0 || !strings.Contains(out, "Lone.md: added quiet") {
		t.Errorf("tag --style comment printed %q (exit %d)", out, code)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "Lone.md")); !strings.HasSuffix(string(b), "Nothing here.\n\n<!-- tags: quiet -->\n") {
		t.Errorf("Lone.md became %q", b)
	}
	out, _, _ = runCLI(t, "--index", idx, "tag", "Lone", "QUIET")
	if !strings.Contains(out, "nothing written") {
		t.Errorf("tagging again printed %q", out)
	}
	outside := filepath.Join(t.TempDir(), "x.md")
	testenv.Must(t, os.WriteFile(outside, []byte("# X\n"), 0o644))
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"tag", outside, "a"}, "not an indexed file"},
		{[]string{"tag", "Lone", "two words"}, "not a valid tag"},
		{[]string{"tag", "Lone", "a", "--style", "yaml"}, "--style"},
	} {
		_, errOut, code := runCLI(t, append([]string{"--index", idx}, tt.args...)...)
		if code != 1 || !strings.HasPrefix(errOut, "braid: ") || !strings.Contains(errOut, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want %q", tt.args, code, errOut, tt.want)
		}
	}
	if b, _ := os.ReadFile(outside); string(b) != "# X\n" {
		t.Errorf("a file outside the sources was changed: %q", b)
	}
}

func TestTreeCLI(t *testing.T) {
	idx, dir := graphVault(t)
	out, _, code := runCLI(t, "--index", idx, "tree")
	want := filepath.Base(dir) + " (5)  " + dir + "\n└── notes (1)\n"
	if code != 0 || out != want {
		t.Errorf("tree printed %q, want %q", out, want)
	}
	out, _, _ = runCLI(t, "--index", idx, "--json", "tree")
	var tr struct {
		Sources []struct {
			Docs    int `json:"docs"`
			Folders []struct {
				Path string `json:"path"`
				Docs int    `json:"docs"`
			} `json:"folders"`
		} `json:"sources"`
	}
	if err := json.Unmarshal([]byte(out), &tr); err != nil || len(tr.Sources) != 1 || tr.Sources[0].Docs != 5 || tr.Sources[0].Folders[0].Path != "notes" {
		t.Errorf("tree --json printed %q", out)
	}
}
