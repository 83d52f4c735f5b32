package markdown

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestParseCaps(t *testing.T) {
	repeat := func(n int, f func(i int) string) string {
		var b strings.Builder
		for i := range n {
			b.WriteString(f(i))
		}
		return b.String()
	}
	tests := []struct {
		name    string
		src     string
		tags    int
		links   int
		heads   int
		dropped Counts
	}{
		{
			name: "tags at the cap",
			src:  repeat(MaxTags, func(i int) string { return fmt.Sprintf("#t%d\n", i) }),
			tags: MaxTags,
		},
		{
			name: "tags past the cap, repeats not counted",
			src: "---\ntags: [a, b]\n---\n" + repeat(MaxTags+10, func(i int) string { return fmt.Sprintf("#t%d #a\n", i) }) +
				"#t0 #t5\n",
			tags:    MaxTags,
			dropped: Counts{Tags: 12},
		},
		{
			name:    "wikilinks, frontmatter links and markdown links share the cap",
			src:     "---\nup: \"[[home]]\"\n---\n" + repeat(MaxLinks, func(i int) string { return fmt.Sprintf("[[n%d]] [m](m%d.md)\n", i, i) }),
			links:   MaxLinks,
			dropped: Counts{Links: MaxLinks + 1},
		},
		{
			name:    "headings past the cap",
			src:     repeat(MaxHeadings+3, func(i int) string { return fmt.Sprintf("## h%d\n", i) }),
			heads:   MaxHeadings,
			dropped: Counts{Headings: 3},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Parse("n.md", []byte(tt.src))
			got := []int{len(d.Tags), len(d.Links), len(d.Headings)}
			if diff := cmp.Diff([]int{tt.tags, tt.links, tt.heads}, got); diff != "" {
				t.Errorf("tags, links, headings kept (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.dropped, d.Dropped); diff != "" {
				t.Errorf("Dropped (-want +got):\n%s", diff)
			}
			if tt.dropped.Any() != d.Dropped.Any() {
				t.Errorf("Dropped.Any() = %v", d.Dropped.Any())
			}
		})
	}
	// Aliases past the cap, and long texts.
	aliases := make([]string, MaxAliases+5)
	for i := range aliases {
		aliases[i] = fmt.Sprintf("a%d", i)
	}
	long := strings.Repeat("é", MaxText) // 2 bytes each
	d := Parse("n.md", []byte("---\ntitle: "+long+"\naliases: ["+strings.Join(aliases, ", ")+"]\n---\n# "+long+"\n\n## short\n"))
	if diff := cmp.Diff(Counts{Aliases: 5, Cut: 2}, d.Dropped); diff != "" {
		t.Errorf("Dropped (-want +got):\n%s", diff)
	}
	if len(d.Aliases) != MaxAliases || d.Aliases[MaxAliases-1] != fmt.Sprintf("a%d", MaxAliases-1) {
		t.Errorf("%d aliases kept, want the first %d", len(d.Aliases), MaxAliases)
	}
	for _, s := range []string{d.Title, d.Headings[0].Text} {
		if len(s) > MaxText || !strings.HasSuffix(s, "é…") || !utf8.ValidString(s) {
			t.Errorf("cut text of %d bytes ends %q, want at most %d ending in é…", len(s), s[len(s)-8:], MaxText)
		}
	}
	if d.Headings[1].Text != "short" {
		t.Errorf("second heading %q, want it whole", d.Headings[1].Text)
	}

	// The first ones in document order are kept.
	d = Parse("n.md", []byte(repeat(MaxTags+1, func(i int) string { return fmt.Sprintf("#t%d\n", i) })))
	if d.Tags[0] != "t0" || d.Tags[MaxTags-1] != fmt.Sprintf("t%d", MaxTags-1) {
		t.Errorf("kept tags %q … %q, want t0 … t%d", d.Tags[0], d.Tags[MaxTags-1], MaxTags-1)
	}
}

// TestParseLongRuns checks that a body parsed in pieces (a stretch of more
// than maxRunLines lines without a blank line) reads as the whole body
// read in one piece: line numbers, a reference definition used after a
// cut, a fence and a multi-line link around a cut, nested list items.
func TestParseLongRuns(t *testing.T) {
	var b strings.Builder
	b.WriteString("---\ntitle: Runs\ntags: [x]\n---\n[ref]: /target.md\n")
	for i := range 3 * maxRunLines {
		switch {
		case i%maxRunLines == maxRunLines-3:
			b.WriteString("```\n[[in code]] #nottag\n[[in code]]\n```\n")
		case i%maxRunLines == maxRunLines/2:
			b.WriteString("a [multi\nline](m.md) link and *emphasis\nover* lines #t\n")
		case i%7 == 0:
			fmt.Fprintf(&b, "  - nested [[deep%d]] #tag%d\n", i, i%5)
		case i%3 == 0:
			fmt.Fprintf(&b, "plain text [[p%d]] and [l](l%d.md) and [ref]\n", i, i)
		default:
			fmt.Fprintf(&b, "- item [[n%d]] <!-- tags: c%d -->\n", i, i%11)
		}
	}
	b.WriteString("\n# End\n\nsee [ref] and [[last]]\n")
	src := []byte(b.String())
	if c := cuts(src, maxRunLines); len(c) < 2 {
		t.Fatalf("cuts = %v, want at least two", c)
	}
	whole := parse("runs.md", src, len(src))
	if len(whole.Links) < 3*maxRunLines || len(whole.Tags) < 10 {
		t.Fatalf("whole parse has %d links and %d tags; the test document is wrong", len(whole.Links), len(whole.Tags))
	}
	if diff := cmp.Diff(whole, Parse("runs.md", src)); diff != "" {
		t.Errorf("in pieces (-whole +pieces):\n%s", diff)
	}
}

func TestCuts(t *testing.T) {
	lines := func(n int, s string) string { return strings.Repeat(s+"\n", n) }
	tests := []struct {
		name string
		src  string
		want []int
	}{
		{"short", lines(4, "a"), nil},
		{"blank lines reset the run", lines(4, "a") + "\n" + lines(4, "a"), nil},
		{"long run", lines(9, "a"), []int{8, 16}},
		{"not inside a fence", "```\n" + lines(6, "a") + "```\n" + lines(4, "b"), []int{20}},
		{"longer fence closes only with as many", "````\n" + lines(5, "a") + "```\n" + lines(2, "a") + "````\nb\nb\n", []int{28}},
		{"not before an indented line or an underline", lines(4, "a") + "  x\n===\n---\nb\nb\n", []int{20}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, cuts([]byte(tt.src), 4)); diff != "" {
				t.Errorf("cuts (-want +got):\n%s", diff)
			}
		})
	}
}

// YAML aliases may not blow a small frontmatter up: yaml.v3 lets each
// decode expand to millions of values, and frontmatter is decoded key by
// key when the whole fails.
func TestFrontmatterAliasBomb(t *testing.T) {
	laughs := "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
	var wide strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&wide, "k%d: *c\n", i)
	}
	tests := []struct {
		name, yaml string
		read       bool
	}{
		{"a few aliases", "base: &base {x: 1, y: [a, b]}\none: *base\ntwo: *base\n", true},
		{"three levels of nine", laughs, true},
		{"billion laughs", laughs + "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: [*e, *e, *e, *e, *e, *e, *e, *e, *e]\n", false},
		{"many keys each expanding", laughs + wide.String(), false},
		{"an alias inside its anchor", "a: &a [x, *a]\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Parse("n.md", []byte("---\ntags: [t]\n"+tt.yaml+"---\n# Body\n"))
			if read := d.Frontmatter != nil; read != tt.read {
				t.Errorf("frontmatter read = %v, want %v; warnings %q", read, tt.read, d.Warnings)
			}
			if !tt.read && (len(d.Warnings) != 1 || !strings.Contains(d.Warnings[0], "aliases") && !strings.Contains(d.Warnings[0], "contains itself")) {
				t.Errorf("warnings %q, want one about aliases", d.Warnings)
			}
			if len(d.Headings) != 1 {
				t.Errorf("headings %v, want the body's", d.Headings)
			}
		})
	}
}

func TestFlatten(t *testing.T) {
	deep := func(unit string, n int) string { return strings.Repeat(unit, n) + "x\n" }
	tests := []struct {
		name, src string
		at        int // offset of the marker read as text; -1 for none
	}{
		{"a normal note", "# T\n\n> quote\n> - item\n>   1. sub\n\n- a\n  - b\n", -1},
		{"at the limit", deep("- ", maxNesting), -1},
		{"bullets past it", deep("- ", maxNesting+5), 2 * maxNesting},
		{"quotes past it", "ok\n" + deep(">", maxNesting+1), 3 + maxNesting},
		{"numbers past it", deep("12. ", maxNesting+1), 4*maxNesting + 2},
		{"mixed", deep("> 1) * ", maxNesting/3+1), 7*(maxNesting/3) + 5},
		{"indented past column maxIndent", strings.Repeat(" ", maxIndent+1) + "- x\n", maxIndent + 1},
		{"a thematic break and emphasis are not markers", "***\n" + deep("-", 200) + deep("*a ", 50), -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := []byte(tt.src)
			got := flatten(src)
			if tt.at < 0 {
				if &got[0] != &src[0] {
					t.Errorf("copied a body that needs no change")
				}
				return
			}
			want := []byte(tt.src)
			want[tt.at] = 'x'
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	// Deep nesting still yields the line's links and tags, and fast.
	d := Parse("n.md", []byte(strings.Repeat("- ", 200_000)+"x [[a]] #t\n"+strings.Repeat("> ", 100_000)+"[[b]]\n"))
	if len(d.Links) != 2 || d.Links[0].Target != "a" || d.Links[1].Target != "b" || len(d.Tags) != 1 {
		t.Errorf("links %+v, tags %q; want a, b and t", d.Links, d.Tags)
	}
}
