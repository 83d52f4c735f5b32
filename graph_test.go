package braid_test

import (
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/graph"
	"github.com/braidsearch/braid/internal/testdata"
	"github.com/braidsearch/braid/internal/testenv"
	"github.com/braidsearch/braid/notes"
)

// indexed opens a fresh engine over the given directories.
func indexed(t *testing.T, opt *braid.Options, dirs ...string) *braid.Engine {
	t.Helper()
	e := openEngine(t, opt)
	var specs []braid.SourceSpec
	for _, d := range dirs {
		specs = append(specs, braid.SourceSpec{Path: d})
	}
	sum, err := e.Index(context.Background(), specs, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Errors) > 0 {
		t.Fatalf("index errors: %v", sum.Errors)
	}
	return e
}

func links(t *testing.T, e *braid.Engine, doc string, opt graph.LinkOptions) *graph.Links {
	t.Helper()
	l, err := e.Graph().Links(doc, opt)
	if err != nil {
		t.Fatalf("Links(%q, %+v): %v", doc, opt, err)
	}
	return l
}

// find returns the step that reached path, or nil.
func find(l *graph.Links, path string) *graph.Step {
	for i := range l.Links {
		if l.Links[i].Path == path || l.Links[i].ID == path {
			return &l.Links[i]
		}
	}
	return nil
}

func types(s *graph.Step) []string {
	var out []string
	for _, e := range s.Edges {
		if !slices.Contains(out, e.Type) {
			out = append(out, e.Type)
		}
	}
	return out
}

func mustContain(t *testing.T, file, text string) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), text) {
		t.Fatalf("%s no longer contains %q: the test data changed", file, text)
	}
}

func TestLinksSilverBullet(t *testing.T) {
	dir := testdata.Dir(t, "markdown/silverbullet/docs")
	e := indexed(t, nil, dir)

	t.Run("outgoing", func(t *testing.T) {
		mustContain(t, filepath.Join(dir, "Linked Mention.md"), "[[Link|link]]")
		l := links(t, e, "Linked Mention", graph.LinkOptions{})
		s := find(l, "Link.md")
		if s == nil || s.Depth != 1 || !slices.Contains(types(s), graph.Cites) {
			t.Fatalf("links of Linked Mention %+v: want Link.md cited at depth 1", l.Links)
		}
		if tag := find(l, "#glossary"); tag == nil || types(tag)[0] != graph.TaggedAs {
			t.Errorf("links of Linked Mention lack its frontmatter tag #glossary")
		}
		// The ```lua block's query[[ … ]] is not a link.
		for _, s := range l.Links {
			if strings.Contains(s.Target, "from") {
				t.Errorf("a link from a code block: %+v", s)
			}
		}
	})

	t.Run("backlinks through a frontmatter relation", func(t *testing.T) {
		mustContain(t, filepath.Join(dir, "ADR/008 Go Backend.md"), "supersededBy:\n  - \"[[ADR/010 Rust Backend]]\"")
		l := links(t, e, "ADR/010 Rust Backend", graph.LinkOptions{Reverse: true})
		s := find(l, "ADR/008 Go Backend.md")
		if s == nil || !slices.Contains(types(s), "supersededBy") {
			t.Fatalf("backlinks of ADR/010 %+v: want ADR/008 through supersededBy", l.Links)
		}
		only := links(t, e, "ADR/010 Rust Backend", graph.LinkOptions{Reverse: true, Relation: "SUPERSEDEDBY"})
		if len(only.Links) != 1 || only.Links[0].Path != "ADR/008 Go Backend.md" {
			t.Errorf("supersededBy backlinks of ADR/010: %+v, want ADR/008 alone", only.Links)
		}
	})

	t.Run("depth 2", func(t *testing.T) {
		mustContain(t, filepath.Join(dir, "ADR/010 Rust Backend.md"), "[[ADR/009 Client Build Toolchain]]")
		one := links(t, e, "ADR/008 Go Backend", graph.LinkOptions{Depth: 1})
		if find(one, "ADR/009 Client Build Toolchain.md") != nil {
			t.Fatal("ADR/008 links ADR/009 directly; the depth-2 check below proves nothing")
		}
		two := links(t, e, "ADR/008 Go Backend", graph.LinkOptions{Depth: 2})
		s := find(two, "ADR/009 Client Build Toolchain.md")
		if s == nil || s.Depth != 2 || s.Via[1] != "ADR/010 Rust Backend.md" && s.Via[1] != "ADR/007 Core Application Logic on the Client.md" {
			t.Fatalf("depth 2 from ADR/008: %+v, want ADR/009 at depth 2 through another ADR", s)
		}
		var first, firstOfTwo []string
		for _, st := range one.Links {
			first = append(first, st.ID+st.Target)
		}
		for _, st := range two.Links {
			if st.Depth == 1 {
				firstOfTwo = append(firstOfTwo, st.ID+st.Target)
			}
			if st.Depth < 1 || st.Depth > 2 || len(st.Via) != st.Depth+1 || st.Via[0] != "ADR/008 Go Backend.md" {
				t.Errorf("step %s: depth %d via %v", st.Path, st.Depth, st.Via)
			}
		}
		if diff := cmp.Diff(first, firstOfTwo); diff != "" {
			t.Errorf("the first step of the depth-2 walk differs from the depth-1 walk (-want +got):\n%s", diff)
		}
	})

	t.Run("tags backwards", func(t *testing.T) {
		l := links(t, e, "#adr", graph.LinkOptions{Reverse: true})
		if len(l.Links) != 10 {
			t.Errorf("documents tagged #adr: %d, want the 10 ADRs", len(l.Links))
		}
	})

	t.Run("broken", func(t *testing.T) {
		broken, err := e.Graph().BrokenLinks()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(dir, "pwa-screenshot.png")); err == nil {
			t.Fatal("pwa-screenshot.png exists now: the test data changed")
		}
		var got []string
		for _, b := range broken {
			got = append(got, b.Doc.Path+" "+b.Target)
			if strings.Contains(b.Target, "${") || strings.Contains(b.Target, `"`) || strings.Contains(b.Target, "index.") {
				t.Errorf("Lua taken for a link: %s:%d %q", b.Doc.Path, b.Line, b.Target)
			}
			if inFence(t, filepath.Join(dir, b.Doc.Path), b.Line) {
				t.Errorf("a link from a code block: %s:%d %q", b.Doc.Path, b.Line, b.Target)
			}
		}
		for _, want := range []string{"Browser.md pwa-screenshot.png", "Object/aspiring-page.md Like this one", "Object/relation.md Angela"} {
			if !slices.Contains(got, want) {
				t.Errorf("broken links lack %q", want)
			}
		}
		for _, resolved := range []string{"SilverBullet.md ^Library/Website Templates", "API/index.md Outline Stress Test@1458", "Link.md CHANGELOG@L12c42"} {
			if slices.Contains(got, resolved) {
				t.Errorf("%q is listed broken; its page exists", resolved)
			}
		}
	})

	t.Run("orphans", func(t *testing.T) {
		orphans, err := e.Graph().Orphans()
		if err != nil {
			t.Fatal(err)
		}
		if len(orphans) == 0 || len(orphans) > 50 {
			t.Fatalf("%d orphans of 225 documents", len(orphans))
		}
		for _, o := range orphans {
			for _, reverse := range []bool{false, true} {
				for _, s := range links(t, e, o.ID, graph.LinkOptions{Reverse: reverse}).Links {
					if !s.Broken && s.Target == "" && !strings.HasPrefix(s.ID, "#") && s.ID != o.ID {
						t.Errorf("orphan %s is linked with %s (reverse %v)", o.Path, s.Path, reverse)
					}
				}
			}
		}
	})
}

// inFence reports whether line of file is inside a ``` or ~~~ block.
func inFence(t *testing.T, file string, line int) bool {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	open := ""
	for i, l := range strings.Split(string(b), "\n") {
		trimmed := strings.TrimSpace(l)
		if i+1 == line {
			return open != ""
		}
		for _, f := range []string{"```", "~~~"} {
			if open == "" && strings.HasPrefix(trimmed, f) {
				open = f
			} else if open == f && strings.HasPrefix(trimmed, f) {
				open = ""
			}
		}
	}
	return false
}

func TestLinksDendron(t *testing.T) {
	dir := testdata.Dir(t, "markdown/dendron/vault")
	testenv.Slow(t, "indexes the Dendron vault")
	e := indexed(t, nil, dir)
	mustContain(t, filepath.Join(dir, "dendron.tutorial.vaults.md"), "[[Remove Vault|dendron.ref.commands#remove-vault]]")
	mustContain(t, filepath.Join(dir, "changelog.md"), "[[docs|dendron://dendron.dendron-site/dendron.topic.lookup.create]]")
	tests := []struct{ from, to string }{
		{"dendron.tutorial.vaults", "dendron.ref.commands.md"}, // [[label|target#heading]]
		{"changelog", "dendron.topic.lookup.create.md"},        // [[label|dendron://vault/target]]
		{"dendron.tutorial.vaults", "dendron.topic.vaults.md"}, // plain [[target]]
	}
	for _, tt := range tests {
		l := links(t, e, tt.from, graph.LinkOptions{})
		s := find(l, tt.to)
		if s == nil || s.Broken {
			t.Errorf("links of %s lack %s", tt.from, tt.to)
		}
	}
	back := links(t, e, "dendron.ref.commands", graph.LinkOptions{Reverse: true})
	if find(back, "dendron.tutorial.vaults.md") == nil {
		t.Errorf("backlinks of dendron.ref.commands lack dendron.tutorial.vaults.md")
	}
}

// TestLinksFollowChanges re-indexes a vault as its files change, appear and
// go: the graph follows.
func TestLinksFollowChanges(t *testing.T) {
	ctx := context.Background()
	dir := writeVault(t, map[string]string{
		"A.md":       "---\ndependsOn: \"[[B]]\"\n---\n# A\n\nSee [[B]] and [[C|the c page]] and [local](sub/D.md). #alpha\n",
		"sub/D.md":   "# D\n\n![[A]]\n",
		"Orphan.md":  "# Orphan\n\nNothing links here.\n",
		"Stay.md":    "# Stay\n\n[[Orphan]]\n",
		"ignored.md": "```\n[[NotALink]]\n```\n",
	})
	e := indexed(t, nil, dir)
	reindex := func() {
		t.Helper()
		if _, err := e.Index(ctx, nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	brokenTargets := func() []string {
		t.Helper()
		bs, err := e.Graph().BrokenLinks()
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, b := range bs {
			out = append(out, b.Doc.Path+">"+b.Target)
		}
		return out
	}
	if diff := cmp.Diff([]string{"A.md>B", "A.md>B", "A.md>C"}, brokenTargets()); diff != "" {
		t.Errorf("broken before B and C exist (-want +got):\n%s", diff)
	}
	// B and C appear: A's links resolve without A being re-read.
	testenv.Must(t, os.WriteFile(filepath.Join(dir, "B.md"), []byte("# B\n"), 0o644))
	testenv.Must(t, os.WriteFile(filepath.Join(dir, "C.md"), []byte("# C\n"), 0o644))
	reindex()
	if got := brokenTargets(); len(got) != 0 {
		t.Errorf("broken after adding B and C: %v", got)
	}
	l := links(t, e, "B", graph.LinkOptions{Reverse: true})
	if s := find(l, "A.md"); s == nil || !cmp.Equal(types(s), []string{"dependsOn", graph.Cites}) {
		t.Errorf("backlinks of B: %+v, want A through dependsOn and CITES", l.Links)
	}
	l = links(t, e, "A", graph.LinkOptions{Depth: 2})
	if s := find(l, "sub/D.md"); s == nil || types(s)[0] != graph.LinksTo {
		t.Errorf("A's markdown link to sub/D.md: %+v", s)
	}
	// A changes: it no longer cites C.
	testenv.Must(t, os.WriteFile(filepath.Join(dir, "A.md"), []byte("# A\n\nOnly [[B]] now.\n"), 0o644))
	reindex()
	if l := links(t, e, "C", graph.LinkOptions{Reverse: true}); len(l.Links) != 0 {
		t.Errorf("backlinks of C after A dropped its link: %+v", l.Links)
	}
	if l := links(t, e, "sub/D", graph.LinkOptions{Reverse: true}); len(l.Links) != 0 {
		t.Errorf("backlinks of D after A dropped its link: %+v", l.Links)
	}
	// B goes: A's link is broken again; Orphan goes: Stay's link is broken.
	testenv.Must(t, os.Remove(filepath.Join(dir, "B.md")))
	testenv.Must(t, os.Remove(filepath.Join(dir, "Orphan.md")))
	reindex()
	if diff := cmp.Diff([]string{"A.md>B", "Stay.md>Orphan"}, brokenTargets()); diff != "" {
		t.Errorf("broken after deleting B and Orphan (-want +got):\n%s", diff)
	}
	orphans := testenv.Must1(e.Graph().Orphans())(t)
	var names []string
	for _, o := range orphans {
		names = append(names, o.Path)
	}
	// D embeds A, so both are joined; the rest have nothing now.
	if diff := cmp.Diff([]string{"C.md", "Stay.md", "ignored.md"}, names); diff != "" {
		t.Errorf("orphans (-want +got):\n%s", diff)
	}
	if _, err := e.Graph().Links("A", graph.LinkOptions{Depth: 6}); !errors.Is(err, braid.ErrBadOption) {
		t.Errorf("depth 6: error %v, want ErrBadOption", err)
	}
	if _, err := e.Graph().Links("no such page", graph.LinkOptions{}); !errors.Is(err, braid.ErrNotFound) {
		t.Errorf("unknown document: error %v, want ErrNotFound", err)
	}
}

var gapVault = map[string]string{
	"Compost.md":   "# Compost\n\nCompost turns kitchen scraps into humus. Turn the compost heap weekly; worms and humus feed the soil.\n",
	"Soil.md":      "# Soil\n\nHealthy soil is rich in humus. Add compost and worms to the soil, turn it in spring.\n",
	"Borrow.md":    "# Borrowing\n\nThe borrow checker verifies every reference: lifetimes, mutable borrows and shared borrows. [[Lifetimes]]\n",
	"Lifetimes.md": "# Lifetimes\n\nLifetimes tell the borrow checker how long a reference lives; mutable borrows are exclusive.\n",
	"Piano.md":     "# Piano\n\nPlay the scale slowly on the piano, then faster, hands apart.\n",
	"Bread.md":     "# Bread\n\nKnead the dough, let it rise overnight, then bake it hot.\n",
}

func TestGapsLexicalFallback(t *testing.T) {
	e := indexed(t, nil, writeVault(t, gapVault))
	rep, err := e.Graph().Gaps(context.Background(), graph.GapOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Method != "lexical" || !strings.Contains(rep.Warning, "lexical") || rep.Documents != len(gapVault) {
		t.Errorf("report method %q warning %q documents %d: want lexical, a warning saying so, %d documents", rep.Method, rep.Warning, rep.Documents, len(gapVault))
	}
	if len(rep.Gaps) != 1 {
		t.Fatalf("gaps %+v, want compost-soil alone (the Rust pair is linked)", rep.Gaps)
	}
	g := rep.Gaps[0]
	pair := []string{g.A.Path, g.B.Path}
	slices.Sort(pair)
	if !cmp.Equal(pair, []string{"Compost.md", "Soil.md"}) || g.Similarity < rep.Threshold || !slices.Contains(g.Terms, "humus") {
		t.Errorf("gap %v %.3f terms %v", pair, g.Similarity, g.Terms)
	}
	if g.Suggest.Type != graph.Cites || g.Reason == "" {
		t.Errorf("suggestion %+v reason %q: Compost names Soil, so cite it", g.Suggest, g.Reason)
	}
	if _, err := e.Graph().Gaps(context.Background(), graph.GapOptions{Threshold: 2}); !errors.Is(err, braid.ErrBadOption) {
		t.Errorf("threshold 2: error %v, want ErrBadOption", err)
	}
}

func TestGapsEmbeddings(t *testing.T) {
	vault := maps.Clone(gapVault)
	// Frontmatter alone: no body, so no chunk and nothing to embed. It is
	// left out, not reported as missing its embedding (issue 20).
	vault["Empty.md"] = "---\ntitle: Only frontmatter\ntags: [draft]\n---\n"
	dir := writeVault(t, vault)
	e, _ := tinyEngine(t, filepath.Join(t.TempDir(), "idx"))
	if _, err := e.Index(context.Background(), []braid.SourceSpec{{Path: dir}}, nil); err != nil {
		t.Fatal(err)
	}
	// The tiny model has random weights: its similarities mean nothing,
	// but the path must be the embedding one, and the rules hold.
	rep, err := e.Graph().Gaps(context.Background(), graph.GapOptions{Threshold: 0.01, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Method != "embeddings" || rep.Warning != "" || rep.Documents != len(gapVault) || rep.Threshold != 0.01 {
		t.Fatalf("method %q warning %q documents %d threshold %v: want embeddings over every document with text, no warning, 0.01",
			rep.Method, rep.Warning, rep.Documents, rep.Threshold)
	}
	if len(rep.Gaps) == 0 {
		t.Fatal("no gaps at threshold 0.01")
	}
	for i, g := range rep.Gaps {
		pair := []string{g.A.Path, g.B.Path}
		slices.Sort(pair)
		if cmp.Equal(pair, []string{"Borrow.md", "Lifetimes.md"}) {
			t.Errorf("a linked pair is listed as a gap: %v", pair)
		}
		if g.Similarity < 0.01 || g.Similarity > 1 || i > 0 && g.Similarity > rep.Gaps[i-1].Similarity {
			t.Errorf("gap %d %v similarity %.4f out of order or range", i, pair, g.Similarity)
		}
		if !strings.Contains(g.Reason, "embeddings") {
			t.Errorf("reason %q does not name the method", g.Reason)
		}
	}
}

func TestTag(t *testing.T) {
	ctx := context.Background()
	outside := t.TempDir()
	testenv.Must(t, os.WriteFile(filepath.Join(outside, "secret.md"), []byte("# Secret\n"), 0o644))
	dir := writeVault(t, map[string]string{
		"plain.md":   "# Plain\n\nNo frontmatter, no final newline.",
		"crlf.md":    "---\r\ntags: [old]\r\ntitle: CRLF\r\n---\r\nBody\r\n",
		"script.txt": "not markdown\n",
	})
	testenv.Must(t, os.Chmod(filepath.Join(dir, "plain.md"), 0o640))
	testenv.Must(t, os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(dir, "escape.md")))
	e := indexed(t, nil, dir)

	res, err := e.Tag(ctx, filepath.Join(dir, "plain.md"), []string{"#garden", "ideas"}, "")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"garden", "ideas"}, res.Added); diff != "" {
		t.Errorf("added (-want +got):\n%s", diff)
	}
	b := testenv.Must1(os.ReadFile(filepath.Join(dir, "plain.md")))(t)
	if string(b) != "---\ntags: [garden, ideas]\n---\n# Plain\n\nNo frontmatter, no final newline." {
		t.Errorf("plain.md became %q", b)
	}
	if info, _ := os.Stat(filepath.Join(dir, "plain.md")); info.Mode().Perm() != 0o640 {
		t.Errorf("plain.md mode %v, want 0640 kept", info.Mode().Perm())
	}
	// Re-indexed: the tags are searchable at once.
	found, err := e.Search(ctx, "frontmatter", braid.SearchOptions{Tags: []string{"garden"}})
	if err != nil || len(found.Results) != 1 || found.Results[0].Path != "plain.md" {
		t.Errorf("search with tag garden: %+v %v", found, err)
	}
	if l := links(t, e, "#ideas", graph.LinkOptions{Reverse: true}); len(l.Links) != 1 {
		t.Errorf("#ideas tags %d documents, want 1", len(l.Links))
	}

	res, err = e.Tag(ctx, "crlf", []string{"old", "new"}, braid.TagComment)
	if err != nil {
		t.Fatal(err)
	}
	b = testenv.Must1(os.ReadFile(filepath.Join(dir, "crlf.md")))(t)
	if string(b) != "---\r\ntags: [old]\r\ntitle: CRLF\r\n---\r\nBody\r\n\r\n<!-- tags: new -->\r\n" || !slices.Equal(res.Tags, []string{"old", "new"}) {
		t.Errorf("crlf.md became %q, tags %v", b, res.Tags)
	}
	// Nothing new: nothing written.
	before := testenv.Must1(os.Stat(filepath.Join(dir, "crlf.md")))(t)
	if res, err := e.Tag(ctx, "crlf", []string{"NEW"}, ""); err != nil || len(res.Added) != 0 {
		t.Errorf("re-adding a tag: %+v %v", res, err)
	}
	if after, _ := os.Stat(filepath.Join(dir, "crlf.md")); !after.ModTime().Equal(before.ModTime()) {
		t.Error("a tag the file had already made braid rewrite it")
	}

	refusals := []struct {
		name, file string
		want       error
	}{
		{"outside every source", filepath.Join(outside, "secret.md"), notes.ErrOutside},
		{"a symbolic link out of the source", filepath.Join(dir, "escape.md"), notes.ErrOutside},
		{"dot-dot out of the source", filepath.Join(dir, "..", filepath.Base(outside), "secret.md"), notes.ErrOutside},
		{"not markdown", filepath.Join(dir, "script.txt"), braid.ErrBadOption},
		{"no such document", "nowhere", braid.ErrNotFound},
	}
	for _, tt := range refusals {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := e.Tag(ctx, tt.file, []string{"x"}, ""); !errors.Is(err, tt.want) {
				t.Errorf("error %v, want %v", err, tt.want)
			}
		})
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "secret.md")); string(b) != "# Secret\n" {
		t.Errorf("the file outside was changed: %q", b)
	}
	if _, err := e.Tag(ctx, "plain", []string{"two words"}, ""); err == nil {
		t.Error("a tag with a space was accepted")
	}
}

func TestTree(t *testing.T) {
	dir := writeVault(t, map[string]string{
		"a.md": "a", "x/b.md": "b", "x/y/c.md": "c", "x/y/d.md": "d", "z/e.md": "e", "x y/f.md": "f",
	})
	e := indexed(t, nil, dir)
	tree, err := e.Notes().Tree()
	if err != nil {
		t.Fatal(err)
	}
	if len(tree) != 1 {
		t.Fatalf("%d roots, want 1", len(tree))
	}
	type folder struct {
		Path       string
		Docs, Here int
	}
	var got []folder
	var walk func(fs []*notes.Folder)
	walk = func(fs []*notes.Folder) {
		for _, f := range fs {
			got = append(got, folder{f.Path, f.Docs, f.Here})
			walk(f.Folders)
		}
	}
	walk(tree)
	want := []folder{{"", 6, 1}, {"x y", 1, 1}, {"x", 3, 1}, {"x/y", 2, 2}, {"z", 1, 1}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tree (-want +got):\n%s", diff)
	}
	if tree[0].Dir == "" || tree[0].SourceID == "" {
		t.Errorf("root %+v lacks its source", tree[0])
	}
}
