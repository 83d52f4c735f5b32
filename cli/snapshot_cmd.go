package cli

import (
	"fmt"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/docstore"
)

// CollectionsCmd lists the collections of stored documents.
type CollectionsCmd struct{}

// Run lists the collections.
func (c *CollectionsCmd) Run(g *Globals) error {
	return g.withReader("braid collections", func(e *braid.Engine) error {
		cols, err := e.Store().Collections()
		return printLines(g, cols, err, "no collections yet; braid add --collection NAME puts a document in one")
	})
}

// SnapshotCmd creates and lists snapshots.
type SnapshotCmd struct {
	Create SnapshotCreateCmd `cmd:"" help:"Record the current content of the stored documents (or of one --collection)."`
	List   SnapshotListCmd   `cmd:"" default:"1" help:"List the snapshots."`
}

// SnapshotCreateCmd records a snapshot.
type SnapshotCreateCmd struct {
	Collection string `help:"Only the documents of this collection." placeholder:"NAME"`
	Label      string `help:"A note to remember the snapshot by." placeholder:"TEXT"`
}

// Run records the snapshot.
func (c *SnapshotCreateCmd) Run(g *Globals) error {
	e, done, err := g.openWith(false, "braid snapshot")
	if err != nil {
		return err
	}
	defer done()
	s, err := e.Store().CreateSnapshot(c.Collection, c.Label)
	if err != nil {
		return err
	}
	return g.print(s, func() string {
		return fmt.Sprintf("snapshot %s: %d documents, %s; braid restore --snapshot %s --output DIR writes them out\n", s.ID, s.Documents, braid.FormatBytes(s.Bytes), s.ID)
	})
}

// SnapshotListCmd lists the snapshots.
type SnapshotListCmd struct{}

// Run lists the snapshots.
func (c *SnapshotListCmd) Run(g *Globals) error {
	return g.withReader("braid snapshot list", func(e *braid.Engine) error {
		all, err := e.Store().Snapshots()
		return printLines(g, all, err, "no snapshots yet; braid snapshot create records one")
	})
}

// RestoreCmd writes stored documents out to files.
type RestoreCmd struct {
	Output     string   `help:"Directory to write the documents into (created when missing)." required:"" type:"path" placeholder:"DIR"`
	Collection string   `help:"Restore the current documents of this collection." placeholder:"NAME" xor:"what"`
	Snapshot   string   `help:"Restore the documents as this snapshot recorded them." placeholder:"ID" xor:"what"`
	Include    []string `help:"Only documents whose name matches this glob (repeatable)." placeholder:"GLOB"`
	Exclude    []string `help:"Skip documents whose name matches this glob (repeatable)." placeholder:"GLOB"`
	Overwrite  bool     `help:"Replace files that exist (by default they are skipped and listed)."`
	DryRun     bool     `help:"List what would be written and skipped; write nothing."`
}

// Run restores.
func (c *RestoreCmd) Run(g *Globals) error {
	return g.show("braid restore", func(e *braid.Engine) (texter, error) {
		return e.Store().Restore(docstore.RestoreRequest{Collection: c.Collection, SnapshotID: c.Snapshot, Output: g.abs(c.Output),
			Include: c.Include, Exclude: c.Exclude, Overwrite: c.Overwrite, DryRun: c.DryRun})
	})
}
