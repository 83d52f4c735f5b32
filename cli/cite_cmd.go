package cli

import (
	"github.com/braidsearch/braid"
)

// CiteCmd prints the citation of a chunk.
type CiteCmd struct {
	ChunkID string `arg:"" name:"chunk-id" help:"The chunk_id of a search hit (braid search --json shows it)."`
}

// Run prints the citation: the markdown link first, ready to paste.
func (c *CiteCmd) Run(g *Globals) error {
	return g.withReader("braid cite", func(e *braid.Engine) error {
		ct, err := e.Notes().Cite(g.ctx, c.ChunkID)
		if err != nil {
			return err
		}
		return g.print(ct, func() string { return ct.Text(g.displayPath(ct.File)) })
	})
}
