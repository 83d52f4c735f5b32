package docstore

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/braidsearch/braid/index"
)

// UpdateRequest changes a document's metadata and, for a stored document,
// its tags.
type UpdateRequest struct {
	Ref string // a document name, id or content hash (prefix)
	// Metadata sets keys; an empty value removes the key.
	Metadata map[string]string
	// Tags adds tags to a stored document; "-tag" removes one. A source
	// document's tags live in its file: use Tag (braid tag) for those.
	Tags []string
}

// UpdateResult is a document after Update.
type UpdateResult struct {
	ID       string            `json:"id"`
	Path     string            `json:"path"`
	Hash     string            `json:"hash"`
	Stored   bool              `json:"stored"`
	Metadata map[string]string `json:"metadata"`
	Tags     []string          `json:"tags"`
}

// Update sets a document's metadata (any document, stored or from a
// source; it survives re-indexing) and a stored document's tags.
func (s *Store) Update(ctx context.Context, req UpdateRequest) (*UpdateResult, error) {
	if err := s.available("the document store (update)"); err != nil {
		return nil, err
	}
	if s.c.ReadOnly {
		return nil, index.ErrReadOnly
	}
	if len(req.Metadata) == 0 && len(req.Tags) == 0 {
		return nil, fmt.Errorf("%w: nothing to update; give metadata key=value pairs or tags", index.ErrBadOption)
	}
	meta, err := metaPairs(req.Metadata)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	d, err := s.resolve(req.Ref)
	if err != nil {
		return nil, err
	}
	src, err := s.source(false)
	if err != nil {
		return nil, err
	}
	stored := src != nil && d.SourceID == src.ID
	if len(req.Tags) > 0 {
		if !stored {
			return nil, fmt.Errorf("%w: %s is a file of a source and its tags live in the file; braid tag (inject_tags) writes them there", index.ErrBadOption, d.Path)
		}
		rec, err := s.c.Index.Stored(d.Path)
		if err != nil {
			return nil, err
		}
		if rec == nil {
			return nil, fmt.Errorf("%w: stored document %s has no record; run braid index", index.ErrNotFound, d.Path)
		}
		rec.Tags = mergeTags(rec.Tags, req.Tags)
		if err := s.c.Index.PutStored(rec, d.ID); err != nil {
			return nil, err
		}
		if err := s.c.Reindex(ctx, src, map[string]bool{d.Path: true}); err != nil {
			return nil, err
		}
		if d, err = s.c.Index.Doc(d.ID); err != nil || d == nil {
			return nil, fmt.Errorf("re-read %s after tagging: %v", req.Ref, err)
		}
	}
	m, err := s.c.Index.DocMeta(d.ID)
	if len(meta) > 0 {
		m, err = s.c.Index.UpdateDocMeta(d.ID, meta)
	}
	if err != nil {
		return nil, err
	}
	if m == nil {
		m = map[string]string{}
	}
	tags := d.Tags
	if tags == nil {
		tags = []string{}
	}
	return &UpdateResult{ID: d.ID, Path: d.Path, Hash: d.Hash, Stored: stored, Metadata: m, Tags: tags}, nil
}

// metaPairs checks metadata keys.
func metaPairs(m map[string]string) (map[string]string, error) {
	for k := range m {
		if k == "" || strings.ContainsAny(k, "=\x00") || !utf8.ValidString(k) {
			return nil, fmt.Errorf("%w: metadata key %q: want a non-empty key without '='", index.ErrBadOption, k)
		}
	}
	return m, nil
}

// ParseMeta turns "key=value" pairs into a map; "key=" (an empty value)
// means remove the key when updating.
func ParseMeta(pairs []string) (map[string]string, error) {
	if len(pairs) == 0 {
		return nil, nil
	}
	m := make(map[string]string, len(pairs))
	for _, p := range pairs {
		k, v, ok := strings.Cut(p, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, fmt.Errorf("%w: metadata %q: want key=value", index.ErrBadOption, p)
		}
		m[strings.TrimSpace(k)] = v
	}
	return m, nil
}
