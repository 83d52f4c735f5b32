package main

import (
	"fmt"

	"github.com/braidsearch/braid"
)

// TreeCmd prints the folder tree of the sources.
type TreeCmd struct{}

// Run prints the tree.
func (c *TreeCmd) Run(g *Globals) error {
	var tree []*braid.Folder
	err := g.withReader("braid tree", func(e *braid.Engine) (err error) {
		tree, err = e.Notes().Tree()
		return err
	})
	if err != nil {
		return err
	}
	if g.JSON {
		return g.printJSON(map[string]any{"sources": tree})
	}
	if len(tree) == 0 {
		fmt.Fprintln(g.stderr, "no sources yet; add one with braid index PATH")
		return nil
	}
	for _, root := range tree {
		fmt.Fprint(g.stdout, root.Tree())
	}
	return nil
}
