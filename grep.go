package braid

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/braidsearch/braid/bucket"
	"github.com/braidsearch/braid/grep"
	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/internal/confine"
)

// GrepOptions shapes a Grep.
type GrepOptions struct {
	grep.Options
	// Paths limits the search to indexed documents: a file must be one
	// (ErrNotIndexed otherwise), a directory stands for the indexed
	// documents under it. Empty means every indexed document that is a file.
	Paths []string
	// Name turns an absolute file path into the name printed for it; nil
	// keeps the absolute path.
	Name func(abs string) string
	// Workers bounds parallel file reads; zero means the number of CPUs.
	Workers int
}

// ErrNotIndexed is the error for a grep path that is no indexed document:
// grep reads only what the index holds, so a path cannot make it read any
// other file.
var ErrNotIndexed = errors.New("braid: not an indexed file")

// Grep runs an RE2 regular expression over the current files of the indexed
// documents (or those opt.Paths names) and calls emit once per file, in
// path order. A file of a directory source is read only while it stays
// inside the source: a symbolic link swapped in since indexing that leads
// out is reported as an error for that file, not followed.
func (e *Engine) Grep(ctx context.Context, pattern string, opt GrepOptions, emit func(grep.Result) error) error {
	if err := e.mirrored(); err != nil { // on a cluster: the files of its sources this machine can read
		return err
	}
	m, err := grep.Compile(pattern, opt.Options)
	if err != nil {
		return err
	}
	files, err := e.grepFiles(opt.Paths)
	if err != nil {
		return err
	}
	stored, err := e.docs.Files()
	if err != nil {
		return err
	}
	for i, f := range files {
		if f.Name != "" {
			continue // an S3 object, named by its URL
		}
		if n, ok := stored[f.Path]; ok {
			files[i].Name = n
		} else if opt.Name != nil {
			files[i].Name = opt.Name(f.Path)
		} else {
			files[i].Name = f.Path
		}
	}
	return m.Search(ctx, files, opt.Workers, emit)
}

// grepFiles lists the indexed files to search, sorted by path, each with
// the folder it must stay inside.
func (e *Engine) grepFiles(paths []string) ([]grep.File, error) {
	srcs, err := e.st.Sources()
	if err != nil {
		return nil, err
	}
	var indexed []grep.File
	for _, s := range srcs {
		switch s.Kind {
		case index.SourceJSONL:
			continue
		case index.SourceStore:
			sf, err := e.docs.Files()
			if err != nil {
				return nil, err
			}
			for f := range sf {
				indexed = append(indexed, grep.File{Path: f, Root: e.blobs().Dir()})
			}
			continue
		case index.SourceS3:
			// The content indexed, from the blob store: grep never asks
			// the bucket.
			entries, err := e.st.Entries(s.ID)
			if err != nil {
				return nil, err
			}
			b := e.blobs()
			for rel, en := range entries {
				indexed = append(indexed, grep.File{Path: b.Path(en.Hash), Root: b.Dir(), Name: index.ObjectURL(s, rel)})
			}
			continue
		}
		rels, err := e.st.Paths(s.ID)
		if err != nil {
			return nil, err
		}
		for _, rel := range rels {
			switch {
			case s.Kind == index.SourceFile:
				indexed = append(indexed, grep.File{Path: s.Path})
			case s.FollowLinks:
				indexed = append(indexed, grep.File{Path: filepath.Join(s.Path, filepath.FromSlash(rel))})
			default:
				indexed = append(indexed, grep.File{Path: filepath.Join(s.Path, filepath.FromSlash(rel)), Root: s.Path})
			}
		}
	}
	sort.Slice(indexed, func(i, j int) bool { return pathLess(grepKey(indexed[i]), grepKey(indexed[j])) })
	if len(paths) == 0 {
		return indexed, nil
	}
	byPath := make(map[string]grep.File, len(indexed))
	for _, f := range indexed {
		byPath[grepKey(f)] = f
	}
	seen := map[string]bool{}
	var out []grep.File
	for _, p := range paths {
		if bucket.IsURL(p) {
			// An S3 object, or a prefix standing for the objects under it.
			pre, n := strings.TrimSuffix(p, "/"), 0
			for _, f := range indexed {
				if k := grepKey(f); f.Name != "" && (k == pre || strings.HasPrefix(k, pre+"/")) {
					n++
					if !seen[k] {
						seen[k] = true
						out = append(out, f)
					}
				}
			}
			if n == 0 {
				return nil, fmt.Errorf("%w: no indexed S3 object is %s or under it; grep reads the indexed documents only (braid sources lists the S3 sources)", ErrNotIndexed, p)
			}
			continue
		}
		if err := confine.Check(p); err != nil {
			return nil, fmt.Errorf("%w: grep path: %v", ErrBadOption, err)
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, err
		}
		if f, ok := byPath[abs]; ok {
			if !seen[abs] {
				seen[abs] = true
				out = append(out, f)
			}
			continue
		}
		info, err := os.Stat(abs)
		if err != nil || !info.IsDir() {
			return nil, fmt.Errorf("%w: %s; grep reads the indexed files only (braid index its folder first; braid ls lists what is indexed)", ErrNotIndexed, p)
		}
		n := 0
		prefix := abs + string(filepath.Separator)
		for _, f := range indexed {
			if strings.HasPrefix(f.Path, prefix) {
				n++
				if !seen[f.Path] {
					seen[f.Path] = true
					out = append(out, f)
				}
			}
		}
		if n == 0 {
			return nil, fmt.Errorf("braid: no indexed documents under %s; run braid index %s first", p, p)
		}
	}
	sort.Slice(out, func(i, j int) bool { return pathLess(grepKey(out[i]), grepKey(out[j])) })
	return out, nil
}

// grepKey is what orders and identifies a file to grep: its path, or for
// an S3 object (whose path is a blob other objects may share) its URL.
func grepKey(f grep.File) string {
	if f.Name != "" {
		return f.Name
	}
	return f.Path
}

// pathLess orders paths folder by folder, as ripgrep's --sort path does:
// "a/x" comes before "a.md" because the folder "a" sorts before "a.md".
// Comparing bytes with the separator as the smallest byte gives that order.
func pathLess(a, b string) bool {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		ca, cb := a[i], b[i]
		if ca == cb {
			continue
		}
		if ca == filepath.Separator {
			return true
		}
		if cb == filepath.Separator {
			return false
		}
		return ca < cb
	}
	return len(a) < len(b)
}
