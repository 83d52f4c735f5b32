package grep

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// dfaPatterns cover the program shapes the DFA meets: literals, classes,
// repetition, alternation, every empty-width assertion.
var dfaPatterns = []string{
	``, `a`, `ab`, `abc`, `a|b`, `ab|cd|ef`, `a*`, `a+b`, `a?b?c`, `(ab)+c`, `a{2,3}`,
	`[a-c]+x`, `[^a]`, `[^ab]+$`, `.`, `a.c`, `.*x`, `^`, `$`, `^$`, `^a`, `a$`, `^a*$`,
	`\ba`, `a\b`, `\Ba`, `\bab\b`, `\B`, `\b`, `\w+`, `\W\w`, `\d+`, `\s+$`, `\S+`,
	`(?i)ab`, `(?i)k`, `(?i)[a-z]+Z`, `x*y*z*`, `(a|ab)(c|bcd)`, `(?U)a+?b`, `\Aab\z`,
	`[[:alpha:]]{2}[[:digit:]]`, `(?:foo|foobar)baz`, `\[\[.*\]\]`, `a.*b.*c`, `(a*)*b`,
	`TODO|FIXME|XXX`, `(?i)todo|fixme`,
}

// dfaLines are ASCII lines, where the DFA and Go's regexp agree by design.
var dfaLines = []string{
	"", "a", "b", "ab", "abc", "ba", "aab", "abab", "abcd", "xabcx", "a b", " a", "a ",
	"cab", "kK", "AB", "aB", "zzZ", "12", "a1", "foo bar", "foobarbaz", "foobaz", "[[x]]",
	"[[", "a.c", "abbc", "aabbcc", "acbdce", "xyz", "TODO: x", "fixme", "\t", "a\r",
	"  trailing  ", "x_y", "ab_ab", "aa aa", "abcbcd", "y", "bbb", "_a_", "-a-",
}

func TestDFAMatchesRegexp(t *testing.T) {
	buf := []byte(strings.Join(dfaLines, "\n"))
	for _, p := range dfaPatterns {
		for _, opt := range []Options{{}, {Word: true}, {IgnoreCase: true}} {
			for _, maxStates := range []int{dfaMaxStates, 2} {
				name := fmt.Sprintf("%s/%+v/states=%d", p, opt, maxStates)
				m, err := Compile(p, opt)
				if err != nil {
					t.Fatalf("Compile(%q): %v", p, err)
				}
				var want []int
				for i, l := range dfaLines {
					if m.re.MatchString(l) {
						want = append(want, i+1)
					}
				}
				got := selected(m, buf, maxStates)
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s: selected lines (-regexp +dfa):\n%s", name, diff)
				}
			}
		}
	}
}

// selected returns the numbers of the lines of buf that m selects, with a DFA
// cache of maxStates states.
func selected(m *Matcher, buf []byte, maxStates int) []int {
	s := m.newSearcher()
	if s.dfa != nil {
		s.dfa.maxStates = maxStates
		s.dfa.reset()
	}
	var nums []int
	for _, l := range s.search(buf).Lines {
		nums = append(nums, l.Number)
	}
	return nums
}

func TestDFAUnicode(t *testing.T) {
	// Where ripgrep's meaning differs from Go's regexp: Unicode \b, and
	// invalid UTF-8 matching nothing.
	tests := []struct {
		pattern string
		line    string
		want    bool
	}{
		{`\bfoo`, "éfoo", false},
		{`\bfoo`, "\xfffoo", true},
		{`foo\b`, "fooé", false},
		{`foo\B`, "fooé", true},
		{`\b`, "é", true},
		{`\B`, "é", false},
		{`a.b`, "a\xffb", false},
		{`a[^x]b`, "a\xffb", false},
		{`a\Wb`, "a\xffb", false},
		{`x?\x{FFFD}`, "\xff", false},
		{`x?\x{FFFD}`, "\uFFFD", true},
		{`a.b`, "aéb", true},
		{`\w+`, "ж", true},
		{`^\d+$`, "١٢٣", true},
		{`\s`, "\u00a0", true},
		{`\s`, "\v", true},
	}
	for _, tt := range tests {
		m, err := Compile(tt.pattern, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if m.prog == nil {
			t.Fatalf("%q compiled to a literal; the test needs the DFA", tt.pattern)
		}
		for _, maxStates := range []int{dfaMaxStates, 2} {
			got := len(selected(m, []byte(tt.line), maxStates)) == 1
			if got != tt.want && maxStates == dfaMaxStates {
				t.Errorf("%q matches %q = %v, want %v", tt.pattern, tt.line, got, tt.want)
			}
		}
	}
}

func TestLiterals(t *testing.T) {
	tests := []struct {
		pattern string
		opt     Options
		want    []string // the prefilter literals, "i:" marking folded ones
		exact   bool
	}{
		{pattern: "foo", want: []string{"foo"}, exact: true},
		{pattern: "foo", opt: Options{IgnoreCase: true}, want: []string{"i:foo"}, exact: true},
		{pattern: "task", opt: Options{IgnoreCase: true}, want: []string{"i:ta"}},
		{pattern: "123", opt: Options{IgnoreCase: true}, want: []string{"123"}, exact: true},
		{pattern: "café", opt: Options{IgnoreCase: true}, want: []string{"i:caf"}},
		{pattern: "café", want: []string{"café"}, exact: true},
		{pattern: "foo", opt: Options{Word: true}, want: []string{"foo"}},
		{pattern: `TODO|FIXME`, want: []string{"TODO", "FIXME"}, exact: true},
		{pattern: `(?:ab|cd)efg`, want: []string{"efg"}},
		{pattern: `\[\[.*\]\]`, want: []string{"[["}},
		{pattern: `a+bcd{2}`, want: []string{"bc"}},
		{pattern: `[A-Z][a-z]+ [A-Z]`}, // " " alone skips too few lines
		{pattern: `x*`},
		{pattern: `a|`},
		{pattern: `a|b|c|d|e|f|g`},
	}
	for _, tt := range tests {
		m, err := Compile(tt.pattern, tt.opt)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, l := range m.lits {
			s := string(l.s)
			if l.fold {
				s = "i:" + s
			}
			got = append(got, s)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" || m.exact != tt.exact {
			t.Errorf("%q %+v: literals (-want +got):\n%s exact = %v, want %v", tt.pattern, tt.opt, diff, m.exact, tt.exact)
		}
	}
}

func TestTranslate(t *testing.T) {
	u := unicodeClasses()
	tests := []struct{ in, want string }{
		{`abc`, `abc`},
		{`\d\D`, `\p{Nd}\P{Nd}`},
		{`\w`, `[` + u.wordText + `]`},
		{`\W`, `[^` + u.wordText + `]`},
		{`[\w-]`, `[` + u.wordText + `-]`},
		{`[^\W]`, `[^` + u.nonWordText + `]`},
		{`[\s]`, `[` + u.spaceText + `]`},
		{`\\w`, `\\w`},
		{`\Q\w\E\w`, `\Q\w\E[` + u.wordText + `]`},
		{`\Q\w`, `\Q\w\E`},
		{`[]\d]`, `[]\p{Nd}]`},
		{`[[:alpha:]\d]x\d`, `[[:alpha:]\p{Nd}]x\p{Nd}`},
		{`\pL\p{Greek}`, `\pL\p{Greek}`},
	}
	for _, tt := range tests {
		if got := translate(tt.in); got != tt.want {
			t.Errorf("translate(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// FuzzSearch checks the line selection of any pattern against Go's regexp
// run line by line, on text where their meanings coincide.
func FuzzSearch(f *testing.F) {
	for i, p := range dfaPatterns {
		f.Add(p, dfaLines[i%len(dfaLines)]+"\n"+dfaLines[(i*7)%len(dfaLines)], i%2 == 0, i%3 == 0)
	}
	f.Fuzz(func(t *testing.T, pattern, text string, ignoreCase, word bool) {
		m, err := Compile(pattern, Options{IgnoreCase: ignoreCase, Word: word})
		if err != nil {
			return
		}
		if !utf8.ValidString(text) {
			return // invalid bytes match nothing in the DFA, U+FFFD in regexp
		}
		if strings.Contains(pattern, `\b`) || strings.Contains(pattern, `\B`) {
			for _, r := range text {
				if r >= utf8.RuneSelf {
					return // \b is Unicode in the DFA, ASCII in regexp
				}
			}
		}
		var lines []string // an empty file has no lines; a final \n ends the last
		if text != "" {
			lines = strings.Split(strings.TrimSuffix(text, "\n"), "\n")
		}
		var want []int
		for i, l := range lines {
			if m.re.MatchString(l) {
				want = append(want, i+1)
			}
		}
		for _, maxStates := range []int{dfaMaxStates, 2} {
			got := selected(m, []byte(text), maxStates)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("%q over %q, cache %d: selected lines (-regexp +grep):\n%s", pattern, text, maxStates, diff)
			}
		}
	})
}
