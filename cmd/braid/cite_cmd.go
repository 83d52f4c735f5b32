package main

import (
	"fmt"
	"strings"

	"github.com/braidsearch/braid"
)

// CiteCmd prints the citation of a chunk.
type CiteCmd struct {
	ChunkID string `arg:"" name:"chunk-id" help:"The chunk_id of a search hit (braid search --json shows it)."`
}

// Run prints the citation: the markdown link first, ready to paste.
func (c *CiteCmd) Run(g *Globals) error {
	var ct *braid.Citation
	err := g.withReader("braid cite", func(e *braid.Engine) (err error) {
		ct, err = e.Notes().Cite(c.ChunkID)
		return err
	})
	if err != nil {
		return err
	}
	if g.JSON {
		return g.printJSON(ct)
	}
	fmt.Fprintln(g.stdout, ct.Tag)
	where := fmt.Sprintf("%s:%d-%d", g.displayPath(ct.File), ct.StartLine, ct.EndLine)
	if ct.File == "" {
		where = fmt.Sprintf("%s:%d-%d", ct.Path, ct.StartLine, ct.EndLine)
	}
	if len(ct.HeadingPath) > 0 {
		where += "  § " + strings.Join(ct.HeadingPath, " › ")
	}
	fmt.Fprintln(g.stdout, where)
	fmt.Fprintln(g.stdout, "> "+ct.Snippet)
	return nil
}
