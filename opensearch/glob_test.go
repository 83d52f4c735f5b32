package opensearch

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/braidsearch/braid/index"
)

// globCases are globs with the paths to try them on, shared by the unit
// test here and the cluster test in opensearch_test.go (GlobCases).
var globCases = []string{
	"*.md", "notes/*.md", "**/*.go", "docs/**", "a/**/b.txt", "?.txt",
	"[abc].md", "[!a]*.md", "[a-c]?/x", "./notes/*.md", "/notes/*.md", "notes/",
	"file (1).md", "a+b.txt", `c#/x@y&z~1<2>"q".md`, "{a,b}.md", "*.tar.gz",
	"**", "*", "src/**/*_test.go", `dir\*x`, "naïve/*.md", "[[]*", "*|*",
	"[\\d]*", "line*", "*.[!m]*", "a.b", "**/b.txt", "x/**/y/**/z",
}

var globPaths = []string{
	"README.md", "notes/a.md", "notes/sub/b.md", "a.md", "b.md", "x.txt", "ab.txt",
	"a/b.txt", "a/x/y/b.txt", "b.txt", "docs/guide/intro.md", "docs", "src/pkg/x_test.go",
	"src/x_test.go", "main.go", `c#/x@y&z~1<2>"q".md`, "file (1).md", "file 1.md", "a+b.txt",
	"aab.txt", "{a,b}.md", "a.md", "dir*x", "dirZx", "naïve/ça.md", "x.tar.gz", "x.targz",
	"line\nbreak.md", "[x.md", "a1/x", "b2/x", "d3/x", "a|b", "7up", "notes", "notes/x",
	"a.b", "axb", "x/y/z", "x/1/y/2/3/z", "x/yz", "deep/dir/notes/a.md",
}

// GlobCases is globCases for the external test package.
var GlobCases, GlobPaths = globCases, globPaths

// GlobRegexp is globRegexp for the external test package.
var GlobRegexp = globRegexp

// luceneToGo reads the subset of Lucene's regexp syntax that globRegexp
// writes and gives the Go expression with the same meaning, failing on an
// unescaped character that Lucene would read as an operator.
func luceneToGo(s string) (string, error) {
	var b strings.Builder
	lit := func(r rune) { fmt.Fprintf(&b, `\x{%x}`, r) }
	rs := []rune(s)
	inClass := false
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == '\\':
			if i+1 == len(rs) {
				return "", fmt.Errorf("trailing backslash in %q", s)
			}
			i++
			lit(rs[i])
		case inClass && r == ']':
			inClass = false
			b.WriteByte(']')
		case inClass && r == '-':
			b.WriteByte('-')
		case inClass && r == '^' && rs[i-1] == '[':
			b.WriteByte('^')
		case inClass:
			if r < 0x80 && !isAlnum(r) {
				return "", fmt.Errorf("unescaped %q in a class of %q", r, s)
			}
			lit(r)
		case r == '[':
			inClass = true
			b.WriteByte('[')
		case r == '.':
			b.WriteString(`(?s:.)`)
		case strings.ContainsRune("*+?(|){},", r), isAlnum(r), r >= 0x80:
			b.WriteRune(r)
		default:
			return "", fmt.Errorf("unescaped %q in %q", r, s)
		}
	}
	return b.String(), nil
}

func isAlnum(r rune) bool {
	return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
}

// checkGlob fails t unless globRegexp(glob), read back, matches path
// exactly when index.Matcher does.
func checkGlob(t *testing.T, glob string, paths ...string) {
	t.Helper()
	m, merr := index.NewMatcher([]string{glob})
	lre, err := globRegexp(glob)
	if (merr != nil) != (err != nil) {
		t.Fatalf("glob %q: index.NewMatcher error %v, globRegexp error %v: want both or neither", glob, merr, err)
	}
	if err != nil {
		return
	}
	goExpr, err := luceneToGo(lre)
	if err != nil {
		t.Fatalf("glob %q gave %q: %v", glob, lre, err)
	}
	re, err := regexp.Compile("^(?:" + goExpr + ")$")
	if err != nil {
		t.Fatalf("glob %q gave %q, read back as %q: %v", glob, lre, goExpr, err)
	}
	for _, p := range paths {
		if want, got := m.Match(p), re.MatchString(p); want != got {
			t.Errorf("glob %q as Lucene %q on path %q: matches %v, index.Matcher says %v", glob, lre, p, got, want)
		}
	}
}

func TestGlobRegexp(t *testing.T) {
	for _, g := range globCases {
		checkGlob(t, g, globPaths...)
	}
}

func TestGlobRegexpForm(t *testing.T) {
	for _, tc := range []struct{ glob, want string }{
		{"*.md", `([^\` + "\n" + `]*\/)?[^\/]*\.md`},
		{"notes/?.txt", `notes\/[^\/]\.txt`},
		{"docs/**", `docs\/[^\` + "\n" + `]*`},
		{"[!a-c]x", `([^\` + "\n" + `]*\/)?[^a-c]x`},
		{`a#b@c&d~e<f>g"h`, `([^\` + "\n" + `]*\/)?a\#b\@c\&d\~e\<f\>g\"h`},
	} {
		got, err := globRegexp(tc.glob)
		if err != nil {
			t.Errorf("globRegexp(%q): %v", tc.glob, err)
			continue
		}
		if got != tc.want {
			t.Errorf("globRegexp(%q) = %q, want %q", tc.glob, got, tc.want)
		}
	}
	if _, err := globRegexp("notes/[abc"); err == nil || !strings.Contains(err.Error(), "unclosed '['") {
		t.Errorf("globRegexp of an unclosed class: %v, want the glob's error", err)
	}
}

func FuzzGlobRegexp(f *testing.F) {
	for i, g := range globCases {
		f.Add(g, globPaths[i%len(globPaths)])
	}
	f.Fuzz(func(t *testing.T, glob, path string) {
		checkGlob(t, glob, path)
	})
}
