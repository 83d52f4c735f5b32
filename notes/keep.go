package notes

import (
	"context"
	"slices"
	"strings"

	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/lexical"
)

// Filters are a search's filters, as its options name them.
type Filters struct {
	Sources []string // ids or names; any of them
	// Within confines the sources to these ids, on top of Sources; nil
	// means no confinement, empty (not nil) no source at all.
	Within   []string
	PathGlob string            // a path relative to the source
	Tags     []string          // all of them
	Metadata map[string]string // every pair
	Session  string            // the documents the session's pins select
}

// Request resolves a search's filters to an index request's, the one
// home of a search's filters: the sources (ErrNotFound or ErrAmbiguous
// for one that names no single source) to their ids, the path glob and
// tags as they are, and the metadata filter and the session to the ids
// of the documents both keep, sorted (nil when neither is set: no
// filter). Keep tests a document against the request.
func (r *Reader) Request(ctx context.Context, f Filters) (lexical.Request, error) {
	req := lexical.Request{PathGlob: f.PathGlob, Tags: f.Tags}
	for _, ref := range f.Sources {
		s, err := r.Source(ctx, ref)
		if err != nil {
			return req, err
		}
		req.SourceIDs = append(req.SourceIDs, s.ID)
	}
	if f.Within != nil {
		req.SourceIDs = Confine(req.SourceIDs, f.Within)
	}
	if len(f.Metadata) > 0 {
		req.DocIDs = []string{}
		err := r.st.ForEachDocMeta(func(id string, m map[string]string) error {
			if MetaMatch(m, f.Metadata) {
				req.DocIDs = append(req.DocIDs, id)
			}
			return nil
		})
		if err != nil {
			return req, err
		}
	}
	if f.Session == "" {
		return req, nil
	}
	pinned, err := r.SessionDocs(f.Session)
	if err != nil {
		return req, err
	}
	ids := []string{}
	if req.DocIDs == nil {
		for id := range pinned {
			ids = append(ids, id)
		}
	} else {
		for _, id := range req.DocIDs {
			if pinned[id] {
				ids = append(ids, id)
			}
		}
	}
	slices.Sort(ids)
	req.DocIDs = ids
	return req, nil
}

// NoSource is the source id of a request confined to no source: no
// source has it, so it matches nothing (an empty SourceIDs would match
// every source).
const NoSource = "\x00none"

// Confine returns the source ids of ids that are in within, or within
// itself when ids is empty (any source); never an empty list, which a
// request reads as any source: NoSource stands for none.
func Confine(ids, within []string) []string {
	var out []string
	if len(ids) == 0 {
		out = slices.Clone(within)
	} else {
		for _, id := range ids {
			if slices.Contains(within, id) {
				out = append(out, id)
			}
		}
	}
	if len(out) == 0 {
		return []string{NoSource}
	}
	return out
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
