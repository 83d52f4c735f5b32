package lexical

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"testing"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/braidsearch/braid/query"
	"github.com/google/go-cmp/cmp"
)

// The table char filter must give exactly the index analyzer's tokens.
func TestFastAnalyzerMatchesIndexAnalyzer(t *testing.T) {
	l, err := Open(filepath.Join(t.TempDir(), "lex"), false, nil)
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
	l, err := Open(filepath.Join(t.TempDir(), "lex"), false, nil)
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
	var chunks []Chunk
	for _, doc := range []string{"many", "few"} {
		for i := range 3 {
			chunks = append(chunks, Chunk{ID: fmt.Sprintf("%s#0000.%d", doc, i), DocID: doc, Ord: i, Text: "garden tomatoes"})
		}
	}
	if _, err := l.Apply(1, nil, chunks, func(id string) ChunkMeta { return meta[id] }); err != nil {
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
	q, err := query.Parse("tomatoes")
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

// A weighed title or heading adds to a chunk's content match, and takes
// nothing from chunks that match in their body alone: their scores keep
// their ratio (bleve scales a whole query's scores by one factor, its
// query norm, which the weights change). A word only in the path, which
// the content does not hold, matches nothing.
func TestLexicalFieldWeights(t *testing.T) {
	l, err := Open(filepath.Join(t.TempDir(), "lex"), false, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	meta := map[string]ChunkMeta{
		"sour":   {Title: "Sourdough starter", Path: "kitchen/bread.md"},
		"pump":   {Title: "Pump", Path: "code/pump.md"},
		"plain":  {Title: "Notes", Path: "notes.md"},
		"plain2": {Title: "More notes", Path: "more.md"},
	}
	chunks := []Chunk{
		{ID: "sour#1.0", DocID: "sour", Text: "feed it flour every day"},
		{ID: "pump#1.0", DocID: "pump", Text: "the controller", HeadingPath: []string{"Irrigation"}},
		{ID: "plain#1.0", DocID: "plain", Text: "sourdough and irrigation, in passing"},
		{ID: "plain2#1.0", DocID: "plain2", Text: "a longer note that mentions sourdough and irrigation among many other words"},
	}
	if _, err := l.Apply(1, nil, chunks, func(id string) ChunkMeta { return meta[id] }); err != nil {
		t.Fatal(err)
	}
	scores := func(text string, title, headings float64) map[string]float64 {
		t.Helper()
		q, err := query.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		cands, _, err := l.Search(context.Background(), Request{Query: q, Size: 10, TitleWeight: title, HeadingWeight: headings})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]float64{}
		for _, c := range cands {
			out[c.ChunkID] = c.Score
		}
		return out
	}
	for _, tc := range []struct {
		text            string
		title, headings float64
		more            string // the chunk the weight favours
	}{
		{"sourdough", 1, 0, "sour#1.0"},
		{"irrigation", 0, 1, "pump#1.0"},
	} {
		plain, weighed := scores(tc.text, 0, 0), scores(tc.text, tc.title, tc.headings)
		if len(plain) != 3 || len(weighed) != 3 {
			t.Fatalf("%q matched %v plain, %v weighed; want 3 chunks each", tc.text, plain, weighed)
		}
		if p, w := plain[tc.more]/plain["plain#1.0"], weighed[tc.more]/weighed["plain#1.0"]; !(w > p) {
			t.Errorf("%q: %s against a body match scores %v weighed, %v plain; want higher weighed", tc.text, tc.more, w, p)
		}
		if p, w := plain["plain#1.0"]/plain["plain2#1.0"], weighed["plain#1.0"]/weighed["plain2#1.0"]; math.Abs(p-w) > 1e-9 {
			t.Errorf("%q: two body matches score %v to each other weighed, %v plain; want the same", tc.text, w, p)
		}
	}
	// With Explain, each hit says what the title and headings added.
	q, err := query.Parse("sourdough")
	if err != nil {
		t.Fatal(err)
	}
	cands, _, err := l.Search(context.Background(), Request{Query: q, Size: 10, TitleWeight: 1, Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cands {
		if inTitle := c.ChunkID == "sour#1.0"; inTitle != (c.FieldBonus > 0) || c.FieldBonus >= c.Score {
			t.Errorf("%s: field bonus %v of score %v; want a part of it only for the title match", c.ChunkID, c.FieldBonus, c.Score)
		}
	}
	if got := scores("kitchen", 1, 1); len(got) != 0 {
		t.Errorf("a word only in the path matched %v, want nothing: the content holds no path", got)
	}
}
