package cli

import (
	"fmt"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/notes"
)

// FindCmd finds documents by name.
type FindCmd struct {
	Query  string `arg:"" help:"Part of a document's title, file name, alias or path; its letters in order match too (gdn finds garden)."`
	Parent string `help:"Only documents under this folder: a path relative to its source, a source name, source-name/folder, or an absolute path." placeholder:"FOLDER"`
	Limit  int    `help:"Results to return." default:"20" short:"n"`
}

// Run finds.
func (c *FindCmd) Run(g *Globals) error {
	if c.Limit < 1 {
		return fmt.Errorf("--limit %d, want 1 or more", c.Limit)
	}
	return g.withReader("braid find", func(e *braid.Engine) error {
		res, err := e.Notes().Find(c.Query, notes.FindOptions{Parent: c.Parent, Limit: c.Limit})
		switch {
		case err != nil:
			return err
		case len(res.Results) == 0 && !g.JSON:
			fmt.Fprintf(g.stderr, "no document's name matches %q; braid search looks in their text\n", c.Query)
			return nil
		}
		return g.print(res, res.Text)
	})
}
