package ingest

import (
	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/internal/confine"
)

// reader reads the listed files of one source for a run, confined to the
// source, as prepareOne and indexImages read them: a folder source's
// beneath its folder, held open for the run (a confine.Dir); a file
// source's one file, which must not be a link, and a --follow-links
// source's files by path (confine.ReadFile, as confine's doc lists). Its
// limit is the source's size limit per file.
type reader struct {
	dir   *confine.Dir
	err   error // why dir could not be opened: every read fails with it
	file  bool  // a file source: its file is its own root
	limit int64
}

// openReader opens the reader of src's files; close releases it.
func openReader(src *index.Source) *reader {
	r := &reader{file: src.Kind == index.SourceFile, limit: src.MaxFileSize}
	if r.limit <= 0 {
		r.limit = DefaultMaxFileSize
	}
	if src.Kind == index.SourceDir && !src.FollowLinks {
		r.dir, r.err = confine.OpenDir(src.Path)
	}
	return r
}

func (r *reader) close() {
	if r.dir != nil {
		r.dir.Close()
	}
}

// readFile reads the file at path through r; a test counts the files
// read through it.
var readFile = (*reader).read

func (r *reader) read(path string) ([]byte, error) {
	switch {
	case r.err != nil:
		return nil, r.err
	case r.dir != nil:
		return r.dir.ReadFile(path, r.limit)
	case r.file:
		return confine.ReadFile(path, path, r.limit)
	}
	return confine.ReadFile("", path, r.limit)
}
