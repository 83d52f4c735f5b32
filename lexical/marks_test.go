package lexical

import (
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

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
