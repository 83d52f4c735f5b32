package notes

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/braidsearch/braid/bucket"
	"github.com/braidsearch/braid/extract"
	"github.com/braidsearch/braid/grep"
	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/internal/confine"
)

// ErrNotIndexed is the error for a path given to Files that is no indexed
// document: Files lists only what the index holds, so a path cannot make a
// caller read any other file.
var ErrNotIndexed = errors.New("not an indexed file")

// FilesOptions chooses what Files lists. The zero value lists every indexed
// document that is a file, each named by its absolute path.
type FilesOptions struct {
	// Paths limits the list to indexed documents: a file must be one
	// (ErrNotIndexed otherwise), a directory stands for the indexed
	// documents under it, an s3:// URL for the indexed objects it names or
	// that lie under it. Empty means every indexed document that is a file.
	Paths []string
	// Name turns an absolute file path into the name given to it; nil
	// keeps the absolute path. Stored documents are named "store:NAME"
	// and S3 objects by their URL whatever Name does.
	Name func(abs string) string
	// Session keeps the documents the named session's pins select
	// (SessionDocs); empty means any.
	Session string
	// Within keeps only the files of these source ids; nil keeps any,
	// empty (not nil) none.
	Within []string
}

// Files lists the current files of the indexed documents (or those
// opt.Paths names) for package grep to read, in path order as ripgrep's
// --sort path gives it. Each file of a directory source carries the folder
// it must stay inside unless the source follows links; stored documents
// and S3 objects are their blobs, confined to the blob folder. JSONL
// sources hold no files and are left out.
func (r *Reader) Files(ctx context.Context, opt FilesOptions) ([]grep.File, error) {
	stored, err := r.storeFiles()
	if err != nil {
		return nil, err
	}
	var keep func(sourceID, rel string) bool
	if opt.Session != "" {
		only, err := r.SessionDocs(opt.Session)
		if err != nil {
			return nil, err
		}
		keep = func(sourceID, rel string) bool { return only[index.DocID(sourceID, rel)] }
	}
	if opt.Within != nil {
		inner := keep
		keep = func(sourceID, rel string) bool {
			return slices.Contains(opt.Within, sourceID) && (inner == nil || inner(sourceID, rel))
		}
	}
	files, err := r.files(ctx, opt.Paths, stored, keep)
	if err != nil {
		return nil, err
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
	return files, nil
}

// extracted makes f, the file of document rel of source sourceID, read
// as braid indexed it when it is a PDF, HTML, DOCX or ODT file: its
// extracted text (read through the same confinement), with a PDF's pages.
func (r *Reader) extracted(ctx context.Context, f grep.File, sourceID, rel string) grep.File {
	if extract.Format(rel) == "" {
		return f
	}
	d, err := r.st.DocByPath(sourceID, rel)
	if err != nil || d == nil || !d.Kind.Extracted() {
		return f
	}
	f.Pages = d.Pages
	f.Text = func() ([]byte, error) {
		data, err := confine.ReadFile(f.Root, f.Path, 0)
		if err != nil {
			return nil, err
		}
		x, err := extract.File(ctx, rel, data, nil)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", f.Path, err)
		}
		return x.Text, nil
	}
	return f
}

// storeFiles maps the blob of each stored document to its "store:NAME".
func (r *Reader) storeFiles() (map[string]string, error) {
	if r.cfg.StoreFiles == nil {
		return map[string]string{}, nil
	}
	return r.cfg.StoreFiles()
}

// files lists the indexed files named by paths (all of them when paths is
// empty), sorted, each with the folder it must stay inside; stored maps the
// stored documents' blobs to their names.
// keep, when not nil, keeps only the documents it says yes to.
func (r *Reader) files(ctx context.Context, paths []string, stored map[string]string, keep func(sourceID, rel string) bool) ([]grep.File, error) {
	srcs, err := r.st.Sources()
	if err != nil {
		return nil, err
	}
	blobs := r.blobs
	var indexed []grep.File
	var dirs []string // the folders of directory sources
	for _, s := range srcs {
		if s.Kind == index.SourceDir {
			dirs = append(dirs, s.Path)
		}
		switch s.Kind {
		case index.SourceJSONL:
			continue
		case index.SourceStore:
			for f, name := range stored {
				if keep == nil || keep(s.ID, strings.TrimPrefix(name, "store:")) {
					indexed = append(indexed, grep.File{Path: f, Root: blobs.Dir()})
				}
			}
			continue
		case index.SourceS3:
			// The content indexed, from the blob store: Files never asks
			// the bucket.
			entries, err := r.st.Entries(s.ID)
			if err != nil {
				return nil, err
			}
			for rel, en := range entries {
				if keep != nil && !keep(s.ID, rel) {
					continue
				}
				indexed = append(indexed, r.extracted(ctx, grep.File{Path: blobs.Path(en.Hash), Root: blobs.Dir(), Name: index.ObjectURL(s, rel)}, s.ID, rel))
			}
			continue
		}
		if s.Usable() != nil {
			continue // not trusted here, or moved: none of its files are read
		}
		rels, err := r.st.Paths(s.ID)
		if err != nil {
			return nil, err
		}
		for _, rel := range rels {
			if keep != nil && !keep(s.ID, rel) {
				continue
			}
			var f grep.File
			switch {
			case s.Kind == index.SourceFile:
				f = grep.File{Path: s.Path, Root: s.Path}
			case s.FollowLinks:
				f = grep.File{Path: filepath.Join(s.Path, filepath.FromSlash(rel))}
			default:
				f = grep.File{Path: filepath.Join(s.Path, filepath.FromSlash(rel)), Root: s.Path}
			}
			indexed = append(indexed, r.extracted(ctx, f, s.ID, rel))
		}
	}
	sort.Slice(indexed, func(i, j int) bool { return pathLess(fileKey(indexed[i]), fileKey(indexed[j])) })
	if len(paths) == 0 {
		return indexed, nil
	}
	byPath := make(map[string]grep.File, len(indexed))
	for _, f := range indexed {
		byPath[fileKey(f)] = f
	}
	seen := map[string]bool{}
	var out []grep.File
	for _, p := range paths {
		if bucket.IsURL(p) {
			// An S3 object, or a prefix standing for the objects under it.
			pre, n := strings.TrimSuffix(p, "/"), 0
			for _, f := range indexed {
				if k := fileKey(f); f.Name != "" && (k == pre || strings.HasPrefix(k, pre+"/")) {
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
			return nil, fmt.Errorf("%w: grep path: %v", index.ErrBadOption, err)
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
		// A folder stands for the indexed files under it.
		n := 0
		prefix := strings.TrimSuffix(abs, string(filepath.Separator)) + string(filepath.Separator)
		for _, f := range indexed {
			if strings.HasPrefix(f.Path, prefix) {
				n++
				if !seen[f.Path] {
					seen[f.Path] = true
					out = append(out, f)
				}
			}
		}
		if n > 0 {
			continue
		}
		// Nothing indexed there. A folder of a folder source is told so;
		// any other path gets the same answer whatever it is, or whether
		// it exists, so that grep cannot probe the disk outside the index.
		if folderInSource(dirs, abs) {
			return nil, fmt.Errorf("no indexed documents under %s; run braid index %s first", p, p)
		}
		return nil, fmt.Errorf("%w: %s; grep reads the indexed files only (braid index its folder first; braid ls lists what is indexed)", ErrNotIndexed, p)
	}
	sort.Slice(out, func(i, j int) bool { return pathLess(fileKey(out[i]), fileKey(out[j])) })
	return out, nil
}

// folderInSource says whether the absolute path abs is a folder inside
// one of dirs, both as written and where its links lead: a link out of a
// source tells nothing of what lies at its end.
func folderInSource(dirs []string, abs string) bool {
	var written, real bool
	for _, d := range dirs {
		written = written || confine.Within(d, abs)
	}
	if !written {
		return false
	}
	to, err := confine.Resolve(abs)
	if err != nil {
		return false
	}
	for _, d := range dirs {
		if rd, err := confine.Resolve(d); err == nil && confine.Within(rd, to) {
			real = true
		}
	}
	info, err := os.Stat(to)
	return real && err == nil && info.IsDir()
}

// fileKey is what orders and identifies a listed file: its path, or for an
// S3 object (whose path is a blob other objects may share) its URL.
func fileKey(f grep.File) string {
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

// Exists tells the link graph whether a markdown link's target is a file
// of a directory source, documents aside (graph.Queries.Exists): it reads
// the sources once, and the function it returns looks for the file.
func (r *Reader) Exists() func(sourceID, path string) bool {
	dirs := map[string]string{}
	if srcs, err := r.st.Sources(); err == nil {
		for _, s := range srcs {
			if s.Kind == index.SourceDir {
				dirs[s.ID] = s.Path
			}
		}
	}
	return func(sourceID, rel string) bool {
		dir, ok := dirs[sourceID]
		if !ok || !filepath.IsLocal(filepath.FromSlash(rel)) {
			return false
		}
		_, err := os.Stat(filepath.Join(dir, filepath.FromSlash(rel)))
		return err == nil
	}
}

// ManyFiles says whether a grep of paths may read more than one file:
// any number of paths but one, or one that is a directory or an s3://
// prefix. ripgrep names the file of each line in that case, and only
// then.
func ManyFiles(paths []string) bool {
	if len(paths) != 1 {
		return true
	}
	if bucket.IsURL(paths[0]) {
		return true
	}
	fi, err := os.Stat(paths[0])
	return err == nil && fi.IsDir()
}
