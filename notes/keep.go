package notes

import (
	"slices"
	"strings"

	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/lexical"
)

// Request resolves a search's filters to an index request's: the
// sources (ids or names; ErrNotFound or ErrAmbiguous for one that names
// no single source) to their ids, the path glob and tags as they are, and
// the metadata filter to the ids of the documents whose metadata has
// every pair of it, sorted (nil when metadata is empty: no filter).
func (r *Reader) Request(sources []string, pathGlob string, tags []string, metadata map[string]string) (lexical.Request, error) {
	req := lexical.Request{PathGlob: pathGlob, Tags: tags}
	for _, ref := range sources {
		s, err := r.Source(ref)
		if err != nil {
			return req, err
		}
		req.SourceIDs = append(req.SourceIDs, s.ID)
	}
	if len(metadata) == 0 {
		return req, nil
	}
	req.DocIDs = []string{}
	err := r.st.ForEachDocMeta(func(id string, m map[string]string) error {
		if MetaMatch(m, metadata) {
			req.DocIDs = append(req.DocIDs, id)
		}
		return nil
	})
	return req, err
}

// Keep returns a test of a document against req's filters: its SourceIDs,
// PathGlob (a path relative to the source), Tags (all of them, with or
// without "#", any case) and DocIDs (nil for any). The test reads the
// document from the store unless DocIDs decides; a document that is gone
// fails it. A PathGlob that is not a glob is an error.
func (r *Reader) Keep(req lexical.Request) (func(docID string) (bool, error), error) {
	var glob *index.Matcher
	if req.PathGlob != "" {
		var err error
		if glob, err = index.NewMatcher([]string{req.PathGlob}); err != nil {
			return nil, err
		}
	}
	var docs map[string]bool // a metadata filter may name many documents
	if req.DocIDs != nil {
		docs = make(map[string]bool, len(req.DocIDs))
		for _, id := range req.DocIDs {
			docs[id] = true
		}
	}
	return func(docID string) (bool, error) {
		if docs != nil && !docs[docID] {
			return false, nil // decided without reading the document
		}
		d, err := r.st.Doc(docID)
		if err != nil || d == nil {
			return false, err
		}
		if len(req.SourceIDs) > 0 && !slices.Contains(req.SourceIDs, d.SourceID) {
			return false, nil
		}
		if glob != nil && !glob.Match(d.Path) {
			return false, nil
		}
		for _, t := range req.Tags {
			t = strings.TrimPrefix(t, "#")
			found := false
			for _, dt := range d.Tags {
				found = found || strings.EqualFold(dt, t)
			}
			if !found {
				return false, nil
			}
		}
		return true, nil
	}, nil
}
