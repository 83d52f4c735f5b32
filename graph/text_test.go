package graph

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A broken [[target|label]] prints its target, the part before '|', not
// the label glued to it (issue 35, point 4b).
func TestBrokenString(t *testing.T) {
	doc := Node{ID: "a", Path: "notes/a.md"}
	for _, tc := range []struct {
		name string
		edge Edge
		want string
	}{
		{"plain", Edge{Type: Cites, Target: "Missing Page", Line: 3}, "notes/a.md:3: CITES Missing Page"},
		{"with a label", Edge{Type: Cites, Target: "Library/Std/Widgets/Widgets", Alt: "Widgets", Line: 7},
			"notes/a.md:7: CITES Library/Std/Widgets/Widgets"},
		{"with a heading", Edge{Type: Cites, Target: "Page", Alt: "shown", Heading: "Sec", Line: 1}, "notes/a.md:1: CITES Page"},
		{"only a label side", Edge{Type: Embeds, Alt: "img.png", Line: 2}, "notes/a.md:2: EMBEDS img.png"},
		{"a heading of its own note", Edge{Type: Cites, Heading: "Gone", Line: 9}, "notes/a.md:9: CITES #Gone"},
		{"markdown link", Edge{Type: LinksTo, Target: "img/plot.png", Line: 4}, "notes/a.md:4: LINKS_TO img/plot.png"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Broken{Doc: doc, Edge: tc.edge}.String()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// A walk names a broken [[target|label]]'s step by its target alone too.
func TestWalkBrokenTarget(t *testing.T) {
	db := openDB(t)
	put(t, db, doc{Node{ID: "a", SourceID: "s1", Path: "a.md", Title: "A"},
		[]Edge{{Type: Cites, Target: "Library/Std/Widgets/Widgets", Alt: "Widgets", Line: 3}}})
	read(t, db, func(r *Reader) {
		steps, err := r.Walk("a", WalkOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(steps) != 1 || steps[0].Target != "Library/Std/Widgets/Widgets" || !steps[0].Broken {
			t.Errorf("steps %+v, want one broken step to Library/Std/Widgets/Widgets", steps)
		}
	})
}
