package docstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/ingest"
	"github.com/braidsearch/braid/internal/confine"
)

// AddRequest is a document to store: either the file at Path, or Content
// under Name.
type AddRequest struct {
	Path    string // a text file to copy into the store (read with ReadDocument); its base name is the default Name
	Content string // the document's text, when Path is empty
	Data    []byte // the document's bytes, instead of Path or Content (as ReadDocument returned them)
	// Name is the document's path in the store ("notes/idea.md"): relative,
	// slash-separated; its extension picks the parser (.md is markdown).
	// Adding a name that exists stores a new version of it.
	Name       string
	Tags       []string          // added to the tags the content declares
	Metadata   map[string]string // key=value pairs, searchable with SearchOptions.Metadata
	Collection string            // a group for listing, snapshots and restore; empty keeps the current one
}

// AddResult says what Add stored.
type AddResult struct {
	ID           string `json:"id"`
	Name         string `json:"name"`
	Hash         string `json:"hash"`
	Version      int    `json:"version"`
	Replaced     bool   `json:"replaced"`      // the name existed with other content
	BytesStored  int64  `json:"bytes_stored"`  // bytes written to the blob store
	BytesDeduped int64  `json:"bytes_deduped"` // bytes not written because identical content was already stored
}

// readTimeout bounds how long ReadDocument waits for a file.
const readTimeout = 30 * time.Second

// ReadDocument reads a file to store with Add: a regular file of at most
// the per-document limit (8 MB), read within 30 seconds or ctx. A FIFO, a
// socket or a device (/dev/zero) is refused at once, never waited on or
// read without bound. A root, when not empty, is a folder (its real path)
// the file must lie in: it is opened from the root's descriptor, never
// through a link out of it (confine.Dir); or the file itself (a file
// source), which must then not be a link.
func ReadDocument(ctx context.Context, root, path string) ([]byte, error) {
	type result struct {
		data []byte
		err  error
	}
	done := make(chan result, 1)
	go func() {
		data, err := readConfined(root, path)
		done <- result{data, err}
	}()
	timer := time.NewTimer(readTimeout)
	defer timer.Stop()
	var r result
	select {
	case r = <-done:
	case <-ctx.Done():
		return nil, fmt.Errorf("read %s: %w", path, ctx.Err())
	case <-timer.C:
		return nil, fmt.Errorf("read %s: no data within %v; braid stores files it can read at once", path, readTimeout)
	}
	switch {
	case r.err == nil:
		return r.data, nil
	case errors.Is(r.err, confine.ErrNotRegular):
		return nil, fmt.Errorf("%w: %s; braid stores regular files only", index.ErrBadOption, strings.TrimPrefix(r.err.Error(), "confine: "))
	case errors.Is(r.err, confine.ErrTooLarge):
		return nil, fmt.Errorf("%w: %s is over the %s limit per document", index.ErrBadOption, path, index.FormatBytes(ingest.DefaultMaxFileSize))
	case errors.Is(r.err, confine.ErrBadPath):
		return nil, fmt.Errorf("%w: %s", index.ErrBadOption, strings.TrimPrefix(r.err.Error(), "confine: "))
	}
	var pe *os.PathError
	if errors.As(r.err, &pe) {
		return nil, fmt.Errorf("read %s: %w", path, pe.Err)
	}
	return nil, fmt.Errorf("read %s: %w", path, r.err)
}

// readConfined reads path for ReadDocument: beneath the folder root, or,
// where there is no folder to hold, by path (confine.ReadFile, as
// confine's doc lists): the file root names itself, or any file when root
// is empty (AddRequest.Path, a file its caller names).
func readConfined(root, path string) ([]byte, error) {
	if root == "" || root == path {
		return confine.ReadFile(root, path, ingest.DefaultMaxFileSize)
	}
	d, err := confine.OpenDir(root)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.ReadFile(path, ingest.DefaultMaxFileSize)
}

// CleanName checks a stored document's name and returns it cleaned: no
// surrounding spaces or leading "./", slash-separated, relative and inside
// the store. It fails with ErrBadName.
func CleanName(name string) (string, error) {
	n := strings.TrimPrefix(filepath.ToSlash(strings.TrimSpace(name)), "./")
	switch {
	case n == "":
		return "", fmt.Errorf("%w: empty name; give the document a name such as notes/idea.md", ErrBadName)
	case !utf8.ValidString(n) || strings.ContainsAny(n, "\x00\\"):
		return "", fmt.Errorf("%w: %q holds a NUL, a backslash or invalid UTF-8", ErrBadName, name)
	case len(n) > 1024:
		return "", fmt.Errorf("%w: %d bytes long, want at most 1024", ErrBadName, len(n))
	case path.IsAbs(n) || !filepath.IsLocal(filepath.FromSlash(n)) || path.Clean(n) != n:
		return "", fmt.Errorf("%w: %q must be a clean relative path inside the store (no leading /, no ..)", ErrBadName, name)
	}
	return n, nil
}

// Add stores a document in the index's own store and indexes it, so search,
// get and grep find it like a file of a source. Its content is kept once
// per distinct text (content-addressed); a name that exists gets a new
// version. The content is written and synced before the record that names
// it, so a crash leaves at worst an unreferenced blob.
func (s *Store) Add(ctx context.Context, req AddRequest) (*AddResult, error) {
	if err := s.available("the document store (add)"); err != nil {
		return nil, err
	}
	if s.c.ReadOnly {
		return nil, index.ErrReadOnly
	}
	data := []byte(req.Content)
	name := req.Name
	if req.Data != nil {
		if req.Content != "" || req.Path != "" {
			return nil, fmt.Errorf("%w: give one of path, content and data", index.ErrBadOption)
		}
		data = req.Data
	}
	if req.Path != "" {
		if req.Content != "" {
			return nil, fmt.Errorf("%w: give a path or content, not both", index.ErrBadOption)
		}
		var err error
		if data, err = ReadDocument(ctx, "", req.Path); err != nil {
			return nil, err
		}
		if name == "" {
			name = filepath.Base(req.Path)
		}
	}
	name, err := CleanName(name)
	if err != nil {
		return nil, err
	}
	switch {
	case int64(len(data)) > ingest.DefaultMaxFileSize:
		return nil, fmt.Errorf("%w: %s is %s, over the %s limit per document", index.ErrBadOption, name, index.FormatBytes(int64(len(data))), index.FormatBytes(ingest.DefaultMaxFileSize))
	case bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data):
		return nil, fmt.Errorf("%w: %s: braid stores UTF-8 text documents only", ingest.ErrNotText, name)
	}
	meta, err := metaPairs(req.Metadata)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	src, err := s.source(true)
	if err != nil {
		return nil, err
	}
	hash, written, err := s.c.Blobs.Put(data)
	if err != nil {
		return nil, err
	}
	res := &AddResult{ID: index.DocID(src.ID, name), Name: name, Hash: hash}
	if written {
		res.BytesStored = int64(len(data))
	} else {
		res.BytesDeduped = int64(len(data))
	}
	now := time.Now().UTC()
	rec, err := s.c.Index.Stored(name)
	if err != nil {
		return nil, err
	}
	if rec == nil {
		rec = &index.Stored{Name: name, Created: now, Modified: now}
	} else if rec.Hash != hash {
		res.Replaced = true
		rec.Modified = now
	}
	rec.Hash, rec.Size = hash, int64(len(data))
	rec.Tags = mergeTags(rec.Tags, req.Tags)
	if req.Collection != "" {
		rec.Collection = req.Collection
	}
	if err := s.c.Index.PutStored(rec, res.ID); err != nil {
		return nil, err
	}
	if len(meta) > 0 {
		if _, err := s.c.Index.UpdateDocMeta(res.ID, meta); err != nil {
			return nil, err
		}
	}
	if err := s.c.Reindex(ctx, src, map[string]bool{name: true}); err != nil {
		return nil, err
	}
	vs, err := s.c.Index.Versions(res.ID)
	if err != nil {
		return nil, err
	}
	res.Version = len(vs)
	return res, nil
}

// mergeTags adds tags to have (case-insensitively new ones only); a tag
// written "-name" removes name instead.
func mergeTags(have, tags []string) []string {
	out := slices.Clone(have)
	for _, t := range tags {
		t = strings.TrimPrefix(strings.TrimSpace(t), "#")
		if rm, ok := strings.CutPrefix(t, "-"); ok {
			out = slices.DeleteFunc(out, func(x string) bool { return strings.EqualFold(x, rm) })
			continue
		}
		if t != "" && !slices.ContainsFunc(out, func(x string) bool { return strings.EqualFold(x, t) }) {
			out = append(out, t)
		}
	}
	return out
}
