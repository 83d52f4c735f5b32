package main

import (
	"fmt"
	"strings"

	"github.com/braidsearch/braid"
)

// InfoCmd says what an id names and where it sits.
type InfoCmd struct {
	ID string `arg:"" help:"A chunk id, a document (id, path, content hash or its first 8+ hex digits, title), a source (id or name) or a folder (relative to its source, source-name/folder, or absolute)."`
}

// Run prints the ancestry, root first.
func (c *InfoCmd) Run(g *Globals) error {
	var in *braid.Info
	err := g.withReader("braid info", func(e *braid.Engine) (err error) {
		in, err = e.Notes().Info(g.docName(c.ID))
		return err
	})
	if err != nil {
		return err
	}
	if g.JSON {
		return g.printJSON(in)
	}
	for depth, n := range in.Ancestry {
		fmt.Fprintf(g.stdout, "%s%-8s  %s\n", strings.Repeat("  ", depth), n.Type, infoLine(n))
	}
	return nil
}

// infoLine describes one node of an ancestry.
func infoLine(n braid.InfoNode) string {
	var parts []string
	switch n.Type {
	case "source":
		parts = append(parts, n.Name, n.Path)
	case "folder":
		parts = append(parts, n.Path+"/")
	case "document":
		parts = append(parts, n.Path, fmt.Sprintf("%q", n.Title))
	case "heading":
		parts = append(parts, n.Name)
	}
	if n.Lines != nil {
		if n.Lines.Start == n.Lines.End {
			parts = append(parts, fmt.Sprintf("line %d", n.Lines.Start))
		} else {
			parts = append(parts, fmt.Sprintf("lines %d-%d", n.Lines.Start, n.Lines.End))
		}
	}
	if n.ID != "" {
		parts = append(parts, "id "+n.ID)
	}
	return strings.Join(parts, "  ")
}
