package grep

import (
	"errors"
	"fmt"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// errNewline reports a pattern that needs \n to match, which a line-at-a-time
// search can never give it.
var errNewline = errors.New(`the literal "\n" is not allowed; patterns match within one line`)

// span is an inclusive range of code points.
type span struct{ lo, hi rune }

// classes holds the Unicode sets ripgrep means by \w and \s, as sorted,
// merged spans and as text usable inside a bracket expression.
type classes struct {
	word, space             []span
	wordText, nonWordText   string
	spaceText, nonSpaceText string
}

var (
	classesOnce sync.Once
	uniClasses  classes
)

// unicodeClasses builds the tables on first use; Compile of a pattern without
// \w, \s or -w never pays for them.
func unicodeClasses() *classes {
	classesOnce.Do(func() {
		// Rust's Unicode \w: Alphabetic, Mark, Decimal_Number,
		// Connector_Punctuation, Join_Control. Alphabetic is L + Nl +
		// Other_Alphabetic.
		uniClasses.word = mergeTables(unicode.L, unicode.M, unicode.Nd, unicode.Nl,
			unicode.Pc, unicode.Join_Control, unicode.Other_Alphabetic)
		uniClasses.space = mergeTables(unicode.White_Space)
		uniClasses.wordText = spanText(uniClasses.word)
		uniClasses.nonWordText = spanText(complement(uniClasses.word))
		uniClasses.spaceText = spanText(uniClasses.space)
		uniClasses.nonSpaceText = spanText(complement(uniClasses.space))
	})
	return &uniClasses
}

func mergeTables(tables ...*unicode.RangeTable) []span {
	var s []span
	add := func(lo, hi, stride rune) {
		if stride == 1 {
			s = append(s, span{lo, hi})
			return
		}
		for c := lo; c <= hi; c += stride {
			s = append(s, span{c, c})
		}
	}
	for _, t := range tables {
		for _, r := range t.R16 {
			add(rune(r.Lo), rune(r.Hi), rune(r.Stride))
		}
		for _, r := range t.R32 {
			add(rune(r.Lo), rune(r.Hi), rune(r.Stride))
		}
	}
	slices.SortFunc(s, func(a, b span) int { return int(a.lo - b.lo) })
	out := s[:0]
	for _, r := range s {
		if n := len(out); n > 0 && r.lo <= out[n-1].hi+1 {
			out[n-1].hi = max(out[n-1].hi, r.hi)
			continue
		}
		out = append(out, r)
	}
	return slices.Clip(out)
}

func complement(s []span) []span {
	var out []span
	next := rune(0)
	for _, r := range s {
		if r.lo > next {
			out = append(out, span{next, r.lo - 1})
		}
		next = r.hi + 1
	}
	if next <= unicode.MaxRune {
		out = append(out, span{next, unicode.MaxRune})
	}
	return out
}

func spanText(s []span) string {
	var b strings.Builder
	for _, r := range s {
		if r.lo == r.hi {
			fmt.Fprintf(&b, `\x{%x}`, r.lo)
		} else {
			fmt.Fprintf(&b, `\x{%x}-\x{%x}`, r.lo, r.hi)
		}
	}
	return b.String()
}

// inSpans reports whether r lies in the sorted spans s.
func inSpans(s []span, r rune) bool {
	lo, hi := 0, len(s)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		switch {
		case r < s[m].lo:
			hi = m
		case r > s[m].hi:
			lo = m + 1
		default:
			return true
		}
	}
	return false
}

// isWordRune reports whether r is a word character in ripgrep's Unicode
// sense.
func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return asciiWord[r]
	}
	return inSpans(unicodeClasses().word, r)
}

var asciiWord = func() (t [utf8.RuneSelf]bool) {
	for c := range utf8.RuneSelf {
		t[c] = c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
	}
	return t
}()

// translate rewrites the Perl classes \d \s \w \D \S \W of an RE2 pattern
// into explicit Unicode classes, which is what ripgrep means by them; Go's
// own are ASCII-only. Everything else is copied unchanged but for a \Q
// quote left open, which gets its \E, so the result parses exactly when the
// input does and can be put in a group.
func translate(p string) string {
	if !strings.ContainsAny(p, `\`) {
		return p
	}
	var b strings.Builder
	inClass := false
	literalClose := -1 // index where ']' is a literal (first in a class)
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			n := p[i+1]
			if n == 'Q' && !inClass {
				end := strings.Index(p[i+2:], `\E`)
				if end < 0 {
					// Close the quote, so the result can be wrapped.
					b.WriteString(p[i:])
					b.WriteString(`\E`)
					return b.String()
				}
				b.WriteString(p[i : i+2+end+2])
				i += 2 + end + 1
				continue
			}
			if r, ok := perlClass(n, inClass); ok {
				b.WriteString(r)
			} else {
				b.WriteString(p[i : i+2])
			}
			i++
		case inClass:
			if c == '[' && strings.HasPrefix(p[i:], "[:") {
				if end := strings.Index(p[i+2:], ":]"); end >= 0 {
					b.WriteString(p[i : i+2+end+2])
					i += 2 + end + 1
					continue
				}
			}
			if c == ']' && i != literalClose {
				inClass = false
			}
			b.WriteByte(c)
		case c == '[':
			inClass = true
			b.WriteByte(c)
			if i+1 < len(p) && p[i+1] == '^' {
				b.WriteByte('^')
				i++
			}
			literalClose = i + 1
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// perlClass returns the Unicode replacement for the escape \n, for use inside
// a bracket expression when inClass is set.
func perlClass(n byte, inClass bool) (string, bool) {
	switch n {
	case 'd':
		return `\p{Nd}`, true
	case 'D':
		return `\P{Nd}`, true
	case 'w', 'W', 's', 'S':
	default:
		return "", false
	}
	u := unicodeClasses()
	pos, neg := u.wordText, u.nonWordText
	if n == 's' || n == 'S' {
		pos, neg = u.spaceText, u.nonSpaceText
	}
	switch {
	case inClass && (n == 'w' || n == 's'):
		return pos, true
	case inClass:
		return neg, true
	case n == 'w' || n == 's':
		return "[" + pos + "]", true
	default:
		return "[^" + pos + "]", true
	}
}

// wordWrap returns re as ripgrep 13's -w has it:
// (?:^|\W)(re)(?:$|\W), with \W the Unicode non-word characters but \n.
func wordWrap(re *syntax.Regexp) *syntax.Regexp {
	var nonWord []rune
	for _, s := range complement(unicodeClasses().word) {
		nonWord = append(nonWord, s.lo, s.hi)
	}
	nonWord = removeNewline(nonWord)
	edge := func(op syntax.Op) *syntax.Regexp {
		return &syntax.Regexp{Op: syntax.OpAlternate, Sub: []*syntax.Regexp{
			{Op: op},
			{Op: syntax.OpCharClass, Rune: nonWord},
		}}
	}
	return &syntax.Regexp{Op: syntax.OpConcat, Sub: []*syntax.Regexp{
		edge(syntax.OpBeginLine),
		{Op: syntax.OpCapture, Cap: 1, Sub: []*syntax.Regexp{re}},
		edge(syntax.OpEndLine),
	}}
}

// lineMode rewrites re in place for a search that never crosses a line end:
// \n leaves every class, `.` never matches it, and \A \z become ^ $.
func lineMode(re *syntax.Regexp) error {
	switch re.Op {
	case syntax.OpLiteral:
		if slices.Contains(re.Rune, '\n') {
			return errNewline
		}
	case syntax.OpCharClass:
		if len(re.Rune) == 2 && re.Rune[0] == '\n' && re.Rune[1] == '\n' {
			return errNewline
		}
		re.Rune = removeNewline(re.Rune)
	case syntax.OpAnyChar:
		re.Op = syntax.OpAnyCharNotNL
	case syntax.OpBeginText:
		re.Op = syntax.OpBeginLine
	case syntax.OpEndText:
		re.Op = syntax.OpEndLine
	}
	for _, sub := range re.Sub {
		if err := lineMode(sub); err != nil {
			return err
		}
	}
	return nil
}

// removeNewline drops \n from the class ranges r (pairs lo, hi).
func removeNewline(r []rune) []rune {
	out := make([]rune, 0, len(r)+2)
	for i := 0; i+1 < len(r); i += 2 {
		lo, hi := r[i], r[i+1]
		if lo > '\n' || hi < '\n' {
			out = append(out, lo, hi)
			continue
		}
		if lo < '\n' {
			out = append(out, lo, '\n'-1)
		}
		if hi > '\n' {
			out = append(out, '\n'+1, hi)
		}
	}
	return out
}

// literal is a byte string that every match contains; with fold set it is
// lower-case ASCII and matches ASCII case-insensitively.
type literal struct {
	s    []byte
	fold bool
}

// litSet is a set of literals one of which every match contains; nil when
// none is known.
type litSet []literal

// maxLitSet bounds the literals of an alternation worth searching for one by
// one; beyond it the DFA is faster.
const maxLitSet = 6

// minLen returns the length of the shortest literal of s.
func (s litSet) minLen() int {
	n := 0
	for i, l := range s {
		if i == 0 || len(l.s) < n {
			n = len(l.s)
		}
	}
	return n
}

// better reports whether a is the more selective prefilter.
func (a litSet) better(b litSet) bool {
	switch {
	case len(b) == 0:
		return len(a) > 0
	case len(a) == 0:
		return false
	case a.minLen() != b.minLen():
		return a.minLen() > b.minLen()
	case len(a) != len(b):
		return len(a) < len(b)
	}
	return !a[0].fold && b[0].fold
}

// selective reports whether searching for s first is likely to skip most
// lines: every literal has two bytes or more, or one rare byte.
func (s litSet) selective() bool {
	for _, l := range s {
		if len(l.s) == 1 && byteRank(l.s[0])+byteRank(upperASCII(l.s[0])) > 0 {
			return false
		}
	}
	return len(s) > 0
}

// required returns literals one of which every match of re contains, and
// whether a line matches re exactly when it contains one of them.
func required(re *syntax.Regexp) (litSet, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		l, exact := literalPieces(re.Rune, re.Flags&syntax.FoldCase != 0)
		if len(l.s) == 0 {
			return nil, false
		}
		return litSet{l}, exact
	case syntax.OpCapture:
		return required(re.Sub[0])
	case syntax.OpPlus:
		s, _ := required(re.Sub[0])
		return s, false
	case syntax.OpRepeat:
		if re.Min >= 1 {
			s, _ := required(re.Sub[0])
			return s, false
		}
	case syntax.OpAlternate:
		var set litSet
		exact := true
		for _, sub := range re.Sub {
			s, e := required(sub)
			if len(s) == 0 || len(set)+len(s) > maxLitSet {
				return nil, false
			}
			set = append(set, s...)
			exact = exact && e
		}
		return set, exact
	case syntax.OpConcat:
		var best litSet
		var run []rune
		runFold := false
		consider := func(s litSet) {
			if s.better(best) {
				best = s
			}
		}
		flush := func() {
			if len(run) > 0 {
				if l, _ := literalPieces(run, runFold); len(l.s) > 0 {
					consider(litSet{l})
				}
			}
			run = run[:0]
		}
		for _, sub := range re.Sub {
			if sub.Op == syntax.OpLiteral {
				fold := sub.Flags&syntax.FoldCase != 0
				if fold != runFold {
					flush()
					runFold = fold
				}
				run = append(run, sub.Rune...)
				continue
			}
			flush()
			s, _ := required(sub)
			consider(s)
		}
		flush()
		return best, false
	}
	return nil, false
}

// literalPieces turns the runes of a literal node into a byte literal. A
// case-folded literal is cut at runes whose case variants are not plain ASCII
// (k and s fold to U+212A and U+017F, and non-ASCII letters have several
// encodings); the longest piece that remains is returned, exact only when it
// is the whole literal.
func literalPieces(runes []rune, fold bool) (literal, bool) {
	if !fold {
		return literal{s: []byte(string(runes))}, true
	}
	var best, cur []byte
	whole := true
	letters := false
	for _, r := range runes {
		if !asciiFoldSafe(r) {
			whole = false
			if len(cur) > len(best) {
				best = cur
			}
			cur = nil
			continue
		}
		if 'A' <= r && r <= 'Z' || 'a' <= r && r <= 'z' {
			letters = true
		}
		cur = append(cur, lowerASCII(byte(r)))
	}
	if len(cur) > len(best) {
		best = cur
	}
	return literal{s: best, fold: letters}, whole
}

// asciiFoldSafe reports whether r is ASCII and all its case variants are too.
func asciiFoldSafe(r rune) bool {
	if r >= utf8.RuneSelf {
		return false
	}
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
