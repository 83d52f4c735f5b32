package cli

import (
	"fmt"
	"io"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/docstore"
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
	req := docstore.AddRequest{Content: c.Content, Name: c.Name, Tags: c.Tag, Metadata: c.Meta, Collection: c.Collection}
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
	return g.showWith(false, "braid add", func(e *braid.Engine) (texter, error) { return e.Store().Add(g.ctx, req) })
}

// UpdateCmd sets a document's metadata and tags.
type UpdateCmd struct {
	Doc  string   `arg:"" help:"The document: a stored name, an id, a path or a content hash."`
	Meta []string `help:"Set metadata KEY=VALUE (repeatable); KEY= removes the key." placeholder:"KEY=VALUE"`
	Tag  []string `help:"Add a tag to a stored document (repeatable); -TAG removes one. A source file's tags live in the file: use braid tag." placeholder:"TAG"`
}

// Run updates the document.
func (c *UpdateCmd) Run(g *Globals) error {
	meta, err := docstore.ParseMeta(c.Meta)
	if err != nil {
		return err
	}
	return g.showWith(false, "braid update", func(e *braid.Engine) (texter, error) {
		return e.Store().Update(g.ctx, docstore.UpdateRequest{Ref: g.docName(c.Doc), Metadata: meta, Tags: c.Tag})
	})
}

// DeleteCmd removes stored documents.
type DeleteCmd struct {
	Names   []string `arg:"" optional:"" help:"Stored documents to delete: names, ids or content hashes."`
	Pattern string   `help:"Delete every stored document whose name matches this glob (e.g. 'drafts/**')." placeholder:"GLOB"`
	DryRun  bool     `help:"List what would be deleted; delete nothing."`
}

// Run deletes.
func (c *DeleteCmd) Run(g *Globals) error {
	return g.showWith(c.DryRun, "braid delete", func(e *braid.Engine) (texter, error) {
		return e.Store().Delete(g.ctx, docstore.DeleteRequest{Names: c.Names, Pattern: c.Pattern, DryRun: c.DryRun})
	})
}

// VersionsCmd lists a document's versions.
type VersionsCmd struct {
	Doc string `arg:"" help:"The document: a stored name, an id, a path or a content hash."`
}

// Run lists the versions.
func (c *VersionsCmd) Run(g *Globals) error {
	return g.show("braid versions", func(e *braid.Engine) (texter, error) { return e.Store().Versions(g.docName(c.Doc)) })
}

// DiffCmd compares two versions of a document.
type DiffCmd struct {
	Doc  string `arg:"" help:"The document: a stored name, an id, a path or a content hash."`
	From string `help:"The older version: a number (1 = oldest) or a content hash; default the one before --to." placeholder:"VERSION"`
	To   string `help:"The newer version: a number or a content hash; default the current one." placeholder:"VERSION"`
}

// Run prints a unified diff.
func (c *DiffCmd) Run(g *Globals) error {
	return g.show("braid diff", func(e *braid.Engine) (texter, error) {
		return e.Store().CompareVersions(g.ctx, g.docName(c.Doc), c.From, c.To)
	})
}
