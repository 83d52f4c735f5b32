package index

import "github.com/braidsearch/braid/graph"

// graphNode is how the link graph names a document.
func graphNode(d *Document) graph.Node {
	return graph.Node{ID: d.ID, SourceID: d.SourceID, Path: d.Path, Title: d.Title, Aliases: d.Aliases}
}

// graphEdges turns what ingest extracted from a document into the edges
// of the link graph: wikilinks cite, embeds embed, markdown links to local
// files link to them (URLs are not edges), a frontmatter link is typed by
// its key, and every tag is a TAGGED_AS edge. A link to a heading of the
// same document ([[#heading]], [[#heading|label]]) is not an edge.
func graphEdges(d *Document) []graph.Edge {
	var out []graph.Edge
	for _, l := range d.Links {
		if l.Target == "" && (l.Alt == "" || l.Heading != "") {
			continue
		}
		e := graph.Edge{Target: l.Target, Alt: l.Alt, Heading: l.Heading, Line: l.Line}
		switch l.Kind {
		case "wikilink":
			e.Type = graph.Cites
		case "embed":
			e.Type = graph.Embeds
		case "markdown":
			if !graph.IsLocal(l.Target) {
				continue
			}
			e.Type = graph.LinksTo
		case "frontmatter":
			e.Type = l.Key
			if e.Type == "" {
				e.Type = graph.Cites
			}
		default:
			continue
		}
		out = append(out, e)
	}
	for _, t := range d.Tags {
		out = append(out, graph.Edge{Type: graph.TaggedAs, Target: t})
	}
	return out
}
