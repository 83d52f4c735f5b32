package braid_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/internal/testdata"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/internal/testenv"
	"github.com/braidsearch/braid/notes"
)

// navVault is a vault for the navigation tests: nested folders, names to
// find, two documents whose hashes share a prefix, two with the same
// content, and links.
func navVault() map[string]string {
	plan := "---\ntitle: Alpha Plan\n---\n# Plan\n\nThe alpha project starts in spring.\n\n## Budget\n\n" +
		strings.Repeat("The budget covers tools, travel and people. ", 12) + "\n\n### Q1\n\n" +
		strings.Repeat("First quarter spending is small. ", 12) + "\n"
	return map[string]string{
		"notes/projects/alpha/plan.md": plan,
		"garden.md":                    "# Garden\n\nThe garden. See [[gardening]].\n",
		"archive/garden.md":            "---\ntitle: Old garden\n---\nAn old garden.\n",
		"gardening.md":                 "---\ntitle: Gardening Guide\n---\n# Gardening\n\nSee [[compost]].\n",
		"compost.md":                   "# Compost\n\nScraps to humus. Back to [[gardening]].\n",
		"notes/winter-garden.md":       "---\ntitle: Winter Garden\n---\nCold frames.\n",
		"bigardens.md":                 "---\ntitle: Bigardens\n---\nTwo gardens.\n",
		"goat.md":                      "---\ntitle: Goat Rider Den\n---\nA goat.\n",
		"twin-a.md":                    testdata.TwinA,
		"twin-b.md":                    testdata.TwinB,
		"copy1.md":                     "# Copy\n\nthe same words in two files\n",
		"copy2.md":                     "# Copy\n\nthe same words in two files\n",
		"my notes/a (b).md":            "---\ntitle: A [draft]\n---\nbody words\n",
	}
}

func navEngine(t *testing.T) (*braid.Engine, string) {
	t.Helper()
	dir := writeVault(t, navVault())
	e := openEngine(t, nil)
	sum, err := e.Index(context.Background(), []braid.SourceSpec{{Path: dir, Name: "kb", ChunkTokens: 48}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Errors) > 0 {
		t.Fatalf("index errors: %v", sum.Errors)
	}
	return e, dir
}

func TestTwinHashes(t *testing.T) {
	a, b := testdata.SHA256Hex(testdata.TwinA), testdata.SHA256Hex(testdata.TwinB)
	if a[:8] != testdata.TwinPrefix || b[:8] != testdata.TwinPrefix || a[8] == b[8] {
		t.Fatalf("twin hashes %s and %s do not share exactly %s", a, b, testdata.TwinPrefix)
	}
}

func TestDocumentByHash(t *testing.T) {
	e, _ := navEngine(t)
	a := testdata.SHA256Hex(testdata.TwinA)
	tests := []struct {
		name, hash string
		want       string // path, or an error's sentinel and text
		err        error
		errText    string
	}{
		{name: "full", hash: a, want: "twin-a.md"},
		{name: "upper case", hash: strings.ToUpper(a), want: "twin-a.md"},
		{name: "nine digits", hash: a[:9], want: "twin-a.md"},
		{name: "shared prefix", hash: testdata.TwinPrefix, err: braid.ErrAmbiguous, errText: "twin-a.md"},
		{name: "same content", hash: testdata.SHA256Hex("# Copy\n\nthe same words in two files\n"), err: braid.ErrAmbiguous, errText: "content is the same"},
		{name: "too short", hash: a[:7], err: braid.ErrBadOption, errText: "at least 8"},
		{name: "not hex", hash: "zz" + a[2:20], err: braid.ErrBadOption, errText: "not a sha256"},
		{name: "no match", hash: "0000000000000000", err: braid.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := e.Notes().DocumentByHash(tt.hash)
			if tt.err != nil {
				if !errors.Is(err, tt.err) || !strings.Contains(fmt.Sprint(err), tt.errText) {
					t.Fatalf("DocumentByHash(%s) = %v, %v; want %v containing %q", tt.hash, d, err, tt.err, tt.errText)
				}
				return
			}
			if err != nil || d.Path != tt.want {
				t.Fatalf("DocumentByHash(%s) = %v, %v; want %s", tt.hash, d, err, tt.want)
			}
		})
	}
	// The ambiguity lists both candidates with enough of their hashes.
	_, err := e.Notes().DocumentByHash(testdata.TwinPrefix)
	for _, want := range []string{testdata.SHA256Hex(testdata.TwinA)[:16] + " twin-a.md", testdata.SHA256Hex(testdata.TwinB)[:16] + " twin-b.md", "matches 2 documents"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("ambiguity %q does not say %q", err, want)
		}
	}
	// Document and Get accept a hash too; an ambiguous one stays an error.
	if d, err := e.Notes().Document(a[:12]); err != nil || d.Path != "twin-a.md" {
		t.Errorf("Document(hash prefix) = %v, %v", d, err)
	}
	if c, err := e.Notes().Get(t.Context(), testdata.SHA256Hex(testdata.TwinB)); err != nil || string(c.Data) != testdata.TwinB {
		t.Errorf("Get(hash) = %v, %v", c, err)
	}
	if _, err := e.Notes().Document(testdata.TwinPrefix); !errors.Is(err, braid.ErrAmbiguous) {
		t.Errorf("Document(shared prefix): %v, want ErrAmbiguous", err)
	}
}

func TestSearchByHash(t *testing.T) {
	e, _ := navEngine(t)
	ctx := context.Background()
	a := testdata.SHA256Hex(testdata.TwinA)
	res, err := e.Search(ctx, "", braid.SearchOptions{Hash: a[:10]})
	if err != nil {
		t.Fatal(err)
	}
	if res.Lookup != braid.LookupHash || len(res.Results) != 1 || res.Results[0].Path != "twin-a.md" || res.Results[0].Score != 1 ||
		res.Results[0].ChunkID == "" || !strings.Contains(res.Results[0].Snippet, "77658") {
		t.Fatalf("search by hash: %+v", res)
	}
	// A query that is a hash is answered as one.
	res, err = e.Search(ctx, a[:12], braid.SearchOptions{})
	if err != nil || res.Lookup != braid.LookupHash || len(res.Results) != 1 || res.Results[0].Path != "twin-a.md" {
		t.Fatalf("search for a hash as the query: %+v, %v", res, err)
	}
	// Both documents sharing a prefix are hits of an automatic lookup; an
	// explicit one must name one.
	res, err = e.Search(ctx, testdata.TwinPrefix, braid.SearchOptions{})
	if err != nil || res.Lookup != braid.LookupHash || res.Total != 2 {
		t.Fatalf("search for a shared prefix: %+v, %v", res, err)
	}
	if _, err := e.Search(ctx, "", braid.SearchOptions{Hash: testdata.TwinPrefix}); !errors.Is(err, braid.ErrAmbiguous) {
		t.Errorf("explicit ambiguous hash: %v, want ErrAmbiguous", err)
	}
	if _, err := e.Search(ctx, "", braid.SearchOptions{Hash: "abc"}); !errors.Is(err, braid.ErrBadOption) {
		t.Errorf("explicit short hash: %v, want ErrBadOption", err)
	}
	if _, err := e.Search(ctx, "", braid.SearchOptions{Hash: "0000000000000000"}); !errors.Is(err, braid.ErrNotFound) {
		t.Errorf("explicit unknown hash: %v, want ErrNotFound", err)
	}
	// Filters apply: the path glob keeps twin-b only.
	res, err = e.Search(ctx, testdata.TwinPrefix, braid.SearchOptions{PathGlob: "twin-b*"})
	if err != nil || res.Total != 1 || res.Results[0].Path != "twin-b.md" {
		t.Errorf("hash search with a path filter: %+v, %v", res, err)
	}
	// A hex word that is no document's hash is searched for as a word.
	res, err = e.Search(ctx, "ab12cd34ef", braid.SearchOptions{})
	if err != nil || res.Lookup != "" {
		t.Errorf("a hex word matching no hash: %+v, %v; want an ordinary search", res, err)
	}
}

func TestRelated(t *testing.T) {
	e, _ := navEngine(t)
	r, err := e.Graph().Related("gardening", 1)
	if err != nil {
		t.Fatal(err)
	}
	var out, back []string
	for _, s := range r.Links {
		out = append(out, s.Path)
	}
	for _, s := range r.Backlinks {
		back = append(back, s.Path)
	}
	if diff := cmp.Diff([]string{"compost.md"}, out); diff != "" {
		t.Errorf("links (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"compost.md", "garden.md"}, back); diff != "" {
		t.Errorf("backlinks (-want +got):\n%s", diff)
	}
	r, err = e.Graph().Related("garden", 2)
	if err != nil || len(r.Links) != 2 || r.Links[1].Path != "compost.md" || r.Links[1].Depth != 2 {
		t.Errorf("depth 2 from garden: %+v, %v", r, err)
	}
	if _, err := e.Graph().Related("garden", 6); !errors.Is(err, braid.ErrBadOption) {
		t.Errorf("depth 6: %v, want ErrBadOption", err)
	}
}

func TestFind(t *testing.T) {
	e, dir := navEngine(t)
	paths := func(r *notes.FindResults) []string {
		var out []string
		for _, f := range r.Results {
			out = append(out, fmt.Sprintf("%s %s %s", f.Path, f.Match, f.Field))
		}
		return out
	}
	tests := []struct {
		name, query string
		opt         notes.FindOptions
		want        []string
	}{
		{"ranking", "garden", notes.FindOptions{}, []string{
			"garden.md exact title", // exact; the shorter path wins the tie
			"archive/garden.md exact name",
			"gardening.md prefix name", // "gardening" is closer to "garden" than "gardening guide"
			"notes/winter-garden.md word title",
			"bigardens.md substring title",
			"goat.md subsequence title", // g…a…r…d…e…n in "goat rider den"
		}},
		{"limit", "garden", notes.FindOptions{Limit: 2}, []string{"garden.md exact title", "archive/garden.md exact name"}},
		{"parent folder", "garden", notes.FindOptions{Parent: "notes"}, []string{"notes/winter-garden.md word title"}},
		{"parent under the source name", "garden", notes.FindOptions{Parent: "kb/notes/"}, []string{"notes/winter-garden.md word title"}},
		{"parent absolute", "garden", notes.FindOptions{Parent: filepath.Join(dir, "archive")}, []string{"archive/garden.md exact name"}},
		{"parent is the source", "plan", notes.FindOptions{Parent: "kb"}, []string{"notes/projects/alpha/plan.md exact name"}},
		{"separators", "winter garden", notes.FindOptions{}, []string{"notes/winter-garden.md exact title"}},
		{"path", "alpha/pl", notes.FindOptions{}, []string{"notes/projects/alpha/plan.md word path"}},
		{"no match", "zzz", notes.FindOptions{}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := e.Notes().Find(tt.query, tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, paths(r)); diff != "" {
				t.Errorf("Find(%q, %+v) (-want +got):\n%s", tt.query, tt.opt, diff)
			}
		})
	}
	r := testenv.Must1(e.Notes().Find("garden", notes.FindOptions{}))(t)
	for i := 1; i < len(r.Results); i++ {
		if r.Results[i].Score > r.Results[i-1].Score {
			t.Errorf("scores not descending: %+v", r.Results)
		}
	}
	if _, err := e.Notes().Find("garden", notes.FindOptions{Parent: "nowhere"}); !errors.Is(err, braid.ErrNotFound) {
		t.Errorf("unknown parent: %v, want ErrNotFound", err)
	}
	if _, err := e.Notes().Find(" ", notes.FindOptions{}); !errors.Is(err, braid.ErrBadOption) {
		t.Errorf("empty query: %v, want ErrBadOption", err)
	}
	// A new document is found once indexed: the name cache follows commits.
	testenv.Must(t, os.WriteFile(filepath.Join(dir, "gardenia.md"), []byte("# Gardenia\n"), 0o644))
	if _, err := e.Index(context.Background(), nil, nil); err != nil {
		t.Fatal(err)
	}
	r = testenv.Must1(e.Notes().Find("gardenia", notes.FindOptions{}))(t)
	if len(r.Results) != 1 || r.Results[0].Path != "gardenia.md" {
		t.Errorf("after indexing gardenia.md: %v", paths(r))
	}
}

func TestInfo(t *testing.T) {
	e, dir := navEngine(t)
	plan, err := e.Notes().Document("notes/projects/alpha/plan.md")
	if err != nil {
		t.Fatal(err)
	}
	srcs := testenv.Must1(e.Sources().List(t.Context()))(t)
	src := srcs[0]
	type node struct{ Type, ID, Name, Path, Title string }
	strip := func(in *notes.Info) []node {
		var out []node
		for _, n := range in.Ancestry {
			out = append(out, node{n.Type, n.ID, n.Name, n.Path, n.Title})
		}
		return out
	}
	docAnc := []node{
		{"source", src.ID, "kb", src.Path, ""},
		{"folder", index.FolderID(src.ID, "notes"), "notes", "notes", ""},
		{"folder", index.FolderID(src.ID, "notes/projects"), "projects", "notes/projects", ""},
		{"folder", index.FolderID(src.ID, "notes/projects/alpha"), "alpha", "notes/projects/alpha", ""},
		{"document", plan.ID, "plan.md", "notes/projects/alpha/plan.md", "Alpha Plan"},
	}
	for _, id := range []string{plan.ID, "notes/projects/alpha/plan.md", plan.Hash[:10], "Alpha Plan"} {
		in, err := e.Notes().Info(context.Background(), id)
		if err != nil {
			t.Fatalf("Info(%q): %v", id, err)
		}
		if in.Type != "document" || in.ID != plan.ID || in.SourceID != src.ID {
			t.Errorf("Info(%q) = %+v", id, in.InfoNode)
		}
		if diff := cmp.Diff(docAnc, strip(in)); diff != "" {
			t.Errorf("Info(%q) ancestry (-want +got):\n%s", id, diff)
		}
	}
	// A chunk under ### Q1 sits under # Plan and ## Budget.
	var q1 *braid.Chunk
	for _, cid := range plan.ChunkIDs {
		n, err := e.Notes().Around(cid, 0)
		if err != nil {
			t.Fatal(err)
		}
		if c := n.Chunks[0]; len(c.HeadingPath) == 3 && q1 == nil {
			q1 = c
		}
	}
	if q1 == nil {
		t.Fatal("no chunk under Plan › Budget › Q1")
	}
	in, err := e.Notes().Info(context.Background(), q1.ID)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(navVault()["notes/projects/alpha/plan.md"], "\n")
	want := append(docAnc, node{"heading", "", "Plan", plan.Path, ""}, node{"heading", "", "Budget", plan.Path, ""},
		node{"heading", "", "Q1", plan.Path, ""}, node{"chunk", q1.ID, "", plan.Path, "Alpha Plan"})
	if diff := cmp.Diff(want, strip(in)); diff != "" {
		t.Errorf("chunk ancestry (-want +got):\n%s", diff)
	}
	for _, n := range in.Ancestry[5:8] {
		if n.Lines == nil || lines[n.Lines.Start-1] != strings.Repeat("#", strings.Count(lines[n.Lines.Start-1], "#"))+" "+n.Name {
			t.Errorf("heading %q placed at %+v", n.Name, n.Lines)
		}
	}
	if in.Type != "chunk" || *in.Lines != (braid.Lines{Start: q1.StartLine, End: q1.EndLine}) {
		t.Errorf("chunk info %+v", in.InfoNode)
	}
	// Folders and sources are named as Find's parent is.
	for _, id := range []string{"notes/projects", "kb/notes/projects", filepath.Join(dir, "notes", "projects")} {
		in, err := e.Notes().Info(context.Background(), id)
		if err != nil || in.Type != "folder" || in.Path != "notes/projects" || len(in.Ancestry) != 3 {
			t.Errorf("Info(%q) = %+v, %v", id, in, err)
		}
	}
	if in, err := e.Notes().Info(context.Background(), "kb"); err != nil || in.Type != "source" || in.ID != src.ID || len(in.Ancestry) != 1 {
		t.Errorf("Info(kb) = %+v, %v", in, err)
	}
	if _, err := e.Notes().Info(context.Background(), "nothing/here"); !errors.Is(err, braid.ErrNotFound) {
		t.Errorf("Info(unknown): %v, want ErrNotFound", err)
	}
}

func TestCite(t *testing.T) {
	e, dir := navEngine(t)
	plan, err := e.Notes().Document("Alpha Plan")
	if err != nil {
		t.Fatal(err)
	}
	data := testenv.Must1(os.ReadFile(filepath.Join(dir, "notes/projects/alpha/plan.md")))(t)
	lines := strings.Split(string(data), "\n")
	for _, cid := range plan.ChunkIDs {
		c, err := e.Notes().Cite(context.Background(), cid)
		if err != nil {
			t.Fatal(err)
		}
		if c.File != filepath.Join(dir, "notes", "projects", "alpha", "plan.md") || c.Document != plan.ID || c.Title != "Alpha Plan" ||
			c.Path != "notes/projects/alpha/plan.md" {
			t.Errorf("Cite(%s) = %+v", cid, c)
		}
		want := fmt.Sprintf("[Alpha Plan](notes/projects/alpha/plan.md#L%d-L%d)", c.StartLine, c.EndLine)
		if c.StartLine == c.EndLine {
			want = fmt.Sprintf("[Alpha Plan](notes/projects/alpha/plan.md#L%d)", c.StartLine)
		}
		if c.Tag != want {
			t.Errorf("tag %q, want %q", c.Tag, want)
		}
		// The line range holds the chunk's text: its words, in order.
		span := strings.Join(strings.Fields(strings.Join(lines[c.StartLine-1:c.EndLine], " ")), " ")
		snip := strings.TrimSuffix(c.Snippet, "…")
		if !strings.Contains(span, snip) {
			t.Errorf("lines %d-%d of the file do not hold the snippet %q:\n%s", c.StartLine, c.EndLine, snip, span)
		}
		if len(c.Snippet) > 300+len("…") {
			t.Errorf("snippet is %d bytes, want about 300 at most", len(c.Snippet))
		}
	}
	// Markdown's special characters are escaped in the tag.
	d, err := e.Notes().Document("my notes/a (b).md")
	if err != nil {
		t.Fatal(err)
	}
	if c, err := e.Notes().Cite(context.Background(), d.ChunkIDs[0]); err != nil || c.Tag != `[A \[draft\]](my%20notes/a%20%28b%29.md#L4)` {
		t.Errorf("Cite of a file with spaces and brackets: %+v, %v", c, err)
	}
	if _, err := e.Notes().Cite(context.Background(), "nope#0"); !errors.Is(err, braid.ErrNotFound) || !strings.Contains(err.Error(), "chunk_id of a search hit") {
		t.Errorf("Cite(unknown) = %v", err)
	}
}
