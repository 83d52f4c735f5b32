package cli

import (
	"github.com/braidsearch/braid"
)

// InfoCmd says what an id names and where it sits.
type InfoCmd struct {
	ID string `arg:"" help:"A chunk id, a document (id, path, content hash or its first 8+ hex digits, title), a source (id or name) or a folder (relative to its source, source-name/folder, or absolute)."`
}

// Run prints the ancestry, root first.
func (c *InfoCmd) Run(g *Globals) error {
	return g.show("braid info", func(e *braid.Engine) (texter, error) { return e.Notes().Info(g.ctx, g.docName(c.ID)) })
}
