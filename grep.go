package braid

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/braidsearch/braid/grep"
	"github.com/braidsearch/braid/index"
)

// GrepOptions shapes a Grep.
type GrepOptions struct {
	grep.Options
	// Paths limits the search: a file is searched whether indexed or not, a
	// directory stands for the indexed documents under it. Empty means every
	// indexed document that is a file.
	Paths []string
	// Name turns an absolute file path into the name printed for it; nil
	// keeps the absolute path.
	Name func(abs string) string
	// Workers bounds parallel file reads; zero means the number of CPUs.
	Workers int
}

// Grep runs an RE2 regular expression over the current files of the indexed
// documents (or opt.Paths) and calls emit once per file, in path order.
func (e *Engine) Grep(ctx context.Context, pattern string, opt GrepOptions, emit func(grep.Result) error) error {
	m, err := grep.Compile(pattern, opt.Options)
	if err != nil {
		return err
	}
	files, err := e.grepFiles(opt.Paths)
	if err != nil {
		return err
	}
	stored, err := e.storedFiles() // docstore.go
	if err != nil {
		return err
	}
	list := make([]grep.File, len(files))
	for i, f := range files {
		name := f
		if n, ok := stored[f]; ok {
			name = n
		} else if opt.Name != nil {
			name = opt.Name(f)
		}
		list[i] = grep.File{Path: f, Name: name}
	}
	return m.Search(ctx, list, opt.Workers, emit)
}

// grepFiles lists the absolute paths to search, sorted.
func (e *Engine) grepFiles(paths []string) ([]string, error) {
	srcs, err := e.st.Sources()
	if err != nil {
		return nil, err
	}
	var indexed []string
	for _, s := range srcs {
		if s.Kind == index.SourceJSONL {
			continue
		}
		rels, err := e.st.Paths(s.ID)
		if err != nil {
			return nil, err
		}
		if s.Kind == index.SourceStore {
			sf, err := e.storedFiles()
			if err != nil {
				return nil, err
			}
			for f := range sf {
				indexed = append(indexed, f)
			}
			continue
		}
		for _, rel := range rels {
			if s.Kind == index.SourceFile {
				indexed = append(indexed, s.Path)
			} else {
				indexed = append(indexed, filepath.Join(s.Path, filepath.FromSlash(rel)))
			}
		}
	}
	sort.Slice(indexed, func(i, j int) bool { return pathLess(indexed[i], indexed[j]) })
	if len(paths) == 0 {
		return indexed, nil
	}
	seen := map[string]bool{}
	var out []string
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, err
		}
		info, err := os.Stat(abs)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil, fmt.Errorf("braid: %s does not exist; check the path", p)
			}
			return nil, fmt.Errorf("braid: %s: %w", p, err)
		}
		if !info.IsDir() {
			if !seen[abs] {
				seen[abs] = true
				out = append(out, abs)
			}
			continue
		}
		n := 0
		prefix := abs + string(filepath.Separator)
		for _, f := range indexed {
			if strings.HasPrefix(f, prefix) {
				n++
				if !seen[f] {
					seen[f] = true
					out = append(out, f)
				}
			}
		}
		if n == 0 {
			return nil, fmt.Errorf("braid: no indexed documents under %s; run braid index %s first", p, p)
		}
	}
	sort.Slice(out, func(i, j int) bool { return pathLess(out[i], out[j]) })
	return out, nil
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
