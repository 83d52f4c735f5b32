package docstore

import (
	"context"
	"fmt"
	"sort"

	"github.com/braidsearch/braid/index"
)

// DeleteRequest names stored documents to delete.
type DeleteRequest struct {
	Names   []string // names, ids or content hashes of stored documents
	Pattern string   // a glob over stored names ("drafts/**")
	DryRun  bool     // list what would be deleted, delete nothing
}

// Deleted is one stored document a delete removed (or would remove).
type Deleted struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Hash string `json:"hash"`
	Size int64  `json:"size"`
}

// DeleteResult says what Delete did.
type DeleteResult struct {
	Deleted      []Deleted `json:"deleted"`
	DryRun       bool      `json:"dry_run"`
	BlobsRemoved int       `json:"blobs_removed"` // content no longer referenced by any document, version or snapshot
	BytesFreed   int64     `json:"bytes_freed"`
}

// Delete removes stored documents from the index and the store, with
// their versions; blobs no other document, version or snapshot refers to
// are removed too. It never deletes a file of a source: a name that
// resolves only to a source's document is refused with ErrSourceFile, and
// nothing is deleted. A dry run works on a read-only store.
func (s *Store) Delete(ctx context.Context, req DeleteRequest) (*DeleteResult, error) {
	if err := s.available("the document store (delete)"); err != nil {
		return nil, err
	}
	if s.c.ReadOnly && !req.DryRun {
		return nil, index.ErrReadOnly
	}
	if len(req.Names) == 0 && req.Pattern == "" {
		return nil, fmt.Errorf("%w: name the stored documents to delete, or give a pattern", index.ErrBadOption)
	}
	var glob *index.Matcher
	if req.Pattern != "" {
		var err error
		if glob, err = index.NewMatcher([]string{req.Pattern}); err != nil {
			return nil, fmt.Errorf("%w: %v", index.ErrBadOption, err)
		}
	}
	if !s.c.ReadOnly {
		s.mu.Lock()
		defer s.mu.Unlock()
	}
	src, err := s.source(false)
	if err != nil {
		return nil, err
	}
	res := &DeleteResult{Deleted: []Deleted{}, DryRun: req.DryRun}
	picked := map[string]bool{}
	pick := func(rec *index.Stored) {
		if !picked[rec.Name] {
			picked[rec.Name] = true
			res.Deleted = append(res.Deleted, Deleted{ID: index.DocID(src.ID, rec.Name), Name: rec.Name, Hash: rec.Hash, Size: rec.Size})
		}
	}
	for _, ref := range req.Names {
		var rec *index.Stored
		if src != nil {
			if n, err := CleanName(ref); err == nil {
				if rec, err = s.c.Index.Stored(n); err != nil {
					return nil, err
				}
			}
		}
		if rec == nil {
			d, err := s.resolve(ref)
			if err != nil {
				return nil, err
			}
			if src == nil || d.SourceID != src.ID {
				return nil, fmt.Errorf("%w: %q is %s, a file of a source; delete removes only documents added with braid add. "+
					"braid sources rm (remove_source) drops a whole source from the index, leaving its files alone", ErrSourceFile, ref, d.Path)
			}
			if rec, err = s.c.Index.Stored(d.Path); err != nil {
				return nil, err
			}
			if rec == nil {
				return nil, fmt.Errorf("%w: stored document %s has no record; run braid index", index.ErrNotFound, d.Path)
			}
		}
		pick(rec)
	}
	if glob != nil && src != nil {
		if err := s.c.Index.ForEachStored(func(rec *index.Stored) error {
			if glob.Match(rec.Name) {
				pick(rec)
			}
			return nil
		}); err != nil {
			return nil, err
		}
	}
	sort.Slice(res.Deleted, func(i, j int) bool { return res.Deleted[i].Name < res.Deleted[j].Name })
	if req.DryRun || len(res.Deleted) == 0 {
		return res, nil
	}
	names, ids := make([]string, len(res.Deleted)), make([]string, len(res.Deleted))
	for i, d := range res.Deleted {
		names[i], ids[i] = d.Name, d.ID
	}
	if err := s.c.Index.DeleteStored(names, ids); err != nil {
		return nil, err
	}
	if err := s.c.Reindex(ctx, src, nil); err != nil {
		return nil, err
	}
	removed, n, err := s.sweepBlobs()
	res.BlobsRemoved, res.BytesFreed = len(removed), n
	return res, err
}
