package braid_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/grep"
	"github.com/braidsearch/braid/internal/testenv"
)

// writeVault creates a small vault and returns its directory.
func writeVault(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

var vault = map[string]string{
	"Gardening.md":     "---\ntitle: Gardening Guide\ntags: [plants, outdoor]\n---\n# Tomatoes\n\nTomatoes need full sun and deep watering.\nSee [[Compost]] and [[Soil|soil types]].\n\n## Pests\n\nAphids attack the leaves; ladybugs eat aphids.\n",
	"Compost.md":       "# Compost\n\nCompost turns kitchen scraps into humus. #soil\n\n```\n[[NotALink]] inside code\n```\n",
	"notes/cooking.md": "# Cooking\n\nRoast the tomatoes with garlic and olive oil.\n",
	"script.py":        "def water(plant):\n    return plant.water_level > 3\n",
	".hidden.md":       "# Hidden\n\nsecret tomatoes\n",
	"ignored/x.md":     "# Ignored\n\ntomatoes everywhere\n",
	".gitignore":       "ignored/\n",
	"sub/.gitignore":   "*.log\n!keep.log\n",
	"sub/drop.log":     "tomatoes in a log\n",
	"sub/keep.log":     "kept log line\n",
	"blob.bin":         "abc\x00def",
}

func openEngine(t *testing.T, opt *braid.Options) *braid.Engine {
	t.Helper()
	e, err := braid.Open(filepath.Join(t.TempDir(), "idx"), opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func TestIndexAndSearch(t *testing.T) {
	ctx := context.Background()
	dir := writeVault(t, vault)
	e := openEngine(t, nil)
	sum, err := e.Index(ctx, []braid.SourceSpec{{Path: dir}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Added != 5 || sum.Skipped.Hidden != 3 || sum.Skipped.Ignored != 2 || sum.Skipped.Binary != 1 {
		t.Errorf("summary added %d hidden %d ignored %d binary %d, want 5, 3 (.hidden.md and two .gitignore), 2 (ignored/, sub/drop.log), 1", sum.Added, sum.Skipped.Hidden, sum.Skipped.Ignored, sum.Skipped.Binary)
	}

	res, err := e.Search(ctx, "aphids ladybugs", braid.SearchOptions{Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Results) == 0 {
		t.Fatal("no results for aphids")
	}
	h := res.Results[0]
	if h.Path != "Gardening.md" || h.Title != "Gardening Guide" || h.Source != "lexical" {
		t.Errorf("top hit %s %q source %s, want Gardening.md %q lexical", h.Path, h.Title, h.Source, "Gardening Guide")
	}
	if diff := cmp.Diff([]string{"Tomatoes", "Pests"}, h.HeadingPath); diff != "" {
		t.Errorf("heading path (-want +got):\n%s", diff)
	}
	if h.Line.Start < 10 || h.Line.End > 13 {
		t.Errorf("line range %+v, want within the Pests section (lines 10-13)", h.Line)
	}
	if len(h.Highlights) == 0 || !strings.EqualFold(h.Snippet[h.Highlights[0].Start:h.Highlights[0].End], "aphids") {
		t.Errorf("highlights %v in %q, want the first on Aphids", h.Highlights, h.Snippet)
	}
	if h.Explain == nil || h.Explain.LexicalScore != h.Score || h.Explain.LexicalRank != 1 {
		t.Errorf("explain %+v, want lexical score %v at rank 1", h.Explain, h.Score)
	}

	// One hit per document by default; --chunks gives every chunk.
	res = testenv.Must1(e.Search(ctx, "tomatoes", braid.SearchOptions{}))(t)
	docs := map[string]bool{}
	for _, h := range res.Results {
		if docs[h.ID] {
			t.Errorf("document %s appears twice without Chunks", h.Path)
		}
		docs[h.ID] = true
	}
	if len(docs) != 2 {
		t.Errorf("tomatoes found in %d documents, want 2 (Gardening, cooking; hidden and ignored files are not indexed)", len(docs))
	}

	// Filters.
	for _, tc := range []struct {
		name string
		opt  braid.SearchOptions
		q    string
		want []string
	}{
		{"path glob", braid.SearchOptions{PathGlob: "notes/**"}, "tomatoes", []string{"notes/cooking.md"}},
		{"tag", braid.SearchOptions{Tags: []string{"plants"}}, "tomatoes", []string{"Gardening.md"}},
		{"inline tag", braid.SearchOptions{Tags: []string{"#soil"}}, "compost", []string{"Compost.md"}},
		{"phrase", braid.SearchOptions{}, `"olive oil"`, []string{"notes/cooking.md"}},
		{"exclusion", braid.SearchOptions{}, "tomatoes -garlic", []string{"Gardening.md"}},
		{"fuzzy", braid.SearchOptions{Fuzzy: true}, "ladybgs", []string{"Gardening.md"}},
		{"code identifier", braid.SearchOptions{}, `"water_level"`, []string{"script.py"}},
		{"source by name", braid.SearchOptions{Sources: []string{filepath.Base(dir)}}, "humus", []string{"Compost.md"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := e.Search(ctx, tc.q, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, h := range res.Results {
				got = append(got, h.Path)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Search(%q) paths (-want +got):\n%s", tc.q, diff)
			}
		})
	}

	// Links and tags are kept for the graph; links in code are not links.
	d, err := e.Notes().Document("Compost")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Links) != 0 || !slicesContains(d.Tags, "soil") {
		t.Errorf("Compost links %v tags %v, want no links (the one in a fence is code) and tag soil", d.Links, d.Tags)
	}
	g, err := e.Notes().Document("Gardening Guide")
	if err != nil {
		t.Fatal(err)
	}
	var targets []string
	for _, l := range g.Links {
		targets = append(targets, l.Target+"|"+l.Alt)
	}
	if diff := cmp.Diff([]string{"Compost|", "Soil|soil types"}, targets); diff != "" {
		t.Errorf("Gardening links (-want +got):\n%s", diff)
	}
}

func slicesContains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestIncremental(t *testing.T) {
	ctx := context.Background()
	dir := writeVault(t, map[string]string{"a.md": "# A\n\nalpha\n", "b.md": "# B\n\nbravo\n", "c.md": "# C\n\ncharlie\n"})
	e := openEngine(t, nil)
	if _, err := e.Index(ctx, []braid.SourceSpec{{Path: dir}}, nil); err != nil {
		t.Fatal(err)
	}
	// Unchanged: nothing rewritten.
	sum, err := e.Index(ctx, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Unchanged != 3 || sum.Added+sum.Updated+sum.Removed != 0 {
		t.Errorf("re-index unchanged: %+v, want 3 unchanged and nothing else", sum)
	}
	// Change one, delete one, add one.
	testenv.Must(t, os.WriteFile(filepath.Join(dir, "a.md"), []byte("# A\n\nalpha zulu\n"), 0o644))
	testenv.Must(t, os.Remove(filepath.Join(dir, "b.md")))
	testenv.Must(t, os.WriteFile(filepath.Join(dir, "d.md"), []byte("# D\n\ndelta\n"), 0o644))
	sum, err = e.Index(ctx, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Updated != 1 || sum.Removed != 1 || sum.Added != 1 || sum.Unchanged != 1 {
		t.Errorf("re-index after changes: %+v, want 1 updated, 1 removed, 1 added, 1 unchanged", sum)
	}
	for q, want := range map[string]int{"zulu": 1, "bravo": 0, "delta": 1, "charlie": 1} {
		res, err := e.Search(ctx, q, braid.SearchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Results) != want {
			t.Errorf("search %q: %d hits, want %d", q, len(res.Results), want)
		}
	}
	st, err := e.Stats(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if st.Documents != 3 || st.Chunks != 3 {
		t.Errorf("stats documents %d chunks %d, want 3 and 3", st.Documents, st.Chunks)
	}
	checks, err := e.Doctor(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range checks {
		if !c.OK {
			t.Errorf("doctor: %s: %s", c.Name, c.Detail)
		}
	}
	// Removing the source removes its documents.
	n, err := e.Sources().Remove(t.Context(), filepath.Base(dir))
	if err != nil || n != 3 {
		t.Fatalf("Sources().Remove = %d, %v; want 3, nil", n, err)
	}
	if st := testenv.Must1(e.Stats(t.Context()))(t); st.Documents != 0 || st.Chunks != 0 || len(st.Sources) != 0 {
		t.Errorf("after removal stats %+v, want empty", st)
	}
}

func TestBEIRCorpus(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	corpus := filepath.Join(dir, "corpus.jsonl")
	testenv.Must(t, os.WriteFile(corpus, []byte(`{"_id": "d1", "title": "Vitamin D", "text": "Vitamin D deficiency is linked to bone loss."}
{"_id": "d2", "title": "Sleep", "text": "Sleep deprivation impairs memory consolidation."}
this line is broken
{"title": "no id"}
{"_id": "d3", "title": "", "text": "Exercise improves insulin sensitivity."}
`), 0o644))
	e := openEngine(t, nil)
	sum, err := e.Index(ctx, []braid.SourceSpec{{Path: corpus}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Added != 3 || len(sum.Errors) != 2 {
		t.Fatalf("summary %+v, want 3 added and 2 errors", sum)
	}
	if sum.Errors[0].Line != 3 || sum.Errors[1].Line != 4 {
		t.Errorf("errors at lines %d and %d, want 3 and 4", sum.Errors[0].Line, sum.Errors[1].Line)
	}
	res, err := e.Search(ctx, "memory sleep", braid.SearchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Results) == 0 || res.Results[0].ID != "d2" {
		t.Fatalf("top hit %+v, want d2", res.Results)
	}
	// A record's title is matched as text, not as a boosted name.
	res, err = e.Search(ctx, "vitamin", braid.SearchOptions{Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Results) != 1 || res.Results[0].Explain.BM25 == nil {
		t.Fatalf("BEIR record explain: %+v, want a BM25 breakdown", res.Results)
	}
	for _, term := range res.Results[0].Explain.BM25.Terms {
		if term.Field != "content" {
			t.Errorf("BEIR record explain: term %+v, want content matches only", term)
		}
	}
	c, err := e.Notes().Get(t.Context(), "d2")
	if err != nil {
		t.Fatal(err)
	}
	if want := "Sleep\n\nSleep deprivation impairs memory consolidation.\n"; string(c.Data) != want || c.Changed {
		t.Errorf("Get(d2) = %q changed=%v, want %q unchanged", c.Data, c.Changed, want)
	}
}

func TestDocumentNames(t *testing.T) {
	ctx := context.Background()
	dir := writeVault(t, map[string]string{
		"Library/Core/Linked Mention.md": "# Linked Mention\n\ntext\n",
		"pages/dup.md":                   "---\ntitle: Same\n---\nx\n",
		"other/dup.md":                   "---\ntitle: Same\n---\ny\n",
	})
	e := openEngine(t, nil)
	if _, err := e.Index(ctx, []braid.SourceSpec{{Path: dir}}, nil); err != nil {
		t.Fatal(err)
	}
	want, err := e.Notes().Document("Library/Core/Linked Mention.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{want.ID, "Library/Core/Linked Mention", "Linked Mention", "linked mention", filepath.Join(dir, "Library/Core/Linked Mention.md")} {
		got, err := e.Notes().Document(name)
		if err != nil || got.ID != want.ID {
			t.Errorf("Document(%q) = %v, %v; want %s", name, got, err, want.ID)
		}
	}
	if _, err := e.Notes().Document("Same"); !errors.Is(err, braid.ErrAmbiguous) || !strings.Contains(err.Error(), "pages/dup.md") {
		t.Errorf("Document(Same) error = %v, want ErrAmbiguous naming both", err)
	}
	if _, err := e.Notes().Document("nope"); !errors.Is(err, braid.ErrNotFound) {
		t.Errorf("Document(nope) error = %v, want ErrNotFound", err)
	}
	// Get reads the file from disk and notices changes.
	p := filepath.Join(dir, "Library/Core/Linked Mention.md")
	testenv.Must(t, os.WriteFile(p, []byte("# Linked Mention\n\nnew text\n"), 0o644))
	c, err := e.Notes().Get(t.Context(), "Linked Mention")
	if err != nil {
		t.Fatal(err)
	}
	if !c.Changed || !strings.Contains(string(c.Data), "new text") {
		t.Errorf("Get after edit: changed=%v data=%q, want changed and the new text", c.Changed, c.Data)
	}
}

func TestBadInput(t *testing.T) {
	ctx := context.Background()
	dir := writeVault(t, map[string]string{"a.md": "# A\n\nalpha\n"})
	e := openEngine(t, nil)
	if _, err := e.Index(ctx, []braid.SourceSpec{{Path: dir}}, nil); err != nil {
		t.Fatal(err)
	}
	w := 1.7
	for name, q := range map[string]struct {
		q   string
		opt braid.SearchOptions
	}{
		"empty query":    {"  ", braid.SearchOptions{}},
		"weight":         {"alpha", braid.SearchOptions{VectorWeight: &w}},
		"invalid utf8":   {"a\xffb", braid.SearchOptions{}},
		"unknown source": {"alpha", braid.SearchOptions{Sources: []string{"nope"}}},
		"bad glob":       {"alpha", braid.SearchOptions{PathGlob: "a[b"}},
		"bad similarity": {"alpha", braid.SearchOptions{Fuzzy: true, Similarity: 3}},
		"negative limit": {"alpha", braid.SearchOptions{Limit: -1}},
	} {
		if _, err := e.Search(ctx, q.q, q.opt); err == nil {
			t.Errorf("%s: Search succeeded, want an error", name)
		}
	}
	bin := filepath.Join(t.TempDir(), "x.bin")
	testenv.Must(t, os.WriteFile(bin, []byte("a\x00b"), 0o644))
	bad := filepath.Join(t.TempDir(), "bad.txt")
	testenv.Must(t, os.WriteFile(bad, []byte("ok \xff\xfe not utf8"), 0o644))
	loop := filepath.Join(t.TempDir(), "loop")
	testenv.Must(t, os.Symlink(loop, loop))
	for name, p := range map[string]string{"missing": "/does/not/exist", "binary": bin, "not utf8": bad, "symlink loop": loop} {
		if _, err := e.Index(ctx, []braid.SourceSpec{{Path: p}}, nil); err == nil {
			t.Errorf("%s: Index(%s) succeeded, want an error", name, p)
		}
	}
	// The index is intact after all that.
	res, err := e.Search(ctx, "alpha", braid.SearchOptions{})
	if err != nil || len(res.Results) != 1 {
		t.Fatalf("after bad input search alpha = %v, %v; want one hit", res, err)
	}
	checks := testenv.Must1(e.Doctor(t.Context(), nil))(t)
	for _, c := range checks {
		if !c.OK && c.Name != "sources" {
			t.Errorf("doctor after bad input: %s: %s", c.Name, c.Detail)
		}
	}
	if err := e.Grep(ctx, "a(", braid.GrepOptions{}, func(grep.Result) error { return nil }); !errors.Is(err, grep.ErrBadPattern) {
		t.Errorf("Grep with invalid regex error = %v, want ErrBadPattern", err)
	}
}

func TestLocking(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "idx")
	w, err := braid.Open(dir, &braid.Options{Purpose: "test writer"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := braid.Open(dir, nil); !errors.Is(err, braid.ErrLocked) || !strings.Contains(err.Error(), "test writer") {
		t.Errorf("second writer error = %v, want ErrLocked naming the holder", err)
	}
	if _, err := braid.Open(dir, &braid.Options{ReadOnly: true}); !errors.Is(err, braid.ErrLocked) {
		t.Errorf("reader during write error = %v, want ErrLocked", err)
	}
	w.Close()
	r1, err := braid.Open(dir, &braid.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	r2, err := braid.Open(dir, &braid.Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("two readers: %v", err)
	}
	r1.Close()
	r2.Close()
	if _, err := braid.Open(filepath.Join(t.TempDir(), "none"), &braid.Options{ReadOnly: true}); !errors.Is(err, braid.ErrNoIndex) {
		t.Errorf("read-only open of a missing index error = %v, want ErrNoIndex", err)
	}
}

func TestGrep(t *testing.T) {
	ctx := context.Background()
	dir := writeVault(t, vault)
	e := openEngine(t, nil)
	if _, err := e.Index(ctx, []braid.SourceSpec{{Path: dir}}, nil); err != nil {
		t.Fatal(err)
	}
	var got []string
	err := e.Grep(ctx, "(?i)tomatoes", braid.GrepOptions{Name: func(abs string) string {
		r, _ := filepath.Rel(dir, abs)
		return r
	}}, func(r grep.Result) error {
		for _, l := range r.Lines {
			got = append(got, r.File.Name+":"+l.Text)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"Gardening.md:# Tomatoes",
		"Gardening.md:Tomatoes need full sun and deep watering.",
		"notes/cooking.md:Roast the tomatoes with garlic and olive oil.",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("grep over indexed files (-want +got):\n%s", diff)
	}
}

func TestRechunkOnNewChunkSize(t *testing.T) {
	ctx := context.Background()
	body := "# Long\n\n" + strings.Repeat("word ", 300) + "\n\n" + strings.Repeat("more ", 300) + "\n"
	dir := writeVault(t, map[string]string{"long.md": body})
	e := openEngine(t, nil)
	if _, err := e.Index(ctx, []braid.SourceSpec{{Path: dir}}, nil); err != nil {
		t.Fatal(err)
	}
	before := testenv.Must1(e.Stats(t.Context()))(t)
	sum, err := e.Index(ctx, []braid.SourceSpec{{Path: dir, ChunkTokens: 64}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	after := testenv.Must1(e.Stats(t.Context()))(t)
	if sum.Updated != 1 || after.Chunks <= before.Chunks {
		t.Errorf("new chunk size: %d updated, chunks %d -> %d; want the file re-chunked into more chunks", sum.Updated, before.Chunks, after.Chunks)
	}
	// The setting sticks: a plain re-index changes nothing.
	sum = testenv.Must1(e.Index(ctx, nil, nil))(t)
	if sum.Unchanged != 1 || sum.Updated != 0 {
		t.Errorf("re-index after the change: %+v, want unchanged", sum)
	}
	if _, err := e.Index(ctx, []braid.SourceSpec{{Path: dir, ChunkTokens: 8}}, nil); !errors.Is(err, braid.ErrBadOption) {
		t.Errorf("chunk size 8: error %v, want ErrBadOption", err)
	}
}
