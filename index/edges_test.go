package index

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/braidsearch/braid/graph"
)

func TestGraphEdges(t *testing.T) {
	d := &Document{
		Links: []Link{
			{Kind: "frontmatter", Key: "dependsOn", Target: "ADR/007", Line: 3},
			{Kind: "wikilink", Target: "Page", Alt: "label", Heading: "h", Line: 5},
			{Kind: "wikilink", Heading: "Local heading", Alt: "label", Line: 6}, // [[#Local heading|label]]
			{Kind: "wikilink", Heading: "^block", Line: 6},                      // [[#^block]]
			{Kind: "embed", Target: "diagram.png", Line: 7},
			{Kind: "markdown", Target: "../other.md#part", Text: "other", Line: 8},
			{Kind: "markdown", Target: "https://example.org", Line: 9},
			{Kind: "markdown", Target: "#same-page", Line: 10},
			{Kind: "markdown", Target: "mailto:x@y.org", Line: 11},
		},
		Tags: []string{"adr", "go/backend"},
	}
	want := []graph.Edge{
		{Type: "dependsOn", Target: "ADR/007", Line: 3},
		{Type: graph.Cites, Target: "Page", Alt: "label", Heading: "h", Line: 5},
		{Type: graph.Embeds, Target: "diagram.png", Line: 7},
		{Type: graph.LinksTo, Target: "../other.md#part", Line: 8},
		{Type: graph.TaggedAs, Target: "adr"},
		{Type: graph.TaggedAs, Target: "go/backend"},
	}
	if diff := cmp.Diff(want, graphEdges(d)); diff != "" {
		t.Errorf("graphEdges (-want +got):\n%s", diff)
	}
}
