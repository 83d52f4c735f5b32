package grep

import (
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
)

// ErrBadPattern is wrapped by the error Compile returns for a pattern that is
// not a valid RE2 regular expression, or that could only match a newline.
var ErrBadPattern = errors.New("grep: bad pattern")

// ErrBadOptions is wrapped by the error Compile returns for a negative
// context or match count in Options.
var ErrBadOptions = errors.New("grep: bad options")

// Options select what a Matcher matches and which lines a search returns.
// The zero value matches the pattern case-sensitively anywhere in a line and
// returns every matching line without context.
type Options struct {
	IgnoreCase bool // -i: Unicode case-insensitive matching, as (?i)
	Word       bool // -w: the match must have a non-word character or a line edge on each side
	Invert     bool // -v: select the lines that do not match
	Before     int  // -B N: context lines before each selected line; 0 = none
	After      int  // -A N: context lines after each selected line; 0 = none
	MaxCount   int  // -m N: stop after N selected lines per file; 0 = unlimited
	// NoRanges leaves Line.Ranges nil. Set it when nothing highlights the
	// matches (--color never, no --json): finding every match on every
	// selected line costs more than selecting the lines for patterns that
	// match often, and a pattern like x* matches at every byte.
	NoRanges bool
}

// File is one file to search.
type File struct {
	Path string // where to read it
	Name string // how to print it (a relative path, say); empty means Path
	// Root, when set, is a folder the file must stay inside once symbolic
	// links are followed: a link out of it is not read.
	Root string
	// Text, when set, reads the text to search instead of the file: the
	// text braid extracted from a PDF, HTML, DOCX or ODT file.
	Text func() ([]byte, error)
	// Pages holds the line each page of Text starts on (a PDF's): a
	// printed line then names its page, "paper.pdf:page 7:text".
	Pages []int
}

// Page is the 1-based page line is on, 0 without Pages.
func (f File) Page(line int) int {
	p := 0
	for i, start := range f.Pages {
		if start > line {
			break
		}
		p = i + 1
	}
	return p
}

// Line is a selected or context line of a file.
type Line struct {
	Number int    // 1-based line number
	Text   string // the line without its \n; a \r before the \n stays
	Match  bool   // selected (matching, or not matching under Invert); false for context lines
	// Ranges are the byte offsets [start, end) of the matches in Text, for
	// highlighting. They are nil for context lines and under Invert.
	Ranges [][2]int
}

// Result is the outcome of searching one file.
type Result struct {
	File  File
	Lines []Line // selected lines and their context, in file order
	// Count is the number of selected lines, at most Options.MaxCount.
	// Lines can hold more lines marked Match: matches inside the trailing
	// context after the last counted one, as ripgrep prints them.
	Count  int
	Binary bool  // the file holds a NUL byte and was not searched
	Err    error // the file could not be read; Lines and Count are empty
}

// Matcher is a compiled pattern. It is safe for concurrent use.
type Matcher struct {
	opt Options

	// re matches the whole pattern (wrapped for Word); it finds Ranges and
	// decides lines the DFA cannot. For Word, the pattern is capture group 1.
	re *regexp.Regexp
	// wordNext is, for Word, the pattern after a consumed non-word
	// character, to find the matches after the first on a line.
	wordNext *regexp.Regexp

	prog *syntax.Prog // for the per-worker DFAs
	// Every match contains one of lits; none when lits is empty. Lines
	// without them are skipped before the DFA looks at them.
	lits litSet
	// exact: a line matches exactly when it contains one of lits.
	exact bool
}

// Compile parses pattern with Go's RE2 syntax and the line-oriented meanings
// ripgrep gives it (see the package documentation).
func Compile(pattern string, opt Options) (*Matcher, error) {
	switch {
	case opt.Before < 0:
		return nil, fmt.Errorf("%w: Before %d, want >= 0", ErrBadOptions, opt.Before)
	case opt.After < 0:
		return nil, fmt.Errorf("%w: After %d, want >= 0", ErrBadOptions, opt.After)
	case opt.MaxCount < 0:
		return nil, fmt.Errorf("%w: MaxCount %d, want >= 0 (0 means unlimited)", ErrBadOptions, opt.MaxCount)
	}
	flags := syntax.Perl &^ syntax.OneLine
	if opt.IgnoreCase {
		flags |= syntax.FoldCase
	}
	// Parse the pattern as written first, so errors quote it rather than its
	// Unicode translation.
	if _, err := syntax.Parse(pattern, flags); err != nil {
		return nil, badPattern(pattern, err)
	}
	src := translate(pattern)
	tree, err := syntax.Parse(src, flags)
	if err != nil {
		return nil, badPattern(pattern, err)
	}
	if err := lineMode(tree); err != nil {
		return nil, badPattern(pattern, err)
	}
	m := &Matcher{opt: opt}
	m.lits, m.exact = required(tree)
	if opt.Word {
		m.exact = false
	}
	if !m.exact && !m.lits.selective() {
		m.lits = nil
	}

	// Go's regexp only ever runs on one line at a time, where multi-line
	// mode and line mode change nothing, so it compiles from src itself.
	// (Printing tree instead would cost milliseconds for large classes.)
	goSrc := "(?:" + src + ")"
	if opt.IgnoreCase {
		goSrc = "(?i:" + src + ")"
	}
	if opt.Word {
		nonWord := `[^` + unicodeClasses().wordText + `]`
		end := `(?:$|` + nonWord + `)`
		if m.wordNext, err = regexp.Compile(nonWord + `(` + goSrc + `)` + end); err != nil {
			return nil, badPattern(pattern, err)
		}
		goSrc = `(?:^|` + nonWord + `)(` + goSrc + `)` + end
	}
	if m.re, err = regexp.Compile(goSrc); err != nil {
		return nil, badPattern(pattern, err)
	}
	if !m.exact {
		if opt.Word {
			tree = wordWrap(tree)
		}
		if m.prog, err = syntax.Compile(tree.Simplify()); err != nil {
			return nil, badPattern(pattern, err)
		}
	}
	return m, nil
}

func badPattern(pattern string, err error) error {
	msg := err.Error()
	var se *syntax.Error
	if errors.As(err, &se) {
		msg = string(se.Code)
		// Quote the culprit when it is part of what the user wrote, not of
		// its translation.
		if se.Expr != "" && se.Expr != pattern && strings.Contains(pattern, se.Expr) {
			msg += " at `" + se.Expr + "`"
		}
	}
	hint := "write an RE2 regular expression and escape metacharacters such as ( [ { . * + ? with \\ to match them literally"
	if errors.Is(err, errNewline) {
		hint = "search for the text on each side of the line break separately"
	}
	return fmt.Errorf("%w %q: %s; %s", ErrBadPattern, pattern, msg, hint)
}
