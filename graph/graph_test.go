package graph

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	bolt "go.etcd.io/bbolt"

	"github.com/braidsearch/braid/internal/testenv"
)

func openDB(t *testing.T) *bolt.DB {
	t.Helper()
	db, err := bolt.Open(filepath.Join(t.TempDir(), "g.db"), 0o644, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Update(Init); err != nil {
		t.Fatal(err)
	}
	return db
}

type doc struct {
	node  Node
	edges []Edge
}

func put(t *testing.T, db *bolt.DB, docs ...doc) {
	t.Helper()
	err := db.Update(func(tx *bolt.Tx) error {
		for _, d := range docs {
			if err := Put(tx, d.node, d.edges); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, db *bolt.DB, fn func(r *Reader)) {
	t.Helper()
	if err := db.View(func(tx *bolt.Tx) error { fn(Read(tx)); return nil }); err != nil {
		t.Fatal(err)
	}
}

// vault is a small graph in two sources: s1 a notes folder, s2 another.
var vault = []doc{
	{Node{ID: "gard", SourceID: "s1", Path: "garden/Gardening.md", Title: "Gardening Guide", Aliases: []string{"Green Thumb"}}, []Edge{
		{Type: Cites, Target: "Compost", Line: 3},                 // file name, another folder
		{Type: Cites, Target: "soil types", Alt: "Soil", Line: 4}, // Dendron order: label first
		{Type: Cites, Target: "Soil", Alt: "the ground", Line: 5}, // Obsidian order
		{Type: LinksTo, Target: "../kitchen/Cooking%20Tips.md", Line: 6},
		{Type: LinksTo, Target: "img/plot.png", Line: 7},       // a file, not a document
		{Type: Embeds, Target: "Missing Page", Line: 8},        // broken
		{Type: "supersededBy", Target: "GARDENING 2", Line: 2}, // title, any case
		{Type: TaggedAs, Target: "Plants"},
	}},
	{Node{ID: "comp", SourceID: "s1", Path: "Compost.md", Title: "Compost"}, []Edge{
		{Type: Cites, Target: "dendron://vault/soil", Line: 1}, // Dendron cross-vault prefix
		{Type: Cites, Target: "Green Thumb", Line: 2},          // alias
		{Type: TaggedAs, Target: "plants"},
	}},
	{Node{ID: "soil", SourceID: "s1", Path: "Soil.md", Title: "Soil"}, nil},
	{Node{ID: "soil2", SourceID: "s2", Path: "Soil.md", Title: "Soil"}, nil}, // same name, other source
	{Node{ID: "cook", SourceID: "s1", Path: "kitchen/Cooking Tips.md", Title: "Cooking"}, []Edge{
		{Type: LinksTo, Target: "/Compost.md", Line: 1},         // source root
		{Type: LinksTo, Target: "garden/Gardening.md", Line: 2}, // vault-absolute without a slash
	}},
	{Node{ID: "g2", SourceID: "s1", Path: "Gardening 2.md", Title: "Gardening 2"}, nil},
	{Node{ID: "lone", SourceID: "s1", Path: "Lone.md", Title: "Lone"}, []Edge{{Type: Cites, Target: "Lone", Line: 1}}},
}

func targets(edges []Edge) []string {
	var out []string
	for _, e := range edges {
		to := e.To
		if e.File != "" {
			to = "file:" + e.File
		}
		out = append(out, e.Type+" "+e.From+">"+to)
	}
	return out
}

func TestResolve(t *testing.T) {
	db := openDB(t)
	put(t, db, vault...)
	read(t, db, func(r *Reader) {
		r.Exists = func(src, p string) bool { return src == "s1" && p == "garden/img/plot.png" }
		out, err := r.Out("gard")
		if err != nil {
			t.Fatal(err)
		}
		want := []string{
			"CITES gard>comp",
			"CITES gard>soil", // the label side misses; the target side hits, same source first
			"CITES gard>soil",
			"LINKS_TO gard>cook",
			"LINKS_TO gard>file:garden/img/plot.png",
			"EMBEDS gard>",
			"supersededBy gard>g2",
			"TAGGED_AS gard>#Plants",
		}
		if diff := cmp.Diff(want, targets(out)); diff != "" {
			t.Errorf("Out(gard) (-want +got):\n%s", diff)
		}
		out = testenv.Must1(r.Out("comp"))(t)
		if diff := cmp.Diff([]string{"CITES comp>soil", "CITES comp>gard", "TAGGED_AS comp>#plants"}, targets(out)); diff != "" {
			t.Errorf("Out(comp) (-want +got):\n%s", diff)
		}
		out = testenv.Must1(r.Out("cook"))(t)
		if diff := cmp.Diff([]string{"LINKS_TO cook>comp", "LINKS_TO cook>gard"}, targets(out)); diff != "" {
			t.Errorf("Out(cook) (-want +got):\n%s", diff)
		}
		in := testenv.Must1(r.In("soil"))(t)
		if diff := cmp.Diff([]string{"CITES comp>soil", "CITES gard>soil", "CITES gard>soil"}, targets(in)); diff != "" {
			t.Errorf("In(soil) (-want +got):\n%s", diff)
		}
		if in := testenv.Must1(r.In("soil2"))(t); len(in) != 0 {
			t.Errorf("In(soil2) = %v: links prefer their own source's Soil", targets(in))
		}
		in = testenv.Must1(r.In("#PLANTS"))(t)
		if diff := cmp.Diff([]string{"TAGGED_AS comp>#plants", "TAGGED_AS gard>#Plants"}, targets(in)); diff != "" {
			t.Errorf("In(#PLANTS) (-want +got):\n%s", diff)
		}
	})
}

func TestWalk(t *testing.T) {
	db := openDB(t)
	put(t, db, vault...)
	type step struct {
		Via    []string
		Depth  int
		Broken bool
	}
	walk := func(start string, opt WalkOptions) []step {
		var out []step
		read(t, db, func(r *Reader) {
			steps, err := r.Walk(start, opt)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range steps {
				out = append(out, step{s.Via, s.Depth, s.Broken})
			}
		})
		return out
	}
	tests := []struct {
		name  string
		start string
		opt   WalkOptions
		want  []step
	}{
		{"cook, two steps, only LINKS_TO", "cook", WalkOptions{Depth: 2, Relation: "links_to"}, []step{
			{[]string{"kitchen/Cooking Tips.md", "Compost.md"}, 1, false},
			{[]string{"kitchen/Cooking Tips.md", "garden/Gardening.md"}, 1, false},
			{[]string{"kitchen/Cooking Tips.md", "garden/Gardening.md", "img/plot.png"}, 2, true},
		}},
		{"compost forward, depth 2", "comp", WalkOptions{Depth: 2}, []step{
			{[]string{"Compost.md", "Soil.md"}, 1, false},
			{[]string{"Compost.md", "garden/Gardening.md"}, 1, false},
			{[]string{"Compost.md", "#plants"}, 1, false},
			{[]string{"Compost.md", "garden/Gardening.md", "kitchen/Cooking Tips.md"}, 2, false},
			{[]string{"Compost.md", "garden/Gardening.md", "img/plot.png"}, 2, true},
			{[]string{"Compost.md", "garden/Gardening.md", "Missing Page"}, 2, true},
			{[]string{"Compost.md", "garden/Gardening.md", "Gardening 2.md"}, 2, false},
		}},
		{"backlinks of soil, depth 3", "soil", WalkOptions{Depth: 3, Reverse: true}, []step{
			{[]string{"Soil.md", "Compost.md"}, 1, false},
			{[]string{"Soil.md", "garden/Gardening.md"}, 1, false},
			{[]string{"Soil.md", "Compost.md", "kitchen/Cooking Tips.md"}, 2, false},
		}},
		{"documents tagged plants", "#plants", WalkOptions{Reverse: true}, []step{
			{[]string{"#plants", "Compost.md"}, 1, false},
			{[]string{"#plants", "garden/Gardening.md"}, 1, false},
		}},
		{"a frontmatter relation, backwards", "g2", WalkOptions{Reverse: true, Relation: "supersededby"}, []step{
			{[]string{"Gardening 2.md", "garden/Gardening.md"}, 1, false},
		}},
		{"a self link goes nowhere", "lone", WalkOptions{Depth: 5}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, walk(tt.start, tt.opt)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	read(t, db, func(r *Reader) {
		if _, err := r.Walk("comp", WalkOptions{Depth: 6}); !errors.Is(err, ErrDepth) {
			t.Errorf("depth 6: error %v, want ErrDepth", err)
		}
	})
}

func TestBrokenOrphansAndChanges(t *testing.T) {
	db := openDB(t)
	put(t, db, vault...)
	broken := func() []string {
		var out []string
		read(t, db, func(r *Reader) {
			bs, err := r.Broken()
			if err != nil {
				t.Fatal(err)
			}
			for _, b := range bs {
				out = append(out, b.Doc.Path+":"+b.Target)
			}
		})
		return out
	}
	orphans := func() []string {
		var out []string
		read(t, db, func(r *Reader) {
			ns, err := r.Orphans()
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range ns {
				out = append(out, n.ID)
			}
		})
		return out
	}
	if diff := cmp.Diff([]string{"garden/Gardening.md:img/plot.png", "garden/Gardening.md:Missing Page"}, broken()); diff != "" {
		t.Errorf("broken (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"lone", "soil2"}, orphans()); diff != "" {
		t.Errorf("orphans (-want +got):\n%s", diff)
	}
	// The missing page appears: the link resolves without re-reading Gardening.
	put(t, db, doc{Node{ID: "miss", SourceID: "s1", Path: "notes/missing page.md", Title: "x"}, nil})
	if diff := cmp.Diff([]string{"garden/Gardening.md:img/plot.png"}, broken()); diff != "" {
		t.Errorf("broken after adding the page (-want +got):\n%s", diff)
	}
	// Soil goes: its backlinks now find the other source's Soil.
	err := db.Update(func(tx *bolt.Tx) error { return Delete(tx, "soil") })
	if err != nil {
		t.Fatal(err)
	}
	read(t, db, func(r *Reader) {
		in := testenv.Must1(r.In("soil2"))(t)
		if diff := cmp.Diff([]string{"CITES comp>soil2", "CITES gard>soil2", "CITES gard>soil2"}, targets(in)); diff != "" {
			t.Errorf("In(soil2) after deleting soil (-want +got):\n%s", diff)
		}
		if n := testenv.Must1(r.Node("soil"))(t); n != nil {
			t.Errorf("deleted node still there: %+v", n)
		}
	})
	// Compost changes: its old edges go, the new ones count.
	put(t, db, doc{Node{ID: "comp", SourceID: "s1", Path: "Compost.md", Title: "Compost"}, []Edge{{Type: Cites, Target: "Lone"}}})
	read(t, db, func(r *Reader) {
		in := testenv.Must1(r.In("gard"))(t)
		if diff := cmp.Diff([]string{"LINKS_TO cook>gard"}, targets(in)); diff != "" {
			t.Errorf("In(gard) after Compost changed (-want +got):\n%s", diff)
		}
		in = testenv.Must1(r.In("lone"))(t)
		if diff := cmp.Diff([]string{"CITES comp>lone", "CITES lone>lone"}, targets(in)); diff != "" {
			t.Errorf("In(lone) (-want +got):\n%s", diff)
		}
	})
	if diff := cmp.Diff([]string(nil), orphans()); diff != "" {
		t.Errorf("orphans after the changes (-want +got):\n%s", diff)
	}
	// Nothing of a deleted document stays in the lookup buckets.
	err = db.Update(func(tx *bolt.Tx) error {
		for _, d := range vault {
			if err := Delete(tx, d.node.ID); err != nil {
				return err
			}
		}
		return Delete(tx, "miss")
	})
	if err != nil {
		t.Fatal(err)
	}
	testenv.Must(t, db.View(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketNodes, bucketNames, bucketIn} {
			if n := tx.Bucket(b).Stats().KeyN; n != 0 {
				t.Errorf("bucket %s keeps %d keys after every node was deleted", b, n)
			}
		}
		return nil
	}))
}

func TestIsLocal(t *testing.T) {
	for dest, want := range map[string]bool{
		"note.md": true, "../a/b.md": true, "/root.md": true, "My%20Note.md": true, "notes/a:b.md": true, "a:b.md": false, "C:x": false,
		"https://x.org": false, "mailto:a@b": false, "#heading": false, "//cdn/x.js": false, "": false, "x+y:z": false,
	} {
		if got := IsLocal(dest); got != want {
			t.Errorf("IsLocal(%q) = %v, want %v", dest, got, want)
		}
	}
}

func TestPageKey(t *testing.T) {
	for in, want := range map[string]string{
		"Note": "note", "./Folder/Note.md": "folder/note", "dendron://my.vault/a.b.c": "a.b.c", "^Library/Std": "library/std",
		"Page@123": "page", "Page@L12C4": "page", "user@example": "user@example", "a\x00b": "ab",
	} {
		if got := pageKey(in); got != want {
			t.Errorf("pageKey(%q) = %q, want %q", in, got, want)
		}
	}
}
