package chunk

import (
	"strings"
)

// Boundary levels: how good a place to cut the boundary before an atom is.
const (
	cutInWord    = 1 // between two pieces of one over-long word
	cutWord      = 2 // between two words of one over-long line
	cutLine      = 3 // between lines
	cutParagraph = 4 // at a blank line or around a code fence
)

// atom is the smallest unit packed into chunks: a non-blank line, a word or
// a piece of a word of an over-long line, or a whole fenced code block.
type atom struct {
	line, col   int // start: 0-based line and byte offset in it
	eline, ecol int // end: 0-based line and byte offset just past the atom
	tokens      int
	level       int  // cut level of the boundary before the atom
	fence       bool // a whole fenced code block
	part        bool // a word or piece of a split line
}

// section appends the chunks of lines [lo, hi) to out.
func (c *chunker) section(out []Chunk, lo, hi int, path []string, hasHeading bool) []Chunk {
	a := c.atomize(lo, hi)
	if len(a) == 0 {
		return out
	}
	maxTokens := c.maxTokens
	prevEnd := 0 // atoms before prevEnd are already in a chunk
	for start := 0; start < len(a); {
		sum, j := 0, start
		for j < len(a) && sum+a[j].tokens <= maxTokens {
			sum += a[j].tokens
			j++
		}
		if j == len(a) {
			out = append(out, c.chunk(a[start:], path))
			break
		}
		if j == start {
			// Only a fence is larger than the budget: it stands alone.
			out = append(out, c.chunk(a[start:start+1], path))
			start, prevEnd = start+1, start+1
			continue
		}
		if start == 0 && hasHeading && a[j].fence && a[j].tokens > maxTokens && j <= 3 && !paragraphIn(a[1:j]) {
			// The heading (and its lead-in line) stays with its big code block.
			out = append(out, c.chunk(a[:j+1], path))
			start, prevEnd = j+1, j+1
			continue
		}
		b := c.cut(a, start, max(start, prevEnd)+1, j)
		out = append(out, c.chunk(a[start:b], path))
		start, prevEnd = c.overlapStart(a, start, b), b
	}
	return out
}

func paragraphIn(a []atom) bool {
	for _, x := range a {
		if x.level >= cutParagraph {
			return true
		}
	}
	return false
}

// cut picks where to end a chunk that starts at atom start, given that atoms
// [start, j) fit in the budget and a[j] does not: the boundary of highest
// level among [from, j] that leaves the chunk at least half full, the latest
// of those. When none does, everything that fits goes in (j), so that small
// paragraphs are not left alone.
func (c *chunker) cut(a []atom, start, from, j int) int {
	half := c.maxTokens / 2
	fill := 0
	for i := start; i < from; i++ {
		fill += a[i].tokens
	}
	best, bestLevel := j, -1
	for b := from; b <= j; b++ {
		if fill >= half && a[b].level >= bestLevel {
			best, bestLevel = b, a[b].level
		}
		fill += a[b].tokens
	}
	return best
}

// overlapStart returns where the chunk after a[start:b] starts: at b, or
// earlier so as to repeat whole lines (whole words after a split line) worth
// at most c.overlap tokens, as long as a[b] still fits after them.
func (c *chunker) overlapStart(a []atom, start, b int) int {
	limit := min(c.overlap, c.maxTokens-a[b].tokens)
	need := cutLine
	if a[b-1].part {
		need = cutWord
	}
	p, acc := b, 0
	for i := b - 1; i > start; i-- {
		acc += a[i].tokens
		if acc > limit {
			break
		}
		if a[i].level >= need {
			p = i
		}
	}
	return p
}

// chunk makes a Chunk of the atoms a, which are consecutive.
func (c *chunker) chunk(a []atom, path []string) Chunk {
	first, last := a[0], a[len(a)-1]
	var b strings.Builder
	for l := first.line; l <= last.eline; l++ {
		s := c.lines[l]
		if l == last.eline {
			s = s[:last.ecol]
		}
		if l == first.line {
			s = s[first.col:]
		} else {
			b.WriteByte('\n')
		}
		b.WriteString(s)
	}
	text := strings.TrimRight(b.String(), " \t\r\n\v\f")
	return Chunk{
		Text:        text,
		HeadingPath: path,
		StartLine:   first.line + 1,
		EndLine:     last.eline + 1,
		Tokens:      Count(text),
	}
}

// atomize cuts lines [lo, hi) into atoms.
func (c *chunker) atomize(lo, hi int) []atom {
	a := c.atoms[:0]
	level := cutParagraph
	for i := lo; i < hi; i++ {
		if c.tokens[i] == 0 { // blank
			level = cutParagraph
			continue
		}
		if c.fences {
			if ch, n := fenceOpen(c.lines[i]); n > 0 {
				end := c.fenceEnd(i, hi, ch, n)
				t := 0
				for l := i; l <= end; l++ {
					t += c.tokens[l]
				}
				a = append(a, atom{line: i, eline: end, ecol: len(c.lines[end]), tokens: t, level: cutParagraph, fence: true})
				level = cutParagraph
				i = end
				continue
			}
		}
		if c.tokens[i] <= c.maxTokens {
			a = append(a, atom{line: i, eline: i, ecol: len(c.lines[i]), tokens: c.tokens[i], level: level})
		} else {
			a = c.splitLine(a, i, level)
		}
		level = cutLine
	}
	c.atoms = a
	return a
}

// fenceEnd returns the last line of the fence opened at line i: its closing
// line, or the last non-blank line before hi when it is not closed.
func (c *chunker) fenceEnd(i, hi int, ch byte, n int) int {
	for l := i + 1; l < hi; l++ {
		if fenceCloses(c.lines[l], ch, n) {
			return l
		}
	}
	end := hi - 1
	for end > i && c.tokens[end] == 0 {
		end--
	}
	return end
}

// splitLine appends the words of line i, which is over budget, as atoms;
// words over budget are cut into pieces.
func (c *chunker) splitLine(a []atom, i, level int) []atom {
	s := c.lines[i]
	for k := 0; k < len(s); {
		class, size := nextRune(s, k)
		if class == classSpace {
			k += size
			continue
		}
		// A word: up to the next space.
		w := k
		for w < len(s) {
			class, size := nextRune(s, w)
			if class == classSpace {
				break
			}
			w += size
		}
		if t := Count(s[k:w]); t <= c.maxTokens {
			a = append(a, atom{line: i, col: k, eline: i, ecol: w, tokens: t, level: level, part: true})
		} else {
			a = c.splitWord(a, i, k, w, level)
		}
		level = cutWord
		k = w
	}
	return a
}

// splitWord appends s[k:w] of line i, one word over budget, as pieces of at
// most maxTokens tokens each.
func (c *chunker) splitWord(a []atom, i, k, w, level int) []atom {
	s := c.lines[i]
	start, n := k, 0 // n counts the piece's tokens before its current word
	var cur word
	for k < w {
		class, size := nextRune(s, k)
		nn, next := n, cur
		switch class {
		case classWord:
			next.letters++
		case classDigit:
			next.digits++
		default:
			nn += next.flush() + 1
		}
		if nn+next.tokens() > c.maxTokens && k > start {
			a = append(a, atom{line: i, col: start, eline: i, ecol: k, tokens: n + cur.tokens(), level: level, part: true})
			level = cutInWord
			start, n, cur = k, 0, word{}
			continue // count this rune again in the new piece
		}
		n, cur = nn, next
		k += size
	}
	return append(a, atom{line: i, col: start, eline: i, ecol: w, tokens: n + cur.tokens(), level: level, part: true})
}

// fenceOpen reports whether line opens a fenced code block: after optional
// indentation, blockquote markers and list markers, three or more '`' or
// '~' (a backtick fence's info string holds no backtick). It returns the
// fence character and length, or 0.
func fenceOpen(line string) (byte, int) {
	s := stripContainers(line)
	if len(s) < 3 || s[0] != '`' && s[0] != '~' {
		return 0, 0
	}
	ch := s[0]
	n := 0
	for n < len(s) && s[n] == ch {
		n++
	}
	if n < 3 || ch == '`' && strings.IndexByte(s[n:], '`') >= 0 {
		return 0, 0
	}
	return ch, n
}

// fenceCloses reports whether line closes a fence of n characters ch.
func fenceCloses(line string, ch byte, n int) bool {
	s := stripContainers(line)
	m := 0
	for m < len(s) && s[m] == ch {
		m++
	}
	return m >= n && strings.TrimSpace(s[m:]) == ""
}

// stripContainers removes the indentation, blockquote markers ("> ") and
// list markers ("- ", "* ", "+ ", "1. ", "1) ") that open a line.
func stripContainers(line string) string {
	for {
		s := strings.TrimLeft(line, " \t>")
		if len(s) >= 2 && (s[0] == '-' || s[0] == '*' || s[0] == '+') && (s[1] == ' ' || s[1] == '\t') {
			s = s[2:]
		} else if d := len(s) - len(strings.TrimLeft(s, "0123456789")); d > 0 && d <= 9 && len(s) >= d+2 &&
			(s[d] == '.' || s[d] == ')') && (s[d+1] == ' ' || s[d+1] == '\t') {
			s = s[d+2:]
		}
		if s == line {
			return s
		}
		line = s
	}
}
