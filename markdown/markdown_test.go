package markdown

import (
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// meta is the part of a Doc that frontmatter tests look at.
type meta struct {
	Title       string
	Frontmatter map[string]any
	Aliases     []string
	Tags        []string
	BodyStart   int
	Warned      bool
	Headings    []Heading
}

func metaOf(d *Doc) meta {
	return meta{
		Title: d.Title, Frontmatter: d.Frontmatter, Aliases: d.Aliases, Tags: d.Tags,
		BodyStart: d.BodyStart, Warned: len(d.Warnings) > 0, Headings: d.Headings,
	}
}

func TestParseFrontmatter(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want meta
	}{
		{
			name: "title tags list aliases list other keys",
			src:  "---\ntitle: My Note\ntags: [go, \"#search\"]\naliases:\n  - Note\n  - N\nn: 3\n---\n# Heading\n",
			want: meta{
				Title:       "My Note",
				Frontmatter: map[string]any{"title": "My Note", "tags": []any{"go", "#search"}, "aliases": []any{"Note", "N"}, "n": 3},
				Aliases:     []string{"Note", "N"},
				Tags:        []string{"go", "search"},
				BodyStart:   9,
				Headings:    []Heading{{Level: 1, Text: "Heading", Line: 9}},
			},
		},
		{
			name: "tags string with commas and spaces, alias string",
			src:  "---\ntags: maturity/beta glossary, api\naliases: Doe, John\n---\nbody\n",
			want: meta{
				Title:       "note",
				Frontmatter: map[string]any{"tags": "maturity/beta glossary, api", "aliases": "Doe, John"},
				Aliases:     []string{"Doe, John"},
				Tags:        []string{"maturity/beta", "glossary", "api"},
				BodyStart:   5,
			},
		},
		{
			name: "dendron frontmatter with dotted tags",
			src:  "---\nid: 9bc9\ntitle: Changelog\ndesc: ''\nupdated: 1670254035385\ntags: [my.example, other.one]\n---\n## 0.119.0\n",
			want: meta{
				Title:       "Changelog",
				Frontmatter: map[string]any{"id": "9bc9", "title": "Changelog", "desc": "", "updated": 1670254035385, "tags": []any{"my.example", "other.one"}},
				Tags:        []string{"my.example", "other.one"},
				BodyStart:   8,
				Headings:    []Heading{{Level: 2, Text: "0.119.0", Line: 8}},
			},
		},
		{
			name: "broken yaml is a warning and the body is still parsed",
			src:  "---\ntitle: [unclosed\ntags: a\n---\n# Body\n#tag\n",
			want: meta{
				Title:     "Body",
				Tags:      []string{"tag"},
				BodyStart: 5,
				Warned:    true,
				Headings:  []Heading{{Level: 1, Text: "Body", Line: 5}},
			},
		},
		{
			name: "yaml that is not a mapping",
			src:  "---\n- a\n- b\n---\ntext\n",
			want: meta{Title: "note", BodyStart: 5, Warned: true},
		},
		{
			name: "no closing delimiter means no frontmatter",
			src:  "---\ntitle: x\n# Real\n",
			want: meta{Title: "note", BodyStart: 1, Headings: []Heading{{Level: 1, Text: "Real", Line: 3}}},
		},
		{
			name: "dots close the block",
			src:  "---\ntitle: Dots\n...\nbody\n",
			want: meta{Title: "Dots", Frontmatter: map[string]any{"title": "Dots"}, BodyStart: 4},
		},
		{
			name: "empty block gives an empty map",
			src:  "---\n---\n# T\n",
			want: meta{Title: "T", Frontmatter: map[string]any{}, BodyStart: 3, Headings: []Heading{{Level: 1, Text: "T", Line: 3}}},
		},
		{
			name: "frontmatter only",
			src:  "---\ntitle: x\n---",
			want: meta{Title: "x", Frontmatter: map[string]any{"title": "x"}, BodyStart: 4},
		},
		{
			name: "CRLF and byte order mark",
			src:  "\ufeff---\r\ntitle: CR\r\ntags: [a]\r\n---  \r\n# H\r\n",
			want: meta{Title: "CR", Frontmatter: map[string]any{"title": "CR", "tags": []any{"a"}}, Tags: []string{"a"}, BodyStart: 5, Headings: []Heading{{Level: 1, Text: "H", Line: 5}}},
		},
		{
			name: "opening line must be exactly three dashes",
			src:  "----\ntitle: x\n---\n",
			want: meta{Title: "note", BodyStart: 1, Headings: []Heading{{Level: 2, Text: "title: x", Line: 2}}},
		},
		{
			name: "a level-1 heading after other content is a section, not the title",
			src:  "## Two\n# One\n# Other\n",
			want: meta{Title: "note", BodyStart: 1, Headings: []Heading{{Level: 2, Text: "Two", Line: 1}, {Level: 1, Text: "One", Line: 2}, {Level: 1, Text: "Other", Line: 3}}},
		},
		{
			name: "number title and non-string keys",
			src:  "---\ntitle: 2024\n1: one\nnested: {2: two, true: b}\n---\n",
			want: meta{Title: "2024", Frontmatter: map[string]any{"title": 2024, "1": "one", "nested": map[string]any{"2": "two", "true": "b"}}, BodyStart: 6},
		},
		{
			name: "a value that cannot be decoded is dropped with a warning",
			src:  "---\ntitle: ok\nbad: {[a]: b}\n---\n",
			want: meta{Title: "ok", Frontmatter: map[string]any{"title": "ok"}, BodyStart: 5, Warned: true},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := metaOf(Parse("note.md", []byte(tt.src)))
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Parse(%q) mismatch (-want +got):\n%s", tt.src, diff)
			}
		})
	}
}

func TestParseFrontmatterNilWhenAbsent(t *testing.T) {
	if d := Parse("a.md", []byte("# x\n")); d.Frontmatter != nil {
		t.Errorf("Frontmatter = %#v, want nil", d.Frontmatter)
	}
	if d := Parse("a.md", []byte("---\n---\n")); d.Frontmatter == nil {
		t.Errorf("Frontmatter of an empty block = nil, want empty map")
	}
}

func TestParseWarningPrefix(t *testing.T) {
	d := Parse("a.md", []byte("---\na: [\n---\n"))
	if len(d.Warnings) != 1 || !strings.HasPrefix(d.Warnings[0], "markdown: frontmatter: ") {
		t.Errorf("Warnings = %q, want one starting with %q", d.Warnings, "markdown: frontmatter: ")
	}
}

func TestParseTitleFallback(t *testing.T) {
	tests := []struct{ name, file, src, want string }{
		{"extension stripped", "a.b.c.md", "text", "a.b.c"},
		{"path kept", "ADR/007 x.md", "", "ADR/007 x"},
		{"no extension", "README", "", "README"},
		{"empty h1 is no title", "n.md", "#\n# Real\n", "n"},
		{"h1 after blank lines", "n.md", "\n\n# Real\n", "Real"},
		{"h1 after a paragraph is a section", "n.md", "intro\n\n# Section\n", "n"},
		{"h1 markup stripped", "n.md", "# *Big* `code` [link](x) \\*\n", "Big code link *"},
		{"empty frontmatter title", "n.md", "---\ntitle: \"\"\n---\n# H\n", "H"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Parse(tt.file, []byte(tt.src)).Title; got != tt.want {
				t.Errorf("Title = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestParseHeadings(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []Heading
	}{
		{
			name: "atx levels with frontmatter offset",
			src:  "---\na: 1\n---\n# One\ntext\n\n## Two ##\n### Three *em* `code`\n",
			want: []Heading{{1, "One", 4}, {2, "Two", 7}, {3, "Three em code", 8}},
		},
		{
			name: "setext headings",
			src:  "intro\n\nTitle\n=====\n\nSub\nline\n---\n",
			want: []Heading{{1, "Title", 3}, {2, "Sub line", 6}},
		},
		{
			name: "headings in code are not headings",
			src:  "```\n# not\n```\n\n    # not either\n\n~~~md\n## no\n~~~\n# yes\n",
			want: []Heading{{1, "yes", 10}},
		},
		{
			name: "heading in blockquote and list",
			src:  "> # Quoted\n\n- ## Item\n",
			want: []Heading{{1, "Quoted", 1}, {2, "Item", 3}},
		},
		{
			name: "empty heading and no space is not a heading",
			src:  "#\n#NotHeading\n####### seven\n",
			want: []Heading{{1, "", 1}},
		},
		{
			name: "CRLF",
			src:  "a\r\n\r\n# One\r\n\r\n## Two\r\n",
			want: []Heading{{1, "One", 3}, {2, "Two", 5}},
		},
		{
			name: "indented up to three spaces",
			src:  "   # Three\n",
			want: []Heading{{1, "Three", 1}},
		},
		{
			name: "unterminated fence swallows the rest",
			src:  "# A\n```\n# B\n",
			want: []Heading{{1, "A", 1}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Parse("n.md", []byte(tt.src)).Headings
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Headings mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseLinks(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []Link
	}{
		{
			name: "wikilink forms",
			src:  "See [[Page]], [[Page#Sec tion]] and [[Page#^block1]].\n[[Obsidian target|shown text]] [[#Local]]\n",
			want: []Link{
				{Kind: WikiLink, Target: "Page", Line: 1},
				{Kind: WikiLink, Target: "Page", Heading: "Sec tion", Line: 1},
				{Kind: WikiLink, Target: "Page", Heading: "^block1", Line: 1},
				{Kind: WikiLink, Target: "Obsidian target", Alt: "shown text", Line: 2},
				{Kind: WikiLink, Heading: "Local", Line: 2},
			},
		},
		{
			name: "dendron label then target with anchor",
			src:  "[[lookupConfirm|dendron.ref.config#lookupconfirm]] [[x|dendron://vault/a.b]]\n",
			want: []Link{
				{Kind: WikiLink, Target: "lookupConfirm", Alt: "dendron.ref.config", Heading: "lookupconfirm", Line: 1},
				{Kind: WikiLink, Target: "x", Alt: "dendron://vault/a.b", Line: 1},
			},
		},
		{
			name: "embeds",
			src:  "![[image.png]]\n\n![[note#part]] text ![[a|b]]\n",
			want: []Link{
				{Kind: Embed, Target: "image.png", Line: 1},
				{Kind: Embed, Target: "note", Heading: "part", Line: 3},
				{Kind: Embed, Target: "a", Alt: "b", Line: 3},
			},
		},
		{
			name: "markdown links images and autolinks",
			src:  "[Text *em*](other.md#sec) ![alt](img.png \"title\")\n<https://example.com/a#b> [ref][r] [e](<a b.md>) [esc](a\\_b&amp;c.md)\n\n[r]: http://ref.example\n",
			want: []Link{
				{Kind: MarkdownLink, Target: "other.md#sec", Text: "Text em", Line: 1},
				{Kind: MarkdownLink, Target: "img.png", Text: "alt", Line: 1},
				{Kind: MarkdownLink, Target: "https://example.com/a#b", Text: "https://example.com/a#b", Line: 2},
				{Kind: MarkdownLink, Target: "http://ref.example", Text: "ref", Line: 2},
				{Kind: MarkdownLink, Target: "a b.md", Text: "e", Line: 2},
				{Kind: MarkdownLink, Target: "a_b&c.md", Text: "esc", Line: 2},
			},
		},
		{
			name: "nothing in backtick fences",
			src:  "```lua\n[[no]] [no](no.md) ![[no]]\n```\n[[yes]]\n",
			want: []Link{{Kind: WikiLink, Target: "yes", Line: 4}},
		},
		{
			name: "nothing in tilde fences",
			src:  "~~~\n[[no]]\n~~~\n[[yes]]\n",
			want: []Link{{Kind: WikiLink, Target: "yes", Line: 4}},
		},
		{
			name: "nothing in indented code",
			src:  "para\n\n    [[no]] [no](x)\n\n[[yes]]\n",
			want: []Link{{Kind: WikiLink, Target: "yes", Line: 5}},
		},
		{
			name: "nothing in inline code",
			src:  "`[[no]]` and ``a [[no]] ` b`` but [[yes]] and `[x](y)`\n",
			want: []Link{{Kind: WikiLink, Target: "yes", Line: 1}},
		},
		{
			name: "html: text between tags only, not comments, scripts or styles",
			src:  "<details title=\"[[no]]\">\n<summary>[[sum]]</summary> #tagged\n<!-- [[no]]\n[[no]] -->\n</details>\n\ntext <span title=\"[[no]]\">[[yes]]</span> <!-- [[no]] -->\n\n<script>\n[[no]]\n</script>\n<style>\n#no { color: #fff }\n</style>\n",
			want: []Link{{Kind: WikiLink, Target: "sum", Line: 2}, {Kind: WikiLink, Target: "yes", Line: 7}},
		},
		{
			name: "pipes in a table cell",
			src:  "| a | b |\n|---|---|\n| [[x|y]] | [[p\\|q]] |\n",
			want: []Link{
				{Kind: WikiLink, Target: "x", Alt: "y", Line: 3},
				{Kind: WikiLink, Target: "p", Alt: "q", Line: 3},
			},
		},
		{
			name: "frontmatter wikilinks",
			src:  "---\ndependsOn: [\"[[ADR/007 x]]\"]\npartOf: \"[[Architecture/Client]]\"\ndesc: 'see [[Topic|dendron://v/t]] and [[u]]'\nunquoted: [[Bare]]\nblock: |\n  one [[L1]]\n\n  three [[L3]] [[L3b]]\nnested:\n  deep: [{k: \"[[Deep]]\"}]\n---\n[[body]]\n",
			want: []Link{
				{Kind: FrontmatterLink, Target: "ADR/007 x", Key: "dependsOn", Line: 2},
				{Kind: FrontmatterLink, Target: "Architecture/Client", Key: "partOf", Line: 3},
				{Kind: FrontmatterLink, Target: "Topic", Alt: "dendron://v/t", Key: "desc", Line: 4},
				{Kind: FrontmatterLink, Target: "u", Key: "desc", Line: 4},
				{Kind: FrontmatterLink, Target: "Bare", Key: "unquoted", Line: 5},
				{Kind: FrontmatterLink, Target: "L1", Key: "block", Line: 7},
				{Kind: FrontmatterLink, Target: "L3", Key: "block", Line: 9},
				{Kind: FrontmatterLink, Target: "L3b", Key: "block", Line: 9},
				{Kind: FrontmatterLink, Target: "Deep", Key: "nested", Line: 11},
				{Kind: WikiLink, Target: "body", Line: 13},
			},
		},
		{
			name: "odd brackets",
			src:  "[[]] [[ ]] [[unclosed and [[[inner]]] x]] [[a]b]]\n[[next\nline]]\n",
			want: []Link{
				{Kind: WikiLink, Target: "inner", Line: 1},
				{Kind: WikiLink, Target: "a]b", Line: 1},
			},
		},
		{
			name: "reference definitions do not hide wikilinks",
			src:  "[[x]] and ![[y|z]] but [x] is a link\n\n[x]: /def\n[y|z]: /yz\n",
			want: []Link{
				{Kind: WikiLink, Target: "x", Line: 1},
				{Kind: Embed, Target: "y", Alt: "z", Line: 1},
				{Kind: MarkdownLink, Target: "/def", Text: "x", Line: 1},
			},
		},
		{
			name: "in headings lists and quotes",
			src:  "# About [[A]]\n\n- item [[B]]\n  > quote ![[C]]\n",
			want: []Link{
				{Kind: WikiLink, Target: "A", Line: 1},
				{Kind: WikiLink, Target: "B", Line: 3},
				{Kind: Embed, Target: "C", Line: 4},
			},
		},
		{
			name: "CRLF line numbers",
			src:  "---\r\nrel: \"[[R]]\"\r\n---\r\n\r\n[[a]]\r\n\r\n```\r\n[[no]]\r\n```\r\n[b](c.md)\r\n",
			want: []Link{
				{Kind: FrontmatterLink, Target: "R", Key: "rel", Line: 2},
				{Kind: WikiLink, Target: "a", Line: 5},
				{Kind: MarkdownLink, Target: "c.md", Text: "b", Line: 10},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Parse("n.md", []byte(tt.src)).Links
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Links mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseTags(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{"start of line and after space", "#one two #two\n", []string{"one", "two"}},
		{"after parenthesis", "(#paren) x(#also) x[#no]\n", []string{"paren", "also"}},
		{"digits only are not tags", "#123 (#3787) #2024-01 #1.5\n", []string{"2024-01"}},
		{"nested and dotted", "#meta/template #role.farmer #a_b-c\n", []string{"meta/template", "role.farmer", "a_b-c"}},
		{"trailing punctuation dropped", "#done. #end, #q? #dash- #slash/\n", []string{"done", "end", "q", "dash", "slash"}},
		{"not inside words or urls", "a#b http://x.com/#frag issue#12 &#35;\n", nil},
		{"heading marker is not a tag", "# Title\n## #inheading\n", []string{"inheading"}},
		{"escaped hash", "\\#escaped\n", nil},
		{"not in code", "```\n#nope\n```\n    #nope2\n\n`#nope3` #yes\n", []string{"yes"}},
		{"not in link destinations", "[x](#anchor) [y](<#b>) <http://x/#c>\n", nil},
		{"unicode", "#café #日本\n", []string{"café", "日本"}},
		{"deduplicated first seen order", "---\ntags: [b]\n---\n#a #b #a\n<!-- tags: c, a -->\n", []string{"b", "a", "c"}},
		{"comment blocks", "<!-- tags: x, y z -->\n\ntext <!--tags: w--> and <!-- other -->\n<!--\nTags: multi,\n line\n-->\n", []string{"x", "y", "z", "w", "multi", "line"}},
		{"html text but not styles", "<details>\n<summary>x</summary> #inhtml\n</details>\n\n<style>\n#no { color: #fff }\n</style>\n", []string{"inhtml"}},
		{"no comment tags in code", "```\n<!-- tags: no -->\n```\n", nil},
		{"case sensitive", "#Go #go\n", []string{"Go", "go"}},
		{"invalid utf-8 ends a tag", "#ab\xffcd\n", []string{"ab"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Parse("n.md", []byte(tt.src)).Tags
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Tags of %q mismatch (-want +got):\n%s", tt.src, diff)
			}
		})
	}
}

func TestParseCRLFMatchesLF(t *testing.T) {
	lf := "---\ntitle: T\ntags: [a]\ndep: \"[[D]]\"\n---\n# One\n\ntext [[x|y]] #tag\n\n```\n[[no]]\n```\n\nSetext\n---\n\n- [l](u.md) ![[e]]\n"
	crlf := strings.ReplaceAll(lf, "\n", "\r\n")
	a, b := Parse("n.md", []byte(lf)), Parse("n.md", []byte(crlf))
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("CRLF parse differs from LF (-lf +crlf):\n%s", diff)
	}
}

func TestParseInvalidUTF8(t *testing.T) {
	src := "---\ntitle: \xff\n---\n# H\xfe\xff [[p\xc3|q\xff]] #t\xe2\x82\n[x\xff](y\xff)\n"
	d := Parse("bad\xff.md", []byte(src))
	if len(d.Warnings) == 0 {
		t.Errorf("no warning for invalid UTF-8 in YAML")
	}
	strs := []string{d.Title}
	for _, h := range d.Headings {
		strs = append(strs, h.Text)
	}
	for _, l := range d.Links {
		strs = append(strs, l.Target, l.Alt, l.Heading, l.Text)
	}
	strs = append(strs, d.Tags...)
	for _, s := range strs {
		if !utf8.ValidString(s) {
			t.Errorf("invalid UTF-8 in result: %q", s)
		}
	}
	want := []Heading{{Level: 1, Text: "H\uFFFD [[p\uFFFD|q\uFFFD]] #t\uFFFD", Line: 4}}
	if diff := cmp.Diff(want, d.Headings); diff != "" {
		t.Errorf("Headings mismatch (-want +got):\n%s", diff)
	}
	if len(d.Links) != 2 {
		t.Errorf("got %d links, want 2: %+v", len(d.Links), d.Links)
	}
}

func TestParseHugeAndOddInputs(t *testing.T) {
	inputs := map[string]string{
		"huge line":          strings.Repeat("word [[x]] #t ", 20000),
		"many open brackets": strings.Repeat("[[", 20000),
		"many hashes":        strings.Repeat("#", 20000),
		"deep nesting":       strings.Repeat("> - ", 500) + "x",
		"many backticks":     strings.Repeat("`", 20000) + "\n" + strings.Repeat("a`", 20000),
		"only dashes":        "---",
		"dashes and nl":      "---\n",
		"nul bytes":          "\x00# \x00\n[[\x00]]",
		"yaml alias bomb":    "---\na: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n---\n",
	}
	for name, src := range inputs {
		t.Run(name, func(t *testing.T) {
			_ = Parse("n.md", []byte(src))
		})
	}
}

func TestParseConcurrent(t *testing.T) {
	src := []byte("---\ntags: [a]\n---\n# T\n[[x]] #y [z](w)\n")
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				if d := Parse("n.md", src); len(d.Links) != 2 {
					t.Errorf("got %d links, want 2", len(d.Links))
				}
			}
		})
	}
	wg.Wait()
}
