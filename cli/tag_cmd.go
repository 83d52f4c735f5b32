package cli

import (
	"fmt"
	"strings"

	"github.com/braidsearch/braid"
)

// TagCmd adds tags to a markdown file.
type TagCmd struct {
	File  string   `arg:"" help:"Markdown file of an indexed source (a path, or a document name)."`
	Tags  []string `arg:"" help:"Tags to add, with or without #."`
	Style string   `help:"Where to write them: frontmatter (the tags: list, created when missing) or comment (<!-- tags: a, b -->)." enum:"frontmatter,comment" default:"frontmatter"`
}

// Run writes the tags and re-indexes the file's source.
func (c *TagCmd) Run(g *Globals) error {
	e, done, err := g.openWith(false, "braid tag")
	if err != nil {
		return err
	}
	defer done()
	res, err := e.Tag(g.ctx, g.docName(c.File), c.Tags, braid.TagStyle(c.Style))
	if err != nil {
		return err
	}
	if g.JSON {
		return g.printJSON(res)
	}
	if len(res.Added) == 0 {
		fmt.Fprintf(g.stdout, "%s already has every tag given; nothing written\n", res.Path)
		return nil
	}
	fmt.Fprintf(g.stdout, "%s: added %s; tags now %s\n", res.Path, strings.Join(res.Added, ", "), strings.Join(res.Tags, ", "))
	return nil
}
