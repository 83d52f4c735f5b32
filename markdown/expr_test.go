package markdown

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// SilverBullet's ${…} expressions are Lua: their [[ ]] and # are not links
// or tags, over several lines too, and the expression ends with its block.
func TestSilverBulletExpressions(t *testing.T) {
	src := "See [[Real]] #real.\n" +
		"${query[[\n  from p = index.pages(\"adr\")\n  select { ADR = \"[[\" .. p.name .. \"]]\", Count = #group }\n]]}\n" +
		"\n" +
		"${some(query[[from a]]) or \"[[Not]]\"} then [[After]] #after\n" +
		"\n" +
		"${unclosed [[Lost]]\n\n[[Next]] and ${template.new[==[ - [[${name}]] ]==]({p=p})} [x](y.md)\n"
	d := Parse("x.md", []byte(src))
	var got []string
	for _, l := range d.Links {
		got = append(got, l.Target)
	}
	if diff := cmp.Diff([]string{"Real", "After", "Next", "y.md"}, got); diff != "" {
		t.Errorf("links (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"real", "after"}, d.Tags); diff != "" {
		t.Errorf("tags (-want +got):\n%s", diff)
	}
}
