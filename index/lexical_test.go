package index

import (
	"path/filepath"
	"testing"

	"github.com/blevesearch/bleve/v2/analysis"
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
		got := l.analyzer().Analyze([]byte(text))
		if len(got) != len(want) {
			t.Fatalf("%q: %d tokens, want %d", text, len(got), len(want))
		}
		for i := range want {
			if string(got[i].Term) != string(want[i].Term) || got[i].Start != want[i].Start || got[i].End != want[i].End {
				t.Errorf("%q token %d: %q %d-%d, want %q %d-%d", text, i, got[i].Term, got[i].Start, got[i].End, want[i].Term, want[i].Start, want[i].End)
			}
		}
	}
	if _, ok := l.analyzer().(*analysis.DefaultAnalyzer); !ok {
		t.Errorf("analyzer %T, want the table-filter copy", l.analyzer())
	}
}
