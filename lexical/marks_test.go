package lexical

import (
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"

	"github.com/braidsearch/braid/internal/testdata"
)

// sample has what the analyser turns around: possessives, stop words,
// capitals, words the stemmer rewrites (ies, ational, y), separators the
// index splits at, numbers, accents and other scripts.
const sample = `The relational databases' indexes: Happy happiness, HOPING hoped hopping; ponies' ponies pony.
Conditional conditionally sensibility agreed agreement. node_modules/a.b\c:d 3.14 1,000 can't won't
Über-schnell naïve café Ярослав 東京 generalization generalizations. It's the cat's cats, the ties and a tie.`

// Marks finds exactly the tokens Analyze finds with terms among them, for
// random sets of terms drawn from the text's own, on the sample and, where
// the shared data is there, on a vault's notes.
func TestMarksMatchAnalyze(t *testing.T) {
	check := func(t *testing.T, texts []string) {
		r := rand.New(rand.NewPCG(7, 7))
		for i, text := range texts {
			all := Analyze(text)
			if len(all) == 0 {
				continue
			}
			for range 4 {
				terms := map[string]bool{"zzabsent": true}
				for range 1 + r.IntN(6) {
					terms[all[r.IntN(len(all))].Term] = true
				}
				want := marked(all, terms)
				if got := Marks(text, terms); !slices.Equal(got, want) {
					t.Fatalf("text %d, terms %v: Marks = %v, Analyze finds %v", i, terms, got, want)
				}
			}
		}
		if got := Marks(texts[0], nil); got != nil {
			t.Errorf("Marks with no terms = %v, want none", got)
		}
	}
	t.Run("sample", func(t *testing.T) { check(t, strings.Split(sample, "\n")) })
	t.Run("vault", func(t *testing.T) {
		dir := testdata.Dir(t, "markdown/dendron/vault")
		var texts []string
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") || len(texts) >= 400 {
				return err
			}
			b, err := os.ReadFile(p)
			if err == nil {
				texts = append(texts, string(b))
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		check(t, texts)
	})
}

// asciiWords cuts ASCII text exactly as bleve's Unicode tokenizer does:
// the same words at the same offsets, on the sample's ASCII lines, on a
// vault's ASCII notes when the shared data is there, and on random strings
// of the characters the rules turn on.
func TestASCIIWordsMatchSegmenter(t *testing.T) {
	tok := unicode.NewUnicodeTokenizer()
	check := func(t *testing.T, in []byte) {
		t.Helper()
		if !asciiOnly(in) {
			return
		}
		want := tok.Tokenize(in)
		got := asciiWords(in)
		if len(got) != len(want) {
			t.Fatalf("%q: %d words, the segmenter %d: %v against %v", in, len(got), len(want), terms(got), terms(want))
		}
		for i := range got {
			if string(got[i].Term) != string(want[i].Term) || got[i].Start != want[i].Start || got[i].End != want[i].End {
				t.Fatalf("%q: word %d is %q at %d-%d, the segmenter's %q at %d-%d", in, i, got[i].Term, got[i].Start, got[i].End, want[i].Term, want[i].Start, want[i].End)
			}
		}
	}
	for _, line := range strings.Split(sample, "\n") {
		check(t, []byte(line))
	}
	const alphabet = "aZq09 '',;;.:-\"\n\t!?()#*/\\$%&+=<>@[]^`{|}~\r"
	r := rand.New(rand.NewPCG(3, 3))
	for range 20000 {
		b := make([]byte, 1+r.IntN(16))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		check(t, b)
	}
	dir := testdata.Dir(t, "markdown/dendron/vault")
	n := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return err
		}
		b, err := os.ReadFile(p)
		if err == nil && asciiOnly(b) {
			check(t, b)
			n++
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 100 {
		t.Errorf("only %d ASCII notes in the vault; the test compares too little", n)
	}
}

func terms(s analysis.TokenStream) []string {
	var out []string
	for _, t := range s {
		out = append(out, string(t.Term))
	}
	return out
}
