package opensearch

import (
	"fmt"
	"regexp/syntax"
	"strings"
	"unicode"

	"github.com/braidsearch/braid/query"
)

// globRegexp turns a path glob into a Lucene regular expression (the
// syntax of OpenSearch's regexp query, matched against the whole path)
// that matches exactly the paths index.NewMatcher matches: the glob goes
// through query.GlobRegexp, and the Go expression that gives is parsed and
// written out again in Lucene's syntax, so the two agree on every path by
// construction rather than by a second reading of the glob.
func globRegexp(glob string) (string, error) {
	re, err := query.GlobRegexp(glob)
	if err != nil {
		return "", fmt.Errorf("opensearch: path glob: %w", err)
	}
	// Perl flags are what regexp.Compile, and so index.Matcher, uses.
	tree, err := syntax.Parse(re, syntax.Perl)
	if err != nil {
		return "", fmt.Errorf("opensearch: path glob %q: %w", glob, err)
	}
	var b strings.Builder
	if err := writeLucene(&b, tree); err != nil {
		return "", fmt.Errorf("opensearch: path glob %q: %w", glob, err)
	}
	return b.String(), nil
}

// writeLucene writes re in Lucene's regexp syntax. Lucene anchors the
// expression at both ends of the term, which is what index.Matcher's
// ^…$ does.
func writeLucene(b *strings.Builder, re *syntax.Regexp) error {
	if re.Flags&syntax.FoldCase != 0 && (re.Op == syntax.OpLiteral || re.Op == syntax.OpCharClass) {
		return fmt.Errorf("case-insensitive matching has no Lucene form")
	}
	switch re.Op {
	case syntax.OpEmptyMatch:
		b.WriteString("()")
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			writeRune(b, r)
		}
	case syntax.OpCharClass:
		return writeClass(b, re.Rune)
	case syntax.OpAnyCharNotNL:
		b.WriteString(`[^\` + "\n]")
	case syntax.OpAnyChar:
		b.WriteByte('.')
	case syntax.OpCapture:
		b.WriteByte('(')
		if err := writeLucene(b, re.Sub[0]); err != nil {
			return err
		}
		b.WriteByte(')')
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		if err := writeGrouped(b, re.Sub[0], atom(re.Sub[0])); err != nil {
			return err
		}
		switch re.Op {
		case syntax.OpStar:
			b.WriteByte('*')
		case syntax.OpPlus:
			b.WriteByte('+')
		case syntax.OpQuest:
			b.WriteByte('?')
		default:
			switch {
			case re.Max == re.Min:
				fmt.Fprintf(b, "{%d}", re.Min)
			case re.Max < 0:
				fmt.Fprintf(b, "{%d,}", re.Min)
			default:
				fmt.Fprintf(b, "{%d,%d}", re.Min, re.Max)
			}
		}
	case syntax.OpConcat:
		for _, s := range re.Sub {
			if err := writeGrouped(b, s, s.Op != syntax.OpAlternate); err != nil {
				return err
			}
		}
	case syntax.OpAlternate:
		for i, s := range re.Sub {
			if i > 0 {
				b.WriteByte('|')
			}
			if err := writeLucene(b, s); err != nil {
				return err
			}
		}
	default:
		// Anchors and word boundaries: a glob never gives them, as
		// GlobRegexp quotes every character outside a class.
		return fmt.Errorf("%s has no Lucene form", re)
	}
	return nil
}

// writeGrouped writes re, in parentheses unless bare is true.
func writeGrouped(b *strings.Builder, re *syntax.Regexp, bare bool) error {
	if !bare {
		b.WriteByte('(')
	}
	if err := writeLucene(b, re); err != nil {
		return err
	}
	if !bare {
		b.WriteByte(')')
	}
	return nil
}

// atom reports whether re is written as one unit that a repetition
// operator applies to whole.
func atom(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpLiteral:
		return len(re.Rune) == 1
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL, syntax.OpCapture, syntax.OpEmptyMatch:
		return true
	}
	return false
}

// writeClass writes the class of the sorted, non-overlapping ranges
// (lo, hi pairs), as a negated class when it reaches both ends of Unicode,
// as Go's [^/] does.
func writeClass(b *strings.Builder, ranges []rune) error {
	if len(ranges) == 0 {
		return fmt.Errorf("a character class that matches nothing has no Lucene form")
	}
	negate := ranges[0] == 0 && ranges[len(ranges)-1] == unicode.MaxRune
	if negate {
		var rest []rune // the characters not in the class
		for i := 1; i < len(ranges)-1; i += 2 {
			rest = append(rest, ranges[i]+1, ranges[i+1]-1)
		}
		if len(rest) == 0 { // every character
			b.WriteByte('.')
			return nil
		}
		ranges = rest
	}
	b.WriteByte('[')
	if negate {
		b.WriteByte('^')
	}
	for i := 0; i < len(ranges); i += 2 {
		writeRune(b, ranges[i])
		if ranges[i+1] != ranges[i] {
			b.WriteByte('-')
			writeRune(b, ranges[i+1])
		}
	}
	b.WriteByte(']')
	return nil
}

// writeRune writes r as a literal: ASCII letters and digits and non-ASCII
// characters as they are, every other ASCII character escaped with a
// backslash, which in Lucene makes any character that follows it literal
// (letters are not escaped: \d, \s and \w are classes there).
func writeRune(b *strings.Builder, r rune) {
	if r < 0x80 && !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9') {
		b.WriteByte('\\')
	}
	b.WriteRune(r)
}
