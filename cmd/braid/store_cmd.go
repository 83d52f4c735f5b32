package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/braidsearch/braid"
)

// AddCmd stores a document in the index's own store.
type AddCmd struct {
	File       string            `arg:"" optional:"" help:"A text or markdown file to copy into the store (or use --content)." type:"path"`
	Content    string            `help:"The document's text, instead of a FILE; '-' reads it from stdin." placeholder:"TEXT"`
	Name       string            `help:"The document's name in the store, a relative path such as notes/idea.md (default: the FILE's base name). Adding a name that exists stores a new version." placeholder:"NAME"`
	Tag        []string          `help:"Tag the document (repeatable)." placeholder:"TAG"`
	Meta       map[string]string `help:"Set metadata KEY=VALUE (repeatable); braid search --meta filters on it." placeholder:"KEY=VALUE"`
	Collection string            `help:"Put the document in this collection (for braid ls, snapshots and restore)." placeholder:"NAME"`
}

// Run stores the document.
func (c *AddCmd) Run(g *Globals) error {
	if (c.File == "") == (c.Content == "") {
		return fmt.Errorf("give a FILE or --content TEXT (one of them)")
	}
	if c.File == "" && c.Name == "" {
		return fmt.Errorf("--content needs --name, the document's name in the store (e.g. notes/idea.md)")
	}
	req := braid.AddRequest{Content: c.Content, Name: c.Name, Tags: c.Tag, Metadata: c.Meta, Collection: c.Collection}
	if c.File != "" {
		req.Path = g.abs(c.File)
	}
	if c.Content == "-" {
		data, err := io.ReadAll(io.LimitReader(g.stdin, braid.DefaultMaxFileSize+1))
		if err != nil {
			return fmt.Errorf("read the content from stdin: %w", err)
		}
		req.Content = string(data)
	}
	e, done, err := g.openWith(false, "braid add")
	if err != nil {
		return err
	}
	defer done()
	res, err := e.Store().Add(g.ctx, req)
	if err != nil {
		return err
	}
	if g.JSON {
		return g.printJSON(res)
	}
	what := "stored"
	if res.Replaced {
		what = "stored a new version of"
	}
	fmt.Fprintf(g.stdout, "%s %s (id %s, version %d, hash %s): %s written, %s already stored\n", what, res.Name, res.ID, res.Version,
		res.Hash[:12], braid.FormatBytes(res.BytesStored), braid.FormatBytes(res.BytesDeduped))
	return nil
}

// UpdateCmd sets a document's metadata and tags.
type UpdateCmd struct {
	Doc  string   `arg:"" help:"The document: a stored name, an id, a path or a content hash."`
	Meta []string `help:"Set metadata KEY=VALUE (repeatable); KEY= removes the key." placeholder:"KEY=VALUE"`
	Tag  []string `help:"Add a tag to a stored document (repeatable); -TAG removes one. A source file's tags live in the file: use braid tag." placeholder:"TAG"`
}

// Run updates the document.
func (c *UpdateCmd) Run(g *Globals) error {
	meta, err := braid.ParseMeta(c.Meta)
	if err != nil {
		return err
	}
	e, done, err := g.openWith(false, "braid update")
	if err != nil {
		return err
	}
	defer done()
	res, err := e.Store().Update(g.ctx, braid.UpdateRequest{Ref: g.docName(c.Doc), Metadata: meta, Tags: c.Tag})
	if err != nil {
		return err
	}
	if g.JSON {
		return g.printJSON(res)
	}
	fmt.Fprintf(g.stdout, "%s (id %s): metadata %s; tags %s\n", res.Path, res.ID, formatMeta(res.Metadata), strings.Join(res.Tags, ", "))
	return nil
}

func formatMeta(m map[string]string) string {
	if len(m) == 0 {
		return "none"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for i, k := range keys {
		keys[i] = k + "=" + m[k]
	}
	return strings.Join(keys, " ")
}

// DeleteCmd removes stored documents.
type DeleteCmd struct {
	Names   []string `arg:"" optional:"" help:"Stored documents to delete: names, ids or content hashes."`
	Pattern string   `help:"Delete every stored document whose name matches this glob (e.g. 'drafts/**')." placeholder:"GLOB"`
	DryRun  bool     `help:"List what would be deleted; delete nothing."`
}

// Run deletes.
func (c *DeleteCmd) Run(g *Globals) error {
	e, done, err := g.openWith(c.DryRun, "braid delete")
	if err != nil {
		return err
	}
	defer done()
	res, err := e.Store().Delete(g.ctx, braid.DeleteRequest{Names: c.Names, Pattern: c.Pattern, DryRun: c.DryRun})
	if err != nil {
		return err
	}
	if g.JSON {
		return g.printJSON(res)
	}
	verb := "deleted"
	if res.DryRun {
		verb = "would delete"
	}
	for _, d := range res.Deleted {
		fmt.Fprintf(g.stdout, "%s %s (id %s, %s)\n", verb, d.Name, d.ID, braid.FormatBytes(d.Size))
	}
	if len(res.Deleted) == 0 {
		fmt.Fprintln(g.stdout, "no stored document matched; nothing deleted")
	} else if !res.DryRun {
		fmt.Fprintf(g.stdout, "%d documents deleted; %d blobs (%s) no longer referenced were removed\n", len(res.Deleted), res.BlobsRemoved, braid.FormatBytes(res.BytesFreed))
	}
	return nil
}

// VersionsCmd lists a document's versions.
type VersionsCmd struct {
	Doc string `arg:"" help:"The document: a stored name, an id, a path or a content hash."`
}

// Run lists the versions.
func (c *VersionsCmd) Run(g *Globals) error {
	return g.withReader("braid versions", func(e *braid.Engine) error {
		l, err := e.Store().Versions(g.docName(c.Doc))
		if err != nil {
			return err
		}
		if g.JSON {
			return g.printJSON(l)
		}
		fmt.Fprintf(g.stdout, "%s (id %s)\n", l.Path, l.ID)
		for _, v := range l.Versions {
			note := ""
			if v.Current {
				note = "  current"
			}
			if !v.Kept {
				note += "  (content not kept)"
			}
			fmt.Fprintf(g.stdout, "  v%-3d %s  %9s  %s%s\n", v.Version.Version, v.Hash[:12], braid.FormatBytes(v.Size), v.Time.Local().Format(time.DateTime), note)
		}
		return nil
	})
}

// DiffCmd compares two versions of a document.
type DiffCmd struct {
	Doc  string `arg:"" help:"The document: a stored name, an id, a path or a content hash."`
	From string `help:"The older version: a number (1 = oldest) or a content hash; default the one before --to." placeholder:"VERSION"`
	To   string `help:"The newer version: a number or a content hash; default the current one." placeholder:"VERSION"`
}

// Run prints a unified diff.
func (c *DiffCmd) Run(g *Globals) error {
	return g.withReader("braid diff", func(e *braid.Engine) error {
		d, err := e.Store().CompareVersions(g.docName(c.Doc), c.From, c.To)
		if err != nil {
			return err
		}
		if g.JSON {
			return g.printJSON(d)
		}
		if d.Diff == "" {
			fmt.Fprintf(g.stdout, "versions %d and %d of %s are identical\n", d.From.Version.Version, d.To.Version.Version, d.Path)
			return nil
		}
		fmt.Fprint(g.stdout, d.Diff)
		return nil
	})
}
