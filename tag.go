package braid

import (
	"context"
	"fmt"
	"time"

	"github.com/braidsearch/braid/ingest"
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
	added, err := notes.AddTags(src, d, real, tags, style, ingest.DefaultMaxFileSize)
	if err != nil {
		return nil, err
	}
	res := &TagResult{File: real, ID: d.ID, Path: d.Path, Added: added, Tags: d.Tags}
	if len(added) == 0 {
		return res, nil
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
