package notes

import (
	"sort"
	"strings"

	"github.com/braidsearch/braid/index"
)

// Folder is a folder of a source with the number of documents in it.
type Folder struct {
	Name string `json:"name"`
	// Path is relative to the source, slash-separated; "" for its root.
	Path string `json:"path"`
	// Docs counts the documents in the folder and below it, Here those
	// directly in it.
	Docs    int       `json:"docs"`
	Here    int       `json:"here"`
	Folders []*Folder `json:"folders,omitempty"`
	// SourceID and Dir are set on a source's root: its id and absolute
	// path.
	SourceID string `json:"source_id,omitempty"`
	Dir      string `json:"dir,omitempty"`
}

// Tree returns the folder tree of each source as it is on disk (a BEIR
// corpus is one folder; an S3 source's folders are its keys'), with
// document counts, by source name.
func (r *Reader) Tree() ([]*Folder, error) {
	srcs, err := r.sortedSources()
	if err != nil {
		return nil, err
	}
	out := []*Folder{}
	for _, s := range srcs {
		paths, err := r.st.Paths(s.ID)
		if err != nil {
			return nil, err
		}
		root := &Folder{Name: s.Name, SourceID: s.ID, Dir: s.Path}
		for _, p := range paths {
			f := root
			f.Docs++
			if s.Kind != index.SourceDir && s.Kind != index.SourceS3 { // keys have folders too
				f.Here++
				continue
			}
			parts := strings.Split(p, "/")
			for i, part := range parts[:len(parts)-1] {
				f = f.child(part, strings.Join(parts[:i+1], "/"))
				f.Docs++
			}
			f.Here++
		}
		out = append(out, root)
	}
	return out, nil
}

// child returns the subfolder of f named name, adding it when missing.
// Paths come in byte order, so the children stay sorted.
func (f *Folder) child(name, path string) *Folder {
	if n := len(f.Folders); n > 0 && f.Folders[n-1].Name == name {
		return f.Folders[n-1]
	}
	c := &Folder{Name: name, Path: path}
	f.Folders = append(f.Folders, c)
	return c
}

// sortedSources is the index's sources, brought up to date, by name (then
// id).
func (r *Reader) sortedSources() ([]*index.Source, error) {
	if err := r.sync(); err != nil {
		return nil, err
	}
	srcs, err := r.st.Sources()
	if err != nil {
		return nil, err
	}
	sort.Slice(srcs, func(i, j int) bool {
		return srcs[i].Name < srcs[j].Name || srcs[i].Name == srcs[j].Name && srcs[i].ID < srcs[j].ID
	})
	return srcs, nil
}
