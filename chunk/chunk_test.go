package chunk

import (
	"fmt"
	"strings"
	"testing"

	"github.com/braidsearch/braid/markdown"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestCount(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"", 0},
		{" \t\r\n ", 0},
		{"hello", 1},
		{"hello world", 2},
		{"search", 1},
		{"searching", 2},
		{"internationalization", 4},
		{"don't", 3},
		{"a.b", 3},
		{"x := f(y)", 7},
		{"|---|", 5},
		{"café", 1},
		{"日本語", 3},
		{"naïve\u00a0test", 2},
		{"\xff\xfe", 2},
		{"1670254035385", 7},
		{"2024", 2},
		{"v2", 2},
		{"abc123def", 3},
		{"٣٤", 1},
		{"## Install", 4},
	}
	for _, tt := range tests {
		if got := Count(tt.in); got != tt.want {
			t.Errorf("Count(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func TestCountAdditiveAndSubadditive(t *testing.T) {
	parts := []string{"hello", "wörld!", "a.b", "internationalization", "日本", "\xff", "x_y", "", "  "}
	for _, a := range parts {
		for _, b := range parts {
			if got, want := Count(a+" "+b), Count(a)+Count(b); got != want {
				t.Errorf("Count(%q) = %d, want Count(a)+Count(b) = %d", a+" "+b, got, want)
			}
			if got, bound := Count(a+b), Count(a)+Count(b); got > bound {
				t.Errorf("Count(%q) = %d, more than the parts' %d", a+b, got, bound)
			}
		}
	}
}

// shape is the part of a Chunk the tests compare; Text is checked apart.
type shape struct {
	Path       string
	Start, End int
}

func shapes(cs []Chunk) []shape {
	out := make([]shape, len(cs))
	for i, c := range cs {
		out[i] = shape{strings.Join(c.HeadingPath, " > "), c.StartLine, c.EndLine}
	}
	return out
}

func TestMarkdownSections(t *testing.T) {
	tests := []struct {
		name string
		src  string
		opt  Options
		want []shape
		text []string // when set, the chunk texts
	}{
		{
			name: "heading paths and line ranges",
			src:  "---\ntitle: T\n---\nintro line\n\n# Install\ntext\n\n## Linux\napt\n\n### Debian\ndeb\n## Mac\nbrew\n# Use\nrun\n",
			want: []shape{
				{"", 4, 4},
				{"Install", 6, 7},
				{"Install > Linux", 9, 10},
				{"Install > Linux > Debian", 12, 13},
				{"Install > Mac", 14, 15},
				{"Use", 16, 17},
			},
			text: []string{"intro line", "# Install\ntext", "## Linux\napt", "### Debian\ndeb", "## Mac\nbrew", "# Use\nrun"},
		},
		{
			name: "frontmatter is not chunked and empty sections give nothing",
			src:  "---\ntitle: T\ntags: [a]\n---\n\n   \n# A\n# B\n\n  \n\n## C\nc\n",
			want: []shape{{"A", 7, 7}, {"B", 8, 8}, {"B > C", 12, 13}},
		},
		{
			name: "heading levels that skip",
			src:  "### Deep\na\n# Top\nb\n### Deep2\nc\n## Mid\nd\n",
			want: []shape{{"Deep", 1, 2}, {"Top", 3, 4}, {"Top > Deep2", 5, 6}, {"Top > Mid", 7, 8}},
		},
		{
			name: "setext headings and CRLF",
			src:  "Title\r\n=====\r\ntext\r\n\r\nSub\r\n---\r\nmore\r\n",
			want: []shape{{"Title", 1, 3}, {"Title > Sub", 5, 7}},
			text: []string{"Title\n=====\ntext", "Sub\n---\nmore"},
		},
		{
			name: "heading-like lines in a fence do not cut",
			src:  "# A\n```\n# not a heading\n```\nafter\n",
			want: []shape{{"A", 1, 5}},
		},
		{
			name: "no headings",
			src:  "just\n\ntext\n",
			want: []shape{{"", 1, 3}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := []byte(tt.src)
			got := Markdown(src, markdown.Parse("n.md", src), tt.opt)
			if diff := cmp.Diff(tt.want, shapes(got)); diff != "" {
				t.Errorf("chunks mismatch (-want +got):\n%s", diff)
			}
			if tt.text != nil {
				var texts []string
				for _, c := range got {
					texts = append(texts, c.Text)
				}
				if diff := cmp.Diff(tt.text, texts); diff != "" {
					t.Errorf("texts mismatch (-want +got):\n%s", diff)
				}
			}
			checkChunks(t, src, got, tt.opt, bodyStart(src))
		})
	}
}

// numbered returns count lines of words one-token words each: the word w of
// line i is "x" + letters(i) + "y" + letters(w), unique and at most 6 letters.
func numbered(first, count, words int) []string {
	letters := func(n int) string { return string(rune('a'+n/26%26)) + string(rune('a'+n%26)) }
	var out []string
	for i := first; i < first+count; i++ {
		var ws []string
		for w := range words {
			ws = append(ws, "x"+letters(i)+"y"+letters(w))
		}
		out = append(out, strings.Join(ws, " "))
	}
	return out
}

func TestMarkdownSplitParagraphs(t *testing.T) {
	// Three paragraphs of 4 lines of 5 one-token words: 20 tokens each.
	var lines []string
	lines = append(lines, "# Big")
	for p := range 3 {
		if p > 0 {
			lines = append(lines, "")
		}
		lines = append(lines, numbered(p*10, 4, 5)...)
	}
	src := []byte(strings.Join(lines, "\n") + "\n")
	opt := Options{MaxTokens: 30, Overlap: 5}
	got := Markdown(src, nil, opt)
	want := []shape{{"Big", 1, 5}, {"Big", 5, 10}, {"Big", 10, 15}}
	if diff := cmp.Diff(want, shapes(got)); diff != "" {
		t.Errorf("chunks mismatch (-want +got):\n%s", diff)
	}
	// The pieces after the first start with the last line of the previous
	// one (5 tokens of overlap).
	for i := 1; i < len(got); i++ {
		prev := strings.Split(got[i-1].Text, "\n")
		if first := strings.Split(got[i].Text, "\n")[0]; first != prev[len(prev)-1] {
			t.Errorf("chunk %d starts with %q, want the overlap line %q", i, first, prev[len(prev)-1])
		}
	}
	checkChunks(t, src, got, opt, bodyStart(src))
}

func TestMarkdownSplitLongLine(t *testing.T) {
	words := numbered(0, 1, 50)[0] // 50 words of 1 token
	src := []byte("# H\n\n" + words + "\n")
	opt := Options{MaxTokens: 20, Overlap: 4}
	got := Markdown(src, nil, opt)
	if len(got) < 3 {
		t.Fatalf("got %d chunks, want a long line split in 3 or more: %+v", len(got), got)
	}
	for i, c := range got {
		if c.HeadingPath[0] != "H" {
			t.Errorf("chunk %d path %q", i, c.HeadingPath)
		}
		if i > 0 {
			if c.StartLine != 3 || c.EndLine != 3 {
				t.Errorf("chunk %d lines %d-%d, want 3-3", i, c.StartLine, c.EndLine)
			}
			// Overlap of whole words: starts with the last 4 words of the previous chunk.
			pw := strings.Fields(got[i-1].Text)
			if !strings.HasPrefix(c.Text, strings.Join(pw[len(pw)-4:], " ")+" ") {
				t.Errorf("chunk %d = %q does not start with the last 4 words of %q", i, c.Text, got[i-1].Text)
			}
		}
	}
	checkChunks(t, src, got, opt, bodyStart(src))
}

func TestMarkdownSplitLongWord(t *testing.T) {
	src := []byte("# H\n" + strings.Repeat("abcdef", 100) + "\n")
	opt := Options{MaxTokens: 10, Overlap: 2}
	got := Markdown(src, nil, opt)
	var b strings.Builder
	for _, c := range got[1:] {
		b.WriteString(c.Text)
	}
	if b.String() != strings.Repeat("abcdef", 100) {
		t.Errorf("word pieces do not add up to the word: %q", b.String())
	}
	checkChunks(t, src, got, opt, bodyStart(src))
}

func TestMarkdownFenceNeverSplit(t *testing.T) {
	code := strings.Join(numbered(0, 30, 4), "\n") // 120 tokens
	tests := []struct {
		name string
		src  string
		want []shape
	}{
		{
			name: "oversize fence alone, heading joins it",
			src:  "# Code\n```go\n" + code + "\n```\nafter the fence\n",
			want: []shape{{"Code", 1, 33}, {"Code", 34, 34}},
		},
		{
			name: "oversize fence after text",
			src:  "# Code\n\nsome words before it\n\n~~~\n" + code + "\n~~~\n\ntail\n",
			want: []shape{{"Code", 1, 3}, {"Code", 5, 36}, {"Code", 38, 38}},
		},
		{
			name: "unclosed fence runs to the section end",
			src:  "# Code\n\nintro\n\n```\n" + code + "\n\n# Next\nx\n",
			want: []shape{{"Code", 1, 3}, {"Code", 5, 38}}, // goldmark agrees: "# Next" is code
		},
	}
	opt := Options{MaxTokens: 50, Overlap: 5}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := []byte(tt.src)
			got := Markdown(src, nil, opt)
			if diff := cmp.Diff(tt.want, shapes(got)); diff != "" {
				t.Errorf("chunks mismatch (-want +got):\n%s", diff)
			}
			checkChunks(t, src, got, opt, bodyStart(src))
		})
	}
}

func TestMarkdownSmallFenceKeptWhole(t *testing.T) {
	// Paragraph lines then a 12-token fence: the fence is never cut even
	// where a line cut would fill the chunk better.
	var lines []string
	lines = append(lines, "# S")
	lines = append(lines, numbered(0, 3, 5)...)
	lines = append(lines, "```")
	lines = append(lines, numbered(10, 3, 4)...)
	lines = append(lines, "```")
	lines = append(lines, numbered(20, 3, 5)...)
	src := []byte(strings.Join(lines, "\n"))
	opt := Options{MaxTokens: 25, Overlap: 5}
	got := Markdown(src, nil, opt)
	for _, c := range got {
		if strings.Count(c.Text, "```")%2 != 0 {
			t.Errorf("chunk %d-%d cuts the fence: %q", c.StartLine, c.EndLine, c.Text)
		}
	}
	checkChunks(t, src, got, opt, bodyStart(src))
}

func TestFenceLines(t *testing.T) {
	tests := []struct {
		line string
		ch   byte
		n    int
	}{
		{"```", '`', 3},
		{"```go", '`', 3},
		{"~~~~ md", '~', 4},
		{"   ```", '`', 3},
		{"> ```", '`', 3},
		{"- ```sh", '`', 3},
		{"> 1. ~~~", '~', 3},
		{"``", 0, 0},
		{"``` a ` b", 0, 0},
		{"~~~ a ` b", '~', 3},
		{"text ```", 0, 0},
		{"-```", 0, 0},
	}
	for _, tt := range tests {
		if ch, n := fenceOpen(tt.line); ch != tt.ch || n != tt.n {
			t.Errorf("fenceOpen(%q) = %q, %d, want %q, %d", tt.line, ch, n, tt.ch, tt.n)
		}
	}
	if !fenceCloses("  ````  ", '`', 3) || fenceCloses("``", '`', 3) || fenceCloses("``` x", '`', 3) || fenceCloses("~~~", '`', 3) {
		t.Errorf("fenceCloses is wrong")
	}
}

func TestText(t *testing.T) {
	var lines []string
	for i := range 40 {
		lines = append(lines, fmt.Sprintf("func f%c() { return x }", 'a'+i)) // 9 tokens
		if i%10 == 9 {
			lines = append(lines, "")
		}
	}
	src := []byte(strings.Join(lines, "\n"))
	opt := Options{MaxTokens: 100, Overlap: 10}
	got := Text(src, opt)
	want := []shape{{"", 1, 10}, {"", 10, 21}, {"", 21, 32}, {"", 32, 43}}
	if diff := cmp.Diff(want, shapes(got)); diff != "" {
		t.Errorf("chunks mismatch (-want +got):\n%s", diff)
	}
	checkChunks(t, src, got, opt, 0)
	// No heading logic.
	if got := Text([]byte("# a\nb\n# c\n"), Options{}); len(got) != 1 || got[0].HeadingPath != nil {
		t.Errorf("Text split at headings: %+v", got)
	}
	// No fence logic: a fence larger than the budget is split.
	fence := "```\n" + strings.Join(numbered(0, 20, 5), "\n") + "\n```\n"
	checkChunks(t, []byte(fence), Text([]byte(fence), Options{MaxTokens: 30}), Options{MaxTokens: 30}, 0)
}

func TestEmptyInputs(t *testing.T) {
	for _, src := range []string{"", "\n", "  \n\t\n", "---\ntitle: x\n---\n", "---\ntitle: x\n---"} {
		if got := Markdown([]byte(src), nil, Options{}); len(got) != 0 {
			t.Errorf("Markdown(%q) = %+v, want none", src, got)
		}
		if got := Text([]byte(src), Options{}); strings.TrimSpace(src) == "" && len(got) != 0 {
			t.Errorf("Text(%q) = %+v, want none", src, got)
		}
	}
}

func TestOptionsLimits(t *testing.T) {
	tests := []struct {
		opt          Options
		max, overlap int
	}{
		{Options{}, 512, 64},
		{Options{MaxTokens: 256}, 256, 64},
		{Options{MaxTokens: 32}, 32, 4},
		{Options{MaxTokens: 100, Overlap: -1}, 100, 0},
		{Options{MaxTokens: -5, Overlap: 10}, 512, 10},
		{Options{MaxTokens: 10, Overlap: 10}, 10, 1},
		{Options{MaxTokens: 1}, 1, 0},
	}
	for _, tt := range tests {
		if m, o := tt.opt.limits(); m != tt.max || o != tt.overlap {
			t.Errorf("%+v.limits() = %d, %d, want %d, %d", tt.opt, m, o, tt.max, tt.overlap)
		}
	}
}

func TestMarkdownMismatchedDoc(t *testing.T) {
	// A Doc from another file must not make Markdown panic or lose lines.
	src := []byte("a\nb\n# c\nd\n")
	doc := &markdown.Doc{BodyStart: 99, Headings: []markdown.Heading{{Level: 1, Text: "x", Line: 50}, {Level: 2, Text: "y", Line: -3}}}
	if got := Markdown(src, doc, Options{}); len(got) != 0 {
		t.Errorf("body past the end: got %+v", got)
	}
	doc = &markdown.Doc{BodyStart: 1, Headings: []markdown.Heading{{Level: 2, Text: "b", Line: 3}, {Level: 1, Text: "a", Line: 1}, {Level: 1, Text: "dup", Line: 3}, {Level: 1, Text: "far", Line: 40}}}
	got := Markdown(src, doc, Options{})
	checkChunks(t, src, got, Options{}, 1)
}

// checkChunks verifies the invariants every result must hold. body is the
// 1-based first line to cover (Doc.BodyStart), or 0 for Text chunks.
func checkChunks(t *testing.T, src []byte, cs []Chunk, opt Options, body int) {
	t.Helper()
	maxTokens, _ := opt.limits()
	md := body > 0
	c := newChunker(src, opt, md)
	covered := make([]bool, len(c.lines))
	prevStart := 0
	for i, ch := range cs {
		if ch.StartLine < 1 || ch.EndLine > len(c.lines) || ch.StartLine > ch.EndLine {
			t.Errorf("chunk %d: lines %d-%d outside 1..%d", i, ch.StartLine, ch.EndLine, len(c.lines))
			continue
		}
		if ch.StartLine < prevStart {
			t.Errorf("chunk %d starts at %d, before the previous chunk (%d)", i, ch.StartLine, prevStart)
		}
		prevStart = ch.StartLine
		if strings.TrimSpace(ch.Text) == "" {
			t.Errorf("chunk %d: empty text", i)
		}
		if ch.Tokens != Count(ch.Text) {
			t.Errorf("chunk %d: Tokens %d, Count(Text) %d", i, ch.Tokens, Count(ch.Text))
		}
		if ch.Tokens > maxTokens && !(md && hasFence(ch.Text)) {
			t.Errorf("chunk %d: %d tokens over budget %d without a fence: %q", i, ch.Tokens, maxTokens, ch.Text)
		}
		// Text comes from the lines it claims.
		tl := strings.Split(ch.Text, "\n")
		if len(tl) != ch.EndLine-ch.StartLine+1 {
			t.Errorf("chunk %d: %d text lines for lines %d-%d", i, len(tl), ch.StartLine, ch.EndLine)
		} else {
			for k, l := range tl {
				if !strings.Contains(c.lines[ch.StartLine-1+k], l) {
					t.Errorf("chunk %d: text line %q not in line %d %q", i, l, ch.StartLine+k, c.lines[ch.StartLine-1+k])
				}
			}
		}
		for l := ch.StartLine - 1; l < ch.EndLine; l++ {
			covered[l] = true
		}
	}
	for l := max(body-1, 0); l < len(c.lines); l++ {
		if !covered[l] && c.tokens[l] > 0 {
			t.Errorf("line %d %q is in no chunk", l+1, c.lines[l])
		}
	}
}

func bodyStart(src []byte) int { return markdown.Parse("", src).BodyStart }

func hasFence(s string) bool {
	for l := range strings.SplitSeq(s, "\n") {
		if _, n := fenceOpen(l); n > 0 {
			return true
		}
	}
	return false
}

var _ = cmpopts.EquateEmpty
