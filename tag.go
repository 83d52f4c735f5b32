package braid

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/braidsearch/braid/internal/atomicfile"
	"github.com/braidsearch/braid/markdown"
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
// A file whose real path leaves its source is refused with ErrOutside.
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
	src, d, real, err := e.editable(file)
	if err != nil {
		return nil, err
	}
	if d.Kind != "markdown" {
		return nil, fmt.Errorf("%w: %s is not a markdown file; tags are written into markdown only", ErrBadOption, d.Path)
	}
	data, err := os.ReadFile(real)
	if err != nil {
		return nil, fmt.Errorf("braid: read %s: %w", real, err)
	}
	out, added, err := markdown.AddTags(data, tags, style)
	if err != nil {
		return nil, fmt.Errorf("braid: %s: %w", d.Path, err)
	}
	res := &TagResult{File: real, ID: d.ID, Path: d.Path, Added: added, Tags: d.Tags}
	if res.Added == nil {
		res.Added = []string{}
	}
	if len(added) == 0 {
		return res, nil
	}
	if err := replaceFile(real, out); err != nil {
		return nil, fmt.Errorf("braid: write %s: %w", real, err)
	}
	if _, err := e.Index(ctx, []SourceSpec{{Path: src.Path}}, nil); err != nil {
		return nil, fmt.Errorf("braid: %s was tagged but re-indexing its source failed: %w", d.Path, err)
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

// editable finds the indexed document a file name stands for, and the
// file's real path, which must lie inside its source.
func (e *Engine) editable(name string) (*Source, *Document, string, error) {
	srcs, err := e.st.Sources()
	if err != nil {
		return nil, nil, "", err
	}
	abs, err := filepath.Abs(name)
	if err != nil {
		return nil, nil, "", err
	}
	if _, err := os.Lstat(abs); err != nil {
		// Not a file path: a document name.
		d, derr := e.nt.Document(name)
		if derr != nil {
			return nil, nil, "", derr
		}
		for _, s := range srcs {
			if s.ID == d.SourceID && s.Kind == "dir" {
				abs = filepath.Join(s.Path, filepath.FromSlash(d.Path))
			} else if s.ID == d.SourceID && s.Kind == "file" {
				abs = s.Path
			}
		}
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, nil, "", fmt.Errorf("braid: %s: %w", name, err)
	}
	for _, s := range srcs {
		root, err := filepath.EvalSymlinks(s.Path)
		if err != nil {
			continue
		}
		var rels []string
		switch s.Kind {
		case "dir":
			inside, err := filepath.Rel(root, real)
			if err != nil || !filepath.IsLocal(inside) {
				continue // the real file is not in this source
			}
			if lex, err := filepath.Rel(s.Path, abs); err == nil && filepath.IsLocal(lex) {
				rels = append(rels, filepath.ToSlash(lex))
			}
			rels = append(rels, filepath.ToSlash(inside))
		case "file":
			if real != root {
				continue
			}
			rels = append(rels, filepath.Base(s.Path))
		default:
			continue
		}
		for _, rel := range rels {
			d, err := e.st.DocByPath(s.ID, rel)
			if err != nil {
				return nil, nil, "", err
			}
			if d != nil {
				return s, d, real, nil
			}
		}
	}
	return nil, nil, "", fmt.Errorf("%w: %s (its real path is %s); only files braid index has indexed can be edited", ErrOutside, name, real)
}

// replaceFile writes data to path through a temporary file and a rename,
// keeping the file's permissions.
func replaceFile(path string, data []byte) error {
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, data, info.Mode().Perm())
}
