package cli

import (
	"fmt"

	"github.com/braidsearch/braid"
)

// TreeCmd prints the folder tree of the sources.
type TreeCmd struct{}

// Run prints the tree.
func (c *TreeCmd) Run(g *Globals) error {
	return g.withReader("braid tree", func(e *braid.Engine) error {
		tree, err := e.Notes().Tree()
		switch {
		case err != nil:
			return err
		case g.JSON:
			return g.printJSON(map[string]any{"sources": tree})
		case len(tree) == 0:
			fmt.Fprintln(g.stderr, "no sources yet; add one with braid index PATH")
		}
		for _, root := range tree {
			fmt.Fprint(g.stdout, root.Tree())
		}
		return nil
	})
}
