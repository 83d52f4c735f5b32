package notes

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/braidsearch/braid/index"
)

// Part types of a Contents entry, as knowledge-stack clients name them.
const (
	PartFolder   = "FOLDER"
	PartDocument = "DOCUMENT"
)

// Part is one entry of a Contents listing: a source's root, a folder or a
// document.
type Part struct {
	// ID names the part: a source's id, a folder's (index.FolderID) or a
	// document's. Each is stable across runs.
	ID   string `json:"path_part_id"`
	Name string `json:"name"`
	Type string `json:"part_type"` // PartFolder or PartDocument
	// Materialized is the part's path as source name/relative path.
	Materialized string `json:"materialized_path"`
	SourceID     string `json:"source_id"`
	// Path is relative to the source, slash-separated; "" for its root.
	Path  string `json:"path"`
	Title string `json:"title,omitempty"` // of a document
	Docs  int    `json:"docs,omitempty"`  // of a folder: the documents in it and below it
}

// Contents is the immediate children of a folder.
type Contents struct {
	// Folder is the folder listed; nil for the index's root, whose
	// children are the sources.
	Folder *Part  `json:"folder,omitempty"`
	Items  []Part `json:"items"`
	Total  int    `json:"total"`
}

// Contents lists the immediate children of a folder: folders first, then
// documents, each by name. folder is a folder's id (Part.ID, from an
// earlier listing), a source's id or name, or a folder's path as Info
// takes it (relative to its source, source name/folder, or absolute);
// empty lists the sources.
func (r *Reader) Contents(folder string) (*Contents, error) {
	srcs, err := r.sortedSources()
	if err != nil {
		return nil, err
	}
	folder = strings.TrimSpace(folder)
	if folder == "" {
		out := &Contents{Items: []Part{}}
		for _, s := range srcs {
			paths, err := r.st.Paths(s.ID)
			if err != nil {
				return nil, err
			}
			out.Items = append(out.Items, rootPart(s, len(paths)))
		}
		out.Total = len(out.Items)
		return out, nil
	}
	sc, err := r.folderScope(folder, srcs)
	if err != nil {
		return nil, err
	}
	var src *index.Source
	for _, s := range srcs {
		if s.ID == sc.sourceID {
			src = s
		}
	}
	entries, err := r.st.Entries(src.ID)
	if err != nil {
		return nil, err
	}
	prefix := ""
	if sc.prefix != "" {
		prefix = sc.prefix + "/"
	}
	folders := map[string]int{}
	var docs []index.Entry
	for p, e := range entries {
		if !strings.HasPrefix(p, prefix) {
			continue
		}
		rest := p[len(prefix):]
		if i := strings.IndexByte(rest, '/'); i >= 0 && hasFolders(src) {
			folders[rest[:i]]++
			continue
		}
		docs = append(docs, e)
	}
	out := &Contents{Items: []Part{}}
	if sc.prefix == "" {
		root := rootPart(src, len(entries))
		out.Folder = &root
	} else {
		f := folderPart(src, sc.prefix, 0)
		for _, n := range folders {
			f.Docs += n
		}
		f.Docs += len(docs)
		out.Folder = &f
	}
	names := make([]string, 0, len(folders))
	for n := range folders {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		out.Items = append(out.Items, folderPart(src, prefix+n, folders[n]))
	}
	sort.Slice(docs, func(i, j int) bool { return docs[i].Path < docs[j].Path })
	for _, e := range docs {
		p := Part{ID: e.DocID, Name: path.Base(e.Path), Type: PartDocument, Materialized: src.Name + "/" + e.Path,
			SourceID: src.ID, Path: e.Path}
		if d, err := r.st.Doc(e.DocID); err != nil {
			return nil, err
		} else if d != nil {
			p.Title = d.Title
		}
		out.Items = append(out.Items, p)
	}
	out.Total = len(out.Items)
	return out, nil
}

// hasFolders says whether a source's document paths name folders.
func hasFolders(s *index.Source) bool { return s.Kind == index.SourceDir || s.Kind == index.SourceS3 }

func rootPart(s *index.Source, docs int) Part {
	return Part{ID: s.ID, Name: s.Name, Type: PartFolder, Materialized: s.Name, SourceID: s.ID, Docs: docs}
}

func folderPart(s *index.Source, rel string, docs int) Part {
	return Part{ID: index.FolderID(s.ID, rel), Name: path.Base(rel), Type: PartFolder, Materialized: s.Name + "/" + rel,
		SourceID: s.ID, Path: rel, Docs: docs}
}

// folderScope resolves a folder given to Contents: a folder id, a source
// id or name, or a path.
func (r *Reader) folderScope(folder string, srcs []*index.Source) (scope, error) {
	for _, s := range srcs {
		if s.ID == folder {
			return scope{s.ID, ""}, nil
		}
	}
	if isHexID(folder) {
		for _, s := range srcs {
			if !hasFolders(s) {
				continue
			}
			paths, err := r.st.Paths(s.ID)
			if err != nil {
				return scope{}, err
			}
			seen := map[string]bool{}
			for _, p := range paths {
				for dir := path.Dir(p); dir != "." && !seen[dir]; dir = path.Dir(dir) {
					seen[dir] = true
					if index.FolderID(s.ID, dir) == folder {
						return scope{s.ID, dir}, nil
					}
				}
			}
		}
	}
	found, err := r.heldScopes(folder, srcs, true)
	if err != nil {
		return scope{}, err
	}
	switch len(found) {
	case 0:
		return scope{}, fmt.Errorf("%w: %q is no folder of the index (give a folder id from list_contents, a source, or a folder's path); braid tree lists the folders",
			index.ErrNotFound, folder)
	case 1:
		return found[0], nil
	}
	return scope{}, fmt.Errorf("%w: folder %q is in %d sources; name it as source-name/folder", index.ErrAmbiguous, folder, len(found))
}

// isHexID says whether s could be a folder id: 12 lowercase hex digits.
func isHexID(s string) bool {
	if len(s) != 12 {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
