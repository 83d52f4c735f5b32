package grep

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// loadVault reads both vaults for the benchmark.
func loadVault(b *testing.B) ([]File, int64) {
	root, names := vaultFiles(b)
	var files []File
	var size int64
	for _, n := range names {
		p := filepath.Join(root, n)
		st, err := os.Stat(p)
		if err != nil {
			b.Fatal(err)
		}
		size += st.Size()
		files = append(files, File{Path: p, Name: n})
	}
	return files, size
}

// BenchmarkGrep searches all files of both vaults, reading them from disk,
// and formats the output as `rg -n -H` would; "/ranges" also fills
// Line.Ranges. The "lines" metric is the number of selected lines.
func BenchmarkGrep(b *testing.B) {
	files, size := loadVault(b)
	for _, bc := range []struct {
		name    string
		pattern string
		opt     Options
	}{
		{"literal", "silverbullet", Options{}},
		{"common literal", "the", Options{}},
		{"ignore case", "config", Options{IgnoreCase: true}},
		{"wiki links", `\[\[.*\]\]`, Options{}},
		{"alternation", `TODO|FIXME|XXX`, Options{}},
		{"names", `[A-Z][a-z]+ [A-Z][a-z]+`, Options{}},
		{"ing words", `\w+ing\b`, Options{}},
		{"word", "page", Options{Word: true}},
		{"every line", `^`, Options{}},
		{"context", "query", Options{Before: 2, After: 2}},
	} {
		for _, ranges := range []bool{false, true} {
			name := bc.name
			if ranges {
				name += "/ranges"
			}
			b.Run(name, func(b *testing.B) {
				opt := bc.opt
				opt.NoRanges = !ranges
				m, err := Compile(bc.pattern, opt)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				b.SetBytes(size)
				lines := 0
				for b.Loop() {
					lines = 0
					f := &Format{LineNumbers: true, WithFilename: true}
					err := m.Search(context.Background(), files, 0, func(r Result) error {
						lines += r.Count
						return f.Write(discard{}, r)
					})
					if err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(lines), "lines")
			})
		}
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// benchPatterns exercise each way of selecting lines: a literal alone, a
// folded literal, a literal prefilter before the DFA, literal sets, and the
// DFA over everything.
var benchPatterns = []struct {
	name    string
	pattern string
	opt     Options
}{
	{"literal", "silverbullet", Options{}},
	{"ignore case", "config", Options{IgnoreCase: true}},
	{"prefilter", `\[\[.*\]\]`, Options{}},
	{"alternation", `TODO|FIXME|XXX`, Options{}},
	{"dfa", `[A-Z][a-z]+ [A-Z][a-z]+`, Options{}},
}

// BenchmarkSearchBuffer measures line selection alone, on generated text of
// growing size, to show it is linear.
func BenchmarkSearchBuffer(b *testing.B) {
	// Prose-like lines; one in 50 holds a word some pattern looks for.
	words := strings.Fields("lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod " +
		"tempor incididunt ut labore et dolore magna aliqua Ut enim ad minim veniam quis nostrud " +
		"exercitation ullamco laboris nisi aliquip ex ea commodo consequat — 🌱 - [ ] # 2023-01-02 `code`")
	needles := strings.Fields("[[Link]] TODO Config silverbullet Braid Search [[a]]")
	rng := rand.New(rand.NewPCG(1, 2))
	var text strings.Builder
	for text.Len() < 10<<20 {
		n := 1 + rng.IntN(14)
		for i := range n {
			if i > 0 {
				text.WriteByte(' ')
			}
			if rng.IntN(50*n) == 0 {
				text.WriteString(needles[rng.IntN(len(needles))])
			} else {
				text.WriteString(words[rng.IntN(len(words))])
			}
		}
		text.WriteByte('\n')
	}
	all := []byte(text.String())
	for _, bc := range benchPatterns {
		m, err := Compile(bc.pattern, Options{IgnoreCase: bc.opt.IgnoreCase, NoRanges: true})
		if err != nil {
			b.Fatal(err)
		}
		for _, size := range []struct {
			name string
			n    int
		}{{"1KiB", 1 << 10}, {"100KiB", 100 << 10}, {"10MiB", 10 << 20}} {
			buf := all[:size.n]
			b.Run(bc.name+"/"+size.name, func(b *testing.B) {
				s := m.newSearcher()
				b.ReportAllocs()
				b.SetBytes(int64(len(buf)))
				for b.Loop() {
					s.search(buf)
				}
			})
		}
	}
}
