package notes

import "testing"

func TestPageTag(t *testing.T) {
	for _, c := range []struct {
		title, file string
		page        int
		want        string
	}{
		{"The Paper", "paper.pdf", 7, "[The Paper, p. 7](paper.pdf#page=7)"},
		{"A [draft]", "my paper (v2).pdf", 12, `[A \[draft\], p. 12](my%20paper%20%28v2%29.pdf#page=12)`},
		{"", "docs/scan.pdf", 1, "[scan.pdf, p. 1](docs/scan.pdf#page=1)"},
	} {
		if got := pageTag(c.title, c.file, c.page); got != c.want {
			t.Errorf("pageTag(%q, %q, %d) = %q, want %q", c.title, c.file, c.page, got, c.want)
		}
	}
	if got := citeTag("T", "a b.md", 3, 9); got != "[T](a%20b.md#L3-L9)" {
		t.Errorf("citeTag = %q", got)
	}
}
