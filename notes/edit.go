package notes

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/braidsearch/braid/index"
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
