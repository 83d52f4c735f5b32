package braid

import (
	"context"

	"github.com/braidsearch/braid/grep"
	"github.com/braidsearch/braid/notes"
)

// GrepOptions shapes a Grep.
type GrepOptions struct {
	grep.Options
	// Paths limits the search to indexed documents: a file must be one
	// (notes.ErrNotIndexed otherwise), a directory stands for the indexed
	// documents under it. Empty means every indexed document that is a file.
	Paths []string
	// Name turns an absolute file path into the name printed for it; nil
	// keeps the absolute path.
	Name func(abs string) string
	// Workers bounds parallel file reads; zero means the number of CPUs.
	Workers int
	// Session keeps the documents the named session's pins select
	// (Sessions); empty means any.
	Session string
	// Within confines the grep to the files of these source ids: a
	// signed-in user's granted sources (mcpserver). nil means no
	// confinement, empty (not nil) no file; a path of another source is
	// not an indexed file.
	Within []string
}

// ManyFiles says whether the grep may read more than one file, so that
// its lines name their file, as ripgrep's do unless it is given exactly
// one file (notes.ManyFiles).
func (o GrepOptions) ManyFiles() bool { return notes.ManyFiles(o.Paths) }

// Grep runs an RE2 regular expression over the current files of the indexed
// documents (or those opt.Paths names) and calls emit once per file, in
// path order. A file of a directory source is read only while it stays
// inside the source: a symbolic link swapped in since indexing that leads
// out is reported as an error for that file, not followed. Notes().Files
// chooses the files.
func (e *Engine) Grep(ctx context.Context, pattern string, opt GrepOptions, emit func(grep.Result) error) error {
	if err := e.mirrored(); err != nil { // on a cluster: the files of its sources this machine can read
		return err
	}
	m, err := grep.Compile(pattern, opt.Options)
	if err != nil {
		return err
	}
	files, err := e.nt.Files(ctx, notes.FilesOptions{Paths: opt.Paths, Name: opt.Name, Session: opt.Session, Within: opt.Within})
	if err != nil {
		return err
	}
	return m.Search(ctx, files, opt.Workers, emit)
}
