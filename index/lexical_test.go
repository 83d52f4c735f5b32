package index

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/braidsearch/braid/lexical"
	"github.com/braidsearch/braid/query"
)

// TestSummarySearchedWithTitle: a note's frontmatter description is
// searched with its title, so a question in the description's words finds
// a note whose body never uses them; a corpus record's is not.
func TestSummarySearchedWithTitle(t *testing.T) {
	l, err := lexical.Open(filepath.Join(t.TempDir(), "lex"), false, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	lua := &Document{Frontmatter: map[string]any{"description": "The embedded scripting environment."}}
	dendron := &Document{Frontmatter: map[string]any{"description": 7, "desc": "Working with sprockets"}}
	meta := map[string]lexical.ChunkMeta{
		"lua":  {Title: "Space Lua", Path: "Space Lua.md", Summary: lua.Summary()},
		"dend": {Title: "Gears", Path: "gears.md", Summary: dendron.Summary()},
		"rec":  {Title: "Gears", Path: "c.jsonl", Summary: "scripting sprockets", Record: true},
	}
	chunks := []lexical.Chunk{
		{ID: "lua#1.0", DocID: "lua", Ord: 0, Text: "definitions live in fenced blocks"},
		{ID: "dend#1.0", DocID: "dend", Text: "teeth and ratios"},
		{ID: "rec#1.0", DocID: "rec", Text: "a record"},
	}
	if _, err := l.Apply(1, nil, chunks, func(id string) lexical.ChunkMeta { return meta[id] }); err != nil {
		t.Fatal(err)
	}
	for text, want := range map[string]string{"script": "lua#1.0", "sprocket": "dend#1.0"} {
		q, err := query.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		cands, _, err := l.Search(context.Background(), lexical.Request{Query: q, Size: 10, TitleWeight: 0.5})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, c := range cands {
			got = append(got, c.ChunkID)
		}
		if len(got) != 1 || got[0] != want {
			t.Errorf("%q found %v; want only %s, by its summary", text, got, want)
		}
	}
	long := &Document{Frontmatter: map[string]any{"summary": strings.Repeat("word ", 400)}}
	if s := long.Summary(); len(s) > maxSummary || !strings.HasSuffix(s, "word") {
		t.Errorf("a 2000-byte summary kept %d bytes ending %q; want at most %d, cut on a word", len(s), s[max(0, len(s)-8):], maxSummary)
	}
	if s := (&Document{}).Summary(); s != "" {
		t.Errorf("no frontmatter: summary %q", s)
	}
}

// TestEmbedInputCarriesTheSummary: the first chunk of a note is embedded
// with its description after the title, the others without it.
func TestEmbedInputCarriesTheSummary(t *testing.T) {
	first := &Chunk{Ord: 0, Text: "definitions live in fenced blocks"}
	later := &Chunk{Ord: 1, Text: "expressions render live"}
	if got, want := EmbedInput("Space Lua", "The embedded scripting environment.", first), "Space Lua\nThe embedded scripting environment.\ndefinitions live in fenced blocks"; got != want {
		t.Errorf("first chunk embedded as %q, want %q", got, want)
	}
	if got := EmbedInput("Space Lua", "The embedded scripting environment.", later); strings.Contains(got, "scripting") {
		t.Errorf("a later chunk carries the summary: %q", got)
	}
}
