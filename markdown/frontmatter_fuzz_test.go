package markdown

import (
	"fmt"
	"strings"
	"testing"
)

// FuzzFrontmatter wraps fuzzed YAML in a frontmatter block and checks that
// the body starts right after the block, every map in the frontmatter has
// string keys (so it encodes to JSON), and links found in it lie inside it.
func FuzzFrontmatter(f *testing.F) {
	for _, s := range []string{
		"title: x",
		"tags: [a, b]\naliases: [\"A\"]",
		"tags: a b, c",
		"1: one\ntrue: yes\n~: null",
		"a: {1: {2: [x, {3: y}]}}",
		"a: &x [1]\nb: *x\nc: *y",
		"a: .nan\nb: -.inf\nc: 2001-02-03",
		"link: \"[[Page|alias#h]]\"\nl: |\n  [[x]]\n  [[y]]",
		"- a\n- b",
		"just text",
		"a: [unclosed",
		"\t: tab",
		"a: 'x'\n# comment",
		"a: " + strings.Repeat("{1: ", 110) + "x" + strings.Repeat("}", 110),
		"a: " + strings.Repeat("[", 150) + strings.Repeat("]", 150),
	} {
		f.Add(s, "# Body\n\ntext [[b]]\n")
	}
	f.Fuzz(func(t *testing.T, yaml, body string) {
		for _, l := range strings.Split(yaml, "\n") {
			if l = strings.TrimRight(l, " \t\r"); l == "---" || l == "..." {
				return // it would end the block early
			}
		}
		src := "---\n" + yaml + "\n---\n" + body
		d := Parse("fuzz.md", []byte(src))
		yamlLines := strings.Count(yaml, "\n") + 1
		if want := yamlLines + 3; d.BodyStart != want {
			t.Fatalf("BodyStart %d, want %d for %q", d.BodyStart, want, src)
		}
		if err := stringKeyed(d.Frontmatter, 0); err != nil {
			t.Fatalf("frontmatter of %q: %v", src, err)
		}
		for _, l := range d.Links {
			if l.Kind == FrontmatterLink && (l.Line < 2 || l.Line > yamlLines+1) {
				t.Errorf("frontmatter link %+v outside lines 2..%d", l, yamlLines+1)
			}
		}
	})
}

// stringKeyed reports a map without string keys anywhere under v.
func stringKeyed(v any, depth int) error {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if err := stringKeyed(e, depth+1); err != nil {
				return fmt.Errorf("%q: %w", k, err)
			}
		}
	case []any:
		for _, e := range v {
			if err := stringKeyed(e, depth+1); err != nil {
				return err
			}
		}
	case nil, string, bool, int, int64, uint64, float64:
	default:
		if _, ok := v.(map[any]any); ok {
			return fmt.Errorf("a map with non-string keys at depth %d", depth)
		}
	}
	return nil
}
