package index

import "testing"

func TestMatcher(t *testing.T) {
	tests := []struct {
		glob string
		path string
		want bool
	}{
		{"*.md", "a.md", true},
		{"*.md", "dir/sub/a.md", true},
		{"*.md", "a.txt", false},
		{"docs/*.md", "docs/a.md", true},
		{"docs/*.md", "docs/x/a.md", false},
		{"docs/**/*.md", "docs/x/y/a.md", true},
		{"docs/**/*.md", "docs/a.md", true},
		{"docs/**", "docs/x/y", true},
		{"Library", "Library", true},
		{"Library", "x/Library", true},
		{"a?c.md", "abc.md", true},
		{"[ab].md", "b.md", true},
		{"[!ab].md", "b.md", false},
		{"file (1).md", "file (1).md", true},
		{"a.b.c.md", "aXbXc.md", false},
	}
	for _, tt := range tests {
		m, err := NewMatcher([]string{tt.glob})
		if err != nil {
			t.Fatalf("NewMatcher(%q): %v", tt.glob, err)
		}
		if got := m.Match(tt.path); got != tt.want {
			t.Errorf("glob %q on %q = %v, want %v", tt.glob, tt.path, got, tt.want)
		}
	}
	if _, err := NewMatcher([]string{"a[b"}); err == nil {
		t.Error(`NewMatcher("a[b") = nil error, want one for the unclosed class`)
	}
	var none *Matcher
	if none.Match("x") {
		t.Error("nil Matcher matched")
	}
}
