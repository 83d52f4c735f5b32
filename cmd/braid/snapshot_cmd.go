package main

import (
	"fmt"
	"time"

	"github.com/braidsearch/braid"
)

// CollectionsCmd lists the collections of stored documents.
type CollectionsCmd struct{}

// Run lists the collections.
func (c *CollectionsCmd) Run(g *Globals) error {
	return g.withReader("braid collections", func(e *braid.Engine) error {
		cols, err := e.Store().Collections()
		if err != nil {
			return err
		}
		if g.JSON {
			return g.printJSON(cols)
		}
		if len(cols) == 0 {
			fmt.Fprintln(g.stdout, "no collections yet; braid add --collection NAME puts a document in one")
		}
		for _, c := range cols {
			fmt.Fprintf(g.stdout, "%-20s %5d docs %9s\n", c.Name, c.Documents, braid.FormatBytes(c.Bytes))
		}
		return nil
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
	if g.JSON {
		return g.printJSON(s)
	}
	fmt.Fprintf(g.stdout, "snapshot %s: %d documents, %s; braid restore --snapshot %s --output DIR writes them out\n", s.ID, s.Documents, braid.FormatBytes(s.Bytes), s.ID)
	return nil
}

// SnapshotListCmd lists the snapshots.
type SnapshotListCmd struct{}

// Run lists the snapshots.
func (c *SnapshotListCmd) Run(g *Globals) error {
	return g.withReader("braid snapshot list", func(e *braid.Engine) error {
		all, err := e.Store().Snapshots()
		if err != nil {
			return err
		}
		if g.JSON {
			return g.printJSON(all)
		}
		if len(all) == 0 {
			fmt.Fprintln(g.stdout, "no snapshots yet; braid snapshot create records one")
		}
		for _, s := range all {
			what := "all stored documents"
			if s.Collection != "" {
				what = "collection " + s.Collection
			}
			fmt.Fprintf(g.stdout, "%-4s %s  %-28s %5d docs %9s  %s\n", s.ID, s.Created.Local().Format(time.DateTime), what, s.Documents, braid.FormatBytes(s.Bytes), s.Label)
		}
		return nil
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
	return g.withReader("braid restore", func(e *braid.Engine) error {
		res, err := e.Store().Restore(braid.RestoreRequest{Collection: c.Collection, SnapshotID: c.Snapshot, Output: g.abs(c.Output),
			Include: c.Include, Exclude: c.Exclude, Overwrite: c.Overwrite, DryRun: c.DryRun})
		if err != nil {
			return err
		}
		if g.JSON {
			return g.printJSON(res)
		}
		verb := "wrote"
		if res.DryRun {
			verb = "would write"
		}
		for _, w := range res.Written {
			note := ""
			if w.Replaced {
				note = " (replaced)"
			}
			fmt.Fprintf(g.stdout, "%s %s%s\n", verb, w.File, note)
		}
		for _, s := range res.Skipped {
			fmt.Fprintf(g.stdout, "skipped %s: %s\n", s.Name, s.Reason)
		}
		fmt.Fprintf(g.stdout, "%d written, %d skipped under %s\n", len(res.Written), len(res.Skipped), res.Output)
		return nil
	})
}
