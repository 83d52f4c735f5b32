package chunk

import (
	"strings"
	"testing"

	"github.com/braidsearch/braid/markdown"
)

func FuzzChunk(f *testing.F) {
	seeds := []struct {
		src          string
		max, overlap int
	}{
		{"", 0, 0},
		{"# A\ntext\n## B\nmore\n", 0, 0},
		{"---\ntitle: x\n---\n# H\n\n" + strings.Repeat("word ", 300) + "\n", 16, 4},
		{"# Code\n```\n" + strings.Repeat("x := f(y)\n", 50) + "```\nafter\n", 20, 5},
		{"~~~\nunclosed\n# not heading\n" + strings.Repeat("a b c\n", 30), 8, 2},
		{strings.Repeat("abcdefghij", 200), 3, 1},
		{"Setext\n===\n\n    # indented code\n\n> ```\n> q\n> ```\n", 4, 3},
		{"a\r\n\r\nb\r\n# c\r\n", 1, 0},
		{"\xff\xfe # \x00\n#\n##\n", 2, 1},
		{"日本語のテキスト。" + strings.Repeat("漢字", 100), 10, 9},
		{"x\n\n\n\n\ny\n", 1, -1},
		{"```\n```\n```\n", 1, 0},
	}
	for _, s := range seeds {
		f.Add([]byte(s.src), s.max, s.overlap)
	}
	f.Fuzz(func(t *testing.T, src []byte, maxTokens, overlap int) {
		// Keep budgets small enough to exercise splitting.
		opt := Options{MaxTokens: maxTokens % 300, Overlap: overlap % 300}
		doc := markdown.Parse("fuzz.md", src)
		checkChunks(t, src, Markdown(src, doc, opt), opt, doc.BodyStart)
		checkChunks(t, src, Text(src, opt), opt, 0)
	})
}
