package chunk

import (
	"slices"
	"strings"

	"github.com/braidsearch/braid/markdown"
)

// Options sets the size of chunks. The zero value gives the defaults.
type Options struct {
	// MaxTokens is the budget of one chunk, measured with Count. Zero or
	// less means 512.
	MaxTokens int
	// Overlap is how many tokens a chunk repeats from the end of the
	// previous one when a section is split. Zero means 64, less than zero
	// means no overlap, and a value of MaxTokens or more is cut to
	// MaxTokens/8.
	Overlap int
}

// Defaults for Options.
const (
	DefaultMaxTokens = 512
	DefaultOverlap   = 64
)

func (o Options) limits() (maxTokens, overlap int) {
	maxTokens, overlap = o.MaxTokens, o.Overlap
	if maxTokens <= 0 {
		maxTokens = DefaultMaxTokens
	}
	switch {
	case overlap == 0:
		overlap = DefaultOverlap
	case overlap < 0:
		overlap = 0
	}
	if overlap >= maxTokens {
		overlap = maxTokens / 8
	}
	return maxTokens, overlap
}

// Chunk is a piece of a file sized for embedding and lexical indexing.
type Chunk struct {
	// Text is the chunk's source text: whole lines (or, when one line was
	// split, whole words of it), joined by "\n" without '\r', with trailing
	// whitespace removed.
	Text string
	// HeadingPath lists the headings enclosing the chunk, outermost first; it
	// is empty before the first heading and for Text chunks.
	HeadingPath []string
	// StartLine and EndLine are the 1-based, inclusive lines of the original
	// file (frontmatter included) that Text comes from.
	StartLine int
	EndLine   int
	// Tokens is Count(Text).
	Tokens int
}

// Markdown cuts a markdown file into chunks along its headings. doc is the
// result of markdown.Parse for src (nil means Markdown parses src itself);
// lines before doc.BodyStart (the frontmatter) are not chunked.
//
// A section is a heading line and the lines up to the next heading of any
// level. A section that fits in MaxTokens is one chunk, heading line
// included; sections are never merged and no chunk spans two sections. A
// larger section is split at blank lines, else at line ends, else (one line
// over budget) between words, else inside a word, and each piece repeats
// about Overlap tokens of whole lines (or words) from the end of the one
// before. A fenced code block (``` or ~~~) is never split: one larger than
// MaxTokens becomes a chunk of its own, over budget, together with the
// section's heading when at most a line or two, with no blank line, stands
// between them. Whitespace-only sections give no chunk, and every other line
// of the body is in at least one chunk.
func Markdown(src []byte, doc *markdown.Doc, opt Options) []Chunk {
	if doc == nil {
		doc = markdown.Parse("", src)
	}
	c := newChunker(src, opt, true)
	n := len(c.lines)
	body := min(max(doc.BodyStart, 1), n+1) - 1 // 0-based first body line

	// Headings in line order, inside the body, one per line.
	heads := make([]markdown.Heading, 0, len(doc.Headings))
	for _, h := range doc.Headings {
		if h.Line-1 >= body && h.Line <= n {
			heads = append(heads, h)
		}
	}
	slices.SortStableFunc(heads, func(a, b markdown.Heading) int { return a.Line - b.Line })
	heads = slices.CompactFunc(heads, func(a, b markdown.Heading) bool { return a.Line == b.Line })

	var out []Chunk
	end := n
	if len(heads) > 0 {
		end = heads[0].Line - 1
	}
	out = c.section(out, body, end, nil, false)

	type open struct {
		level int
		text  string
	}
	var stack []open
	for i, h := range heads {
		for len(stack) > 0 && stack[len(stack)-1].level >= h.Level {
			stack = stack[:len(stack)-1]
		}
		stack = append(stack, open{h.Level, h.Text})
		path := make([]string, len(stack))
		for j, o := range stack {
			path[j] = o.text
		}
		end := n
		if i+1 < len(heads) {
			end = heads[i+1].Line - 1
		}
		out = c.section(out, h.Line-1, end, path, true)
	}
	return out
}

// Text cuts a plain text or code file into chunks of whole lines, preferring
// to cut at blank lines, with no heading or code fence logic; consecutive
// chunks overlap as in Markdown. Every chunk is within MaxTokens: a line
// longer than that is split between words (or inside a word longer than the
// budget). HeadingPath is always nil.
func Text(src []byte, opt Options) []Chunk {
	c := newChunker(src, opt, false)
	return c.section(nil, 0, len(c.lines), nil, false)
}

// chunker holds one file cut into lines.
type chunker struct {
	lines     []string // without "\n" and a trailing '\r'
	tokens    []int    // Count of each line
	maxTokens int
	overlap   int
	fences    bool
	atoms     []atom // scratch, reused by section
}

func newChunker(src []byte, opt Options, fences bool) *chunker {
	c := &chunker{fences: fences}
	c.maxTokens, c.overlap = opt.limits()
	s := string(src)
	c.lines = make([]string, 0, strings.Count(s, "\n")+1)
	for {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			c.lines = append(c.lines, strings.TrimSuffix(s, "\r"))
			break
		}
		c.lines = append(c.lines, strings.TrimSuffix(s[:i], "\r"))
		s = s[i+1:]
	}
	c.tokens = make([]int, len(c.lines))
	for i, l := range c.lines {
		c.tokens[i] = Count(l)
	}
	return c
}
