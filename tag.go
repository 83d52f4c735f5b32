package braid

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"time"

	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/ingest"
	"github.com/braidsearch/braid/internal/confine"
	"github.com/braidsearch/braid/markdown"
	"github.com/braidsearch/braid/notes"
)

// TagResult is what Tag did.
type TagResult struct {
	File  string   `json:"file"` // the file written (symbolic links followed)
	ID    string   `json:"id"`
	Path  string   `json:"path"`  // relative to its source
	Added []string `json:"added"` // tags the file did not have yet
	Tags  []string `json:"tags"`  // every tag of the document, re-indexed
}

// Tag adds tags to an indexed markdown file (named by its path, or as
// Document accepts) in the given style (empty means TagFrontmatter), then
// re-indexes its source. Tags the document has already, anywhere, are not
// added again; the rest of the file keeps every byte (see
// markdown.AddTags), and it is replaced atomically with its permissions.
// A file whose real path leaves its source is refused with notes.ErrOutside.
func (e *Engine) Tag(ctx context.Context, file string, tags []string, style TagStyle) (*TagResult, error) {
	if err := e.mirrored(); err != nil {
		return nil, err
	}
	if e.opt.ReadOnly {
		return nil, ErrReadOnly
	}
	if len(tags) == 0 {
		return nil, fmt.Errorf("%w: no tags to add", ErrBadOption)
	}
	if style != "" && style != TagFrontmatter && style != TagComment {
		return nil, fmt.Errorf("%w: tag style %q, want %s or %s", ErrBadOption, style, TagFrontmatter, TagComment)
	}
	src, d, real, err := e.nt.Editable(file)
	if err != nil {
		return nil, err
	}
	if d.Kind != "markdown" {
		return nil, fmt.Errorf("%w: %s is not a markdown file; tags are written into markdown only", ErrBadOption, d.Path)
	}
	if err := src.Usable(); err != nil {
		return nil, err
	}
	// Read and replace the file through its folder's descriptor, opened
	// beneath the source's registered (real) path: a link swapped in for
	// the file or a folder on the way is refused or replaced, never
	// followed out of the source.
	dir, name, err := editDir(src, d)
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	if m, err := dir.Stat(name); err != nil || m&fs.ModeSymlink != 0 {
		return nil, fmt.Errorf("%w: %s is a symbolic link or gone; tags are written into the note's own file only", notes.ErrOutside, real)
	}
	data, perm, err := dir.ReadAt(name, ingest.DefaultMaxFileSize)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", real, err)
	}
	out, added, err := markdown.AddTags(data, tags, style)
	if err != nil {
		return nil, fmt.Errorf("tag %s: %w", d.Path, err)
	}
	res := &TagResult{File: real, ID: d.ID, Path: d.Path, Added: added, Tags: d.Tags}
	if res.Added == nil {
		res.Added = []string{}
	}
	if len(added) == 0 {
		return res, nil
	}
	if err := dir.WriteFile(name, out, perm, true); err != nil {
		return nil, fmt.Errorf("write %s: %w", real, err)
	}
	if _, err := e.index(ctx, []*Source{src}, nil, nil, time.Now()); err != nil {
		return nil, fmt.Errorf("%s was tagged but re-indexing its source failed: %w", d.Path, err)
	}
	if err := e.mirrored(); err != nil {
		return nil, err
	}
	if nd, err := e.st.DocByPath(src.ID, d.Path); err != nil {
		return nil, err
	} else if nd != nil {
		res.Tags = nd.Tags
	}
	return res, nil
}

// editDir opens the folder that holds document d of source src, beneath
// the source's registered path, and returns it with the file's name.
func editDir(src *Source, d *index.Document) (*confine.Dir, string, error) {
	if src.Kind == index.SourceFile {
		dir, err := confine.OpenDir(filepath.Dir(src.Path))
		return dir, filepath.Base(src.Path), err
	}
	root, err := confine.OpenDir(src.Path)
	if err != nil {
		return nil, "", err
	}
	defer root.Close()
	rel := filepath.FromSlash(d.Path)
	dir, err := root.Sub(filepath.Dir(rel))
	return dir, filepath.Base(rel), err
}
