package notes

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/braidsearch/braid/index"
)

// InfoNode is one step of an Info's ancestry.
type InfoNode struct {
	Type string `json:"type"`           // source, folder, document, heading or chunk
	ID   string `json:"id,omitempty"`   // of a source, folder (index.FolderID), document or chunk
	Name string `json:"name,omitempty"` // of a source or folder; a heading's text
	// Path is relative to the source, slash-separated (a heading's and a
	// chunk's is their document's); a source's is its absolute path.
	Path  string `json:"path"`
	Title string `json:"title,omitempty"` // of a document
	Lines *Lines `json:"lines,omitempty"` // of a heading or chunk
}

// Info says what an id names and where it sits.
type Info struct {
	InfoNode
	SourceID string `json:"source_id"`
	// Ancestry runs from the source down to the node itself: its folders,
	// then for a chunk its document and the headings it is under.
	Ancestry []InfoNode `json:"ancestry"`
}

// Info resolves an id: a chunk id, a document (as Document names one:
// id, path, content hash or prefix, title), a source id or name, or a
// folder (its id, as Contents gives it, or its path: relative to its
// source, source name/folder, or absolute).
func (r *Reader) Info(ctx context.Context, id string) (*Info, error) {
	if err := r.sync(); err != nil {
		return nil, err
	}
	if strings.TrimSpace(id) == "" {
		return nil, fmt.Errorf("%w: empty id", index.ErrBadOption)
	}
	if strings.Contains(id, "#") {
		c, err := r.chunk(ctx, id)
		if err != nil {
			return nil, err
		}
		if c != nil {
			return r.chunkInfo(c)
		}
	}
	d, err := r.Document(id)
	if err == nil {
		return r.docInfo(d)
	}
	if !isNotFound(err) {
		return nil, err
	}
	srcs, err := r.st.Sources()
	if err != nil {
		return nil, err
	}
	if s, err := r.Source(ctx, id); err == nil {
		n := sourceNode(s)
		return &Info{InfoNode: n, SourceID: s.ID, Ancestry: []InfoNode{n}}, nil
	} else if !isNotFound(err) {
		return nil, err
	}
	if isHexID(id) { // a folder's id, from Contents
		if sc, err := r.folderScope(id, srcs); err == nil && sc.prefix != "" {
			for _, s := range srcs {
				if s.ID == sc.sourceID {
					anc := folderNodes(s, sc.prefix)
					return &Info{InfoNode: anc[len(anc)-1], SourceID: s.ID, Ancestry: anc}, nil
				}
			}
		}
	}
	found, err := r.heldScopes(id, srcs, false)
	if err != nil {
		return nil, err
	}
	switch len(found) {
	case 0:
		return nil, fmt.Errorf("%w: %q is no chunk, document, source or folder of the index; braid find or braid search can find it", index.ErrNotFound, id)
	case 1:
		for _, s := range srcs {
			if s.ID == found[0].sourceID {
				anc := folderNodes(s, found[0].prefix)
				return &Info{InfoNode: anc[len(anc)-1], SourceID: s.ID, Ancestry: anc}, nil
			}
		}
	}
	return nil, fmt.Errorf("%w: folder %q is in %d sources; name it as source-name/folder", index.ErrAmbiguous, id, len(found))
}

func isNotFound(err error) bool { return err != nil && errors.Is(err, index.ErrNotFound) }

// heldScopes are the scopes name can mean (parentScopes) that hold a
// document: a folder with a file under it, each once, and with roots a
// source's root as well.
func (r *Reader) heldScopes(name string, srcs []*index.Source, roots bool) ([]scope, error) {
	var found []scope
	for _, sc := range parentScopes(name, srcs) {
		if containsScope(found, sc) || sc.prefix == "" && !roots {
			continue
		}
		if sc.prefix == "" {
			found = append(found, sc)
			continue
		}
		paths, err := r.st.Paths(sc.sourceID)
		if err != nil {
			return nil, err
		}
		for _, p := range paths {
			if strings.HasPrefix(p, sc.prefix+"/") {
				found = append(found, sc)
				break
			}
		}
	}
	return found, nil
}

func containsScope(list []scope, sc scope) bool {
	for _, x := range list {
		if x == sc {
			return true
		}
	}
	return false
}

func sourceNode(s *index.Source) InfoNode {
	return InfoNode{Type: "source", ID: s.ID, Name: s.Name, Path: s.Path}
}

// folderNodes is the ancestry of a folder of s: the source, then each
// folder down to dir ("" for none).
func folderNodes(s *index.Source, dir string) []InfoNode {
	out := []InfoNode{sourceNode(s)}
	if dir == "" || dir == "." {
		return out
	}
	parts := strings.Split(dir, "/")
	for i, p := range parts {
		rel := strings.Join(parts[:i+1], "/")
		out = append(out, InfoNode{Type: "folder", ID: index.FolderID(s.ID, rel), Name: p, Path: rel})
	}
	return out
}

func (r *Reader) docAncestry(d *index.Document) ([]InfoNode, error) {
	s, err := r.st.Source(d.SourceID)
	if err != nil {
		return nil, err
	}
	if s == nil {
		return nil, fmt.Errorf("%w: source %s of document %s is gone; run braid doctor", index.ErrNotFound, d.SourceID, d.ID)
	}
	dir := ""
	if s.Kind == index.SourceDir || s.Kind == index.SourceS3 {
		dir = path.Dir(d.Path)
	}
	anc := folderNodes(s, dir)
	return append(anc, InfoNode{Type: "document", ID: d.ID, Name: path.Base(d.Path), Path: d.Path, Title: d.Title}), nil
}

func (r *Reader) docInfo(d *index.Document) (*Info, error) {
	anc, err := r.docAncestry(d)
	if err != nil {
		return nil, err
	}
	return &Info{InfoNode: anc[len(anc)-1], SourceID: d.SourceID, Ancestry: anc}, nil
}

func (r *Reader) chunkInfo(c *index.Chunk) (*Info, error) {
	d, err := r.st.Doc(c.DocID)
	if err != nil {
		return nil, err
	}
	if d == nil {
		return nil, fmt.Errorf("%w: document %s of chunk %s is gone; run braid doctor", index.ErrNotFound, c.DocID, c.ID)
	}
	anc, err := r.docAncestry(d)
	if err != nil {
		return nil, err
	}
	for _, h := range headingLines(d.Headings, c) {
		anc = append(anc, InfoNode{Type: "heading", Name: h.Text, Path: d.Path, Lines: &Lines{h.Line, h.Line}})
	}
	n := InfoNode{Type: "chunk", ID: c.ID, Path: d.Path, Title: d.Title, Lines: &Lines{c.StartLine, c.EndLine}}
	return &Info{InfoNode: n, SourceID: d.SourceID, Ancestry: append(anc, n)}, nil
}

// headingLines finds the headings of a chunk's heading path in its
// document, outermost first: the headings open at the chunk's first line.
// A heading it cannot place keeps line 0.
func headingLines(hs []index.Heading, c *index.Chunk) []index.Heading {
	var open []index.Heading
	for _, h := range hs {
		if h.Line > c.StartLine {
			break
		}
		for len(open) > 0 && open[len(open)-1].Level >= h.Level {
			open = open[:len(open)-1]
		}
		open = append(open, h)
	}
	out := make([]index.Heading, len(c.HeadingPath))
	j := 0
	for i, text := range c.HeadingPath {
		out[i] = index.Heading{Text: text}
		for ; j < len(open); j++ {
			if open[j].Text == text {
				out[i] = open[j]
				j++
				break
			}
		}
	}
	return out
}
