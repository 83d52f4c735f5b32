package mcpserver_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/mcpserver"
)

// The three versions of a note the lineage test indexes in turn: the
// second splits section One in two (a heading inserted), the third
// merges them again and edits section Two.
var lineageVersions = []string{
	"# Doc\n\n## One\n\nline a1 alpha\nline a2 alpha\nline a3 alpha\nline a4 alpha\n\n## Two\n\nline b1 beta\nline b2 beta\n",
	"# Doc\n\n## One\n\nline a1 alpha\nline a2 alpha\n\n## Three\n\nline a3 alpha\nline a4 alpha\n\n## Two\n\nline b1 beta\nline b2 beta\n",
	"# Doc\n\n## One\n\nline a1 alpha\nline a2 alpha\nline a3 alpha\nline a4 alpha\nline a5 alpha\n\n## Two\n\nline b1 beta\nline b2 beta\nline b3 beta\n",
}

// chunksOf indexes vault into idx and returns the note's chunks: id and
// text, in order.
func chunksOf(t *testing.T, idx, vault string) (ids, texts []string) {
	t.Helper()
	e, err := braid.Open(idx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, err := e.Index(context.Background(), []braid.SourceSpec{{Path: vault, ChunkTokens: 40, ChunkOverlap: new(int)}}, nil); err != nil {
		t.Fatal(err)
	}
	d, err := e.Notes().Document("note.md")
	if err != nil {
		t.Fatal(err)
	}
	cs, err := e.Notes().Chunks(context.Background(), d.ChunkIDs)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		ids, texts = append(ids, c.ID), append(texts, c.Text)
	}
	return ids, texts
}

// find is the id of the chunk whose text contains s.
func find(t *testing.T, ids, texts []string, s string) string {
	t.Helper()
	for i, text := range texts {
		if strings.Contains(text, s) {
			return ids[i]
		}
	}
	t.Fatalf("no chunk holds %q: %q", s, texts)
	return ""
}

type lineageJSON struct {
	ChunkID string `json:"chunk_id"`
	Current bool
	Edges   []struct {
		Parent   string `json:"parent_chunk_id"`
		Child    string `json:"child_chunk_id"`
		Relation string
	}
	SameText []struct {
		ChunkID string `json:"chunk_id"`
		Version int
		Current bool
	} `json:"same_text"`
	Versions []struct{ Version int }
	Summary  string
}

// trace_chunk_lineage follows a note's chunks across two re-indexes: a
// split, then a merge with an edit; unchanged text is a re-ingest and
// is held by every version; the history outlasts the server.
func TestTraceChunkLineage(t *testing.T) {
	vault := t.TempDir()
	note := filepath.Join(vault, "note.md")
	idx := filepath.Join(t.TempDir(), "idx")
	var ids, texts [3][]string
	for i, body := range lineageVersions {
		if err := os.WriteFile(note, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		ids[i], texts[i] = chunksOf(t, idx, vault)
	}
	for i := range texts {
		t.Logf("v%d: %q", i+1, texts[i])
	}
	one1 := find(t, ids[0], texts[0], "a3 alpha")
	one2, three2 := find(t, ids[1], texts[1], "a1 alpha"), find(t, ids[1], texts[1], "a3 alpha")
	one3 := find(t, ids[2], texts[2], "a5 alpha")
	two1, two2, two3 := find(t, ids[0], texts[0], "b1 beta"), find(t, ids[1], texts[1], "b1 beta"), find(t, ids[2], texts[2], "b3 beta")
	if one2 == three2 || slices.Contains(ids[1], one1) {
		t.Fatalf("the second version did not split section One: %q", texts[1])
	}
	c, _ := startServer(t, idx, &mcpserver.Options{Tools: "ks"})
	trace := func(id string) lineageJSON {
		var l lineageJSON
		decode(t, c.ok("trace_chunk_lineage", map[string]any{"chunk_id": id}), &l)
		return l
	}
	has := func(l lineageJSON, parent, child, rel string) bool {
		for _, e := range l.Edges {
			if e.Parent == parent && e.Child == child && e.Relation == rel {
				return true
			}
		}
		return false
	}
	// The current One came from v2's two halves, which came from v1's One.
	l := trace(one3)
	if !l.Current || len(l.Versions) != 3 {
		t.Errorf("trace of the current One: %+v, want current and 3 versions", l)
	}
	for _, want := range [][3]string{{one1, one2, "split"}, {one1, three2, "split"}, {one2, one3, "merge"}, {three2, one3, "merge"}} {
		if !has(l, want[0], want[1], want[2]) {
			t.Errorf("trace of %s lacks %s -> %s (%s): %+v", one3, want[0], want[1], want[2], l.Edges)
		}
	}
	// v1's One, no longer indexed, still traces forward to the current one.
	l = trace(one1)
	if l.Current || l.ChunkID != one1 || !has(l, one1, three2, "split") || !has(l, three2, one3, "merge") {
		t.Errorf("trace of v1's One: %+v", l)
	}
	// Section Two carried over unchanged into v2 (the same text, in two
	// versions), then was edited.
	if two1 == two2 {
		t.Fatalf("chunk ids of different versions are equal: %s", two1)
	}
	l = trace(two2)
	if !has(l, two1, two2, "re-ingest") || !has(l, two2, two3, "edit") {
		t.Errorf("trace of v2's Two: %+v", l.Edges)
	}
	var holders []string
	for _, h := range l.SameText {
		holders = append(holders, h.ChunkID)
	}
	if !slices.Equal(holders, []string{two1, two2}) {
		t.Errorf("same_text of Two: %v, want v1's and v2's chunks %s %s", holders, two1, two2)
	}
	for _, bad := range []string{"nochunk", ids[0][0][:strings.IndexByte(ids[0][0], '#')] + "#deadbeef.0"} {
		if r := c.call("trace_chunk_lineage", map[string]any{"chunk_id": bad}); !r.IsError {
			t.Errorf("trace of %q: %+v, want an error", bad, r)
		}
	}
}
