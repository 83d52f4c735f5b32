package index

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/google/go-cmp/cmp"
)

// The table char filter must give exactly the index analyzer's tokens.
func TestFastAnalyzerMatchesIndexAnalyzer(t *testing.T) {
	l, err := OpenLexical(filepath.Join(t.TempDir(), "lex"), false)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	index := l.idx.Mapping().AnalyzerNamed(analyzerName)
	for _, text := range []string{
		"space.writeFile(name, data) and C:\\\\Users\\\\me/notes_v2.md: done",
		"Crème brûlée — naïve café's recipes; 東京 and العربية",
		"dendron.topic.multi-vault.faq [[Note 1]] #tag https://example.com/a_b?c=d",
		"",
	} {
		want := index.Analyze([]byte(text))
		got := analyzer().Analyze([]byte(text))
		if len(got) != len(want) {
			t.Fatalf("%q: %d tokens, want %d", text, len(got), len(want))
		}
		for i := range want {
			if string(got[i].Term) != string(want[i].Term) || got[i].Start != want[i].Start || got[i].End != want[i].End {
				t.Errorf("%q token %d: %q %d-%d, want %q %d-%d", text, i, got[i].Term, got[i].Start, got[i].End, want[i].Term, want[i].Start, want[i].End)
			}
		}
	}
	if _, ok := analyzer().(*analysis.DefaultAnalyzer); !ok {
		t.Errorf("analyzer %T, want the table-filter copy", analyzer())
	}
}

// A document with more than chunkTags tags carries them on its first chunk
// only, and a tag filter still finds every chunk of it.
func TestLexicalManyTags(t *testing.T) {
	l, err := OpenLexical(filepath.Join(t.TempDir(), "lex"), false)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	many := make([]string, chunkTags+1)
	for i := range many {
		many[i] = fmt.Sprintf("T%d", i)
	}
	meta := map[string]ChunkMeta{
		"many": {Title: "Many", Path: "many.md", Tags: append(many, "shared")},
		"few":  {Title: "Few", Path: "few.md", Tags: []string{"t1", "shared"}},
	}
	var chunks []*Chunk
	for _, doc := range []string{"many", "few"} {
		for i := range 3 {
			chunks = append(chunks, &Chunk{ID: fmt.Sprintf("%s#0000.%d", doc, i), DocID: doc, Ord: i, Text: "garden tomatoes"})
		}
	}
	if err := l.Apply(1, nil, chunks, func(id string) ChunkMeta { return meta[id] }); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		tags []string
		want []string
	}{
		{[]string{"t1"}, []string{"few#0000.0", "few#0000.1", "few#0000.2", "many#0000.0", "many#0000.1", "many#0000.2"}},
		{[]string{fmt.Sprintf("#t%d", chunkTags)}, []string{"many#0000.0", "many#0000.1", "many#0000.2"}},
		{[]string{"shared", "T5"}, []string{"many#0000.0", "many#0000.1", "many#0000.2"}},
		{[]string{"shared"}, []string{"few#0000.0", "few#0000.1", "few#0000.2", "many#0000.0", "many#0000.1", "many#0000.2"}},
		{[]string{"absent"}, nil},
	}
	q, err := ParseQuery("tomatoes")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		cands, _, err := l.Search(context.Background(), Request{Query: q, Tags: tt.tags, Size: 10})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, c := range cands {
			got = append(got, c.ChunkID)
		}
		slices.Sort(got)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("tags %q (-want +got):\n%s", tt.tags, diff)
		}
	}
	if got := chunkTagTerms(meta["many"].Tags, 1); got != nil {
		t.Errorf("tags of a later chunk of a document with %d tags: %q, want none", len(meta["many"].Tags), got)
	}
}
