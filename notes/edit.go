package notes

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/internal/confine"
	"github.com/braidsearch/braid/markdown"
)

// Editable finds the indexed document a file stands for, named by its path
// or, when no file has that name, as Document takes it, and returns its
// source, the document and the file's real path, symbolic links followed.
// A file whose real path is not an indexed file of a source (outside every
// source, or led out of one by a link) is ErrOutside. It reads the store as
// it is: a cluster backend's caller syncs its local copy first.
func (r *Reader) Editable(name string) (*index.Source, *index.Document, string, error) {
	srcs, err := r.st.Sources()
	if err != nil {
		return nil, nil, "", err
	}
	abs, err := filepath.Abs(name)
	if err != nil {
		return nil, nil, "", err
	}
	if _, err := os.Lstat(abs); err != nil {
		// Not a file path: a document name.
		d, derr := r.Document(name)
		if derr != nil {
			return nil, nil, "", derr
		}
		for _, s := range srcs {
			if s.ID == d.SourceID && (s.Kind == index.SourceDir || s.Kind == index.SourceFile) {
				abs = s.File(d.Path)
			}
		}
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, nil, "", fmt.Errorf("edit %s: %w", name, err)
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
			d, err := r.st.DocByPath(s.ID, rel)
			if err != nil {
				return nil, nil, "", err
			}
			if d != nil {
				return s, d, real, nil
			}
		}
	}
	return nil, nil, "", fmt.Errorf("%w: %s is not a file braid index has indexed; only those can be edited", ErrOutside, name)
}

// AddTags adds tags in style to the markdown file real of document d of
// source src (Editable finds the three) and returns the tags it added;
// the rest of the file keeps every byte (markdown.AddTags), and it is
// replaced atomically with its permissions, unless nothing was added. The
// file is read and replaced through its folder's descriptor, opened
// beneath the source's registered (real) path: a link swapped in for the
// file or a folder on the way is refused or replaced, never followed out
// of the source. limit bounds the read.
func AddTags(src *index.Source, d *index.Document, real string, tags []string, style markdown.TagStyle, limit int64) ([]string, error) {
	dir, name, err := editDir(src, d)
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	if m, err := dir.Stat(name); err != nil || m&fs.ModeSymlink != 0 {
		return nil, fmt.Errorf("%w: %s is a symbolic link or gone; tags are written into the note's own file only", ErrOutside, real)
	}
	data, perm, err := dir.ReadAt(name, limit)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", real, err)
	}
	out, added, err := markdown.AddTags(data, tags, style)
	if err != nil {
		return nil, fmt.Errorf("tag %s: %w", d.Path, err)
	}
	if len(added) == 0 {
		return []string{}, nil
	}
	if err := dir.WriteFile(name, out, perm, true); err != nil {
		return nil, fmt.Errorf("write %s: %w", real, err)
	}
	return added, nil
}

// editDir opens the folder that holds document d of source src, beneath
// the source's registered path, and returns it with the file's name.
func editDir(src *index.Source, d *index.Document) (*confine.Dir, string, error) {
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
