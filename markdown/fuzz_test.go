package markdown

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

func FuzzParse(f *testing.F) {
	seeds := []string{
		"",
		"---",
		"---\n",
		"---\n---",
		"---\r\ntitle: x\r\n---\r\n# H\r\n",
		"\ufeff---\ntags: a b\n...\n",
		"---\ntitle: [unclosed\n---\n# T\n",
		"---\n- list\n---\n",
		"---\na: &a [x]\nb: *a\nc: [[Unquoted]]\nd: \"[[x|y#z]]\"\n---\n",
		"# T\n\n[[a|b]] ![[c#d]] [[#e]] [[]] [[ [[[f]]] ]]\n",
		"| a | [[x\\|y]] |\n|---|---|\n| `[[no]]` | #t |\n",
		"```\n[[no]]\n",
		"~~~\n#no\n~~~\n    [[no]]\n",
		"#tag #123 (#p) a#b #x. #a/b/ #日本\n",
		"[tag: a] [Tags: b, c] [tag: [x]] [tag:\n",
		"<!-- tags: a, b -->\n<details>\n[[h]] <b title=\"[[n]]\">\n</details>\n",
		"Setext\n===\n\n#\n####### no\n",
		"[l](<a b> \"t\") ![i](j) <http://x/#y> [r][] [r]: /u\n",
		"# H\xff\xfe [[\xff|\xfe]] #\xff\n",
		"\x00[[\x00]]#\x00",
		strings.Repeat("[[", 100) + strings.Repeat("]]", 100),
		strings.Repeat("> ", 50) + "[[deep]]",
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		d := Parse("fuzz.md", src)
		lines := bytes.Count(src, []byte{'\n'}) + 1
		if d.BodyStart < 1 || d.BodyStart > lines+1 {
			t.Fatalf("BodyStart %d outside 1..%d", d.BodyStart, lines+1)
		}
		if d.Title == "" {
			t.Errorf("empty title")
		}
		prev := 0
		for _, h := range d.Headings {
			if h.Level < 1 || h.Level > 6 {
				t.Errorf("heading level %d", h.Level)
			}
			if h.Line < d.BodyStart || h.Line > lines || h.Line < prev {
				t.Errorf("heading line %d: body %d..%d, previous %d", h.Line, d.BodyStart, lines, prev)
			}
			prev = h.Line
			checkUTF8(t, h.Text)
		}
		for _, l := range d.Links {
			if l.Line < 1 || l.Line > lines {
				t.Errorf("link %+v outside 1..%d", l, lines)
			}
			if l.Kind == FrontmatterLink && l.Line >= d.BodyStart || l.Kind != FrontmatterLink && l.Line < d.BodyStart {
				t.Errorf("link %+v on the wrong side of BodyStart %d", l, d.BodyStart)
			}
			if (l.Kind == WikiLink || l.Kind == Embed || l.Kind == FrontmatterLink) && l.Target == "" && l.Heading == "" && l.Alt == "" {
				t.Errorf("empty wikilink %+v", l)
			}
			checkUTF8(t, l.Target, l.Alt, l.Heading, l.Text, l.Key)
		}
		seen := map[string]bool{}
		for _, tag := range d.Tags {
			if tag == "" || strings.HasPrefix(tag, "#") || seen[tag] {
				t.Errorf("bad or duplicate tag %q in %q", tag, d.Tags)
			}
			seen[tag] = true
			checkUTF8(t, tag)
		}
		checkUTF8(t, d.Title)
		checkUTF8(t, d.Aliases...)
	})
}

func checkUTF8(t *testing.T, ss ...string) {
	t.Helper()
	for _, s := range ss {
		if !utf8.ValidString(s) {
			t.Errorf("invalid UTF-8 %q", s)
		}
	}
}
