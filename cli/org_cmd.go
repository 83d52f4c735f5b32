package cli

import "github.com/braidsearch/braid"

// OrgCmd prints the index's identity.
type OrgCmd struct{}

// Run prints it.
func (c *OrgCmd) Run(g *Globals) error {
	return g.show("braid org", func(e *braid.Engine) (texter, error) { return e.Config().Organization(g.ctx) })
}

// ContentsCmd lists a folder's immediate children with their ids.
type ContentsCmd struct {
	Folder string `arg:"" optional:"" help:"A folder id (from an earlier listing), a source, or a folder's path; none lists the sources."`
}

// Run lists them.
func (c *ContentsCmd) Run(g *Globals) error {
	return g.show("braid contents", func(e *braid.Engine) (texter, error) { return e.Notes().Contents(c.Folder) })
}

// LineageCmd traces a chunk across its document's kept versions.
type LineageCmd struct {
	ChunkID string `arg:"" name:"chunk-id" help:"A chunk id, as search --json's chunk_id gives it (DOCUMENT#HASH.N)."`
}

// Run traces it.
func (c *LineageCmd) Run(g *Globals) error {
	return g.show("braid lineage", func(e *braid.Engine) (texter, error) { return e.Notes().Lineage(c.ChunkID) })
}
