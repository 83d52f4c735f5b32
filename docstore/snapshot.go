package docstore

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/internal/atomicfile"
)

// Collection is a named group of stored documents.
type Collection struct {
	Name      string `json:"name"`
	Documents int    `json:"documents"`
	Bytes     int64  `json:"bytes"`
}

// Collections lists the collections of stored documents, by name.
func (s *Store) Collections() ([]Collection, error) {
	if err := s.available("collections"); err != nil {
		return nil, err
	}
	byName := map[string]*Collection{}
	err := s.c.Index.ForEachStored(func(r *index.Stored) error {
		if r.Collection == "" {
			return nil
		}
		c := byName[r.Collection]
		if c == nil {
			c = &Collection{Name: r.Collection}
			byName[r.Collection] = c
		}
		c.Documents++
		c.Bytes += r.Size
		return nil
	})
	out := []Collection{}
	for _, c := range byName {
		out = append(out, *c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, err
}

// SnapshotInfo describes a snapshot without its list of documents.
type SnapshotInfo struct {
	ID         string    `json:"id"`
	Label      string    `json:"label,omitempty"`
	Collection string    `json:"collection,omitempty"`
	Created    time.Time `json:"created"`
	Documents  int       `json:"documents"`
	Bytes      int64     `json:"bytes"`
}

func snapshotInfo(snap *index.Snapshot) SnapshotInfo {
	return SnapshotInfo{ID: snap.ID, Label: snap.Label, Collection: snap.Collection, Created: snap.Created, Documents: len(snap.Docs), Bytes: snap.Bytes}
}

// CreateSnapshot records the current content of the stored documents (of
// one collection when collection is not empty) under a new id. The content
// itself is not copied: the blobs it names are kept as long as the
// snapshot exists.
func (s *Store) CreateSnapshot(collection, label string) (*SnapshotInfo, error) {
	if err := s.available("snapshots"); err != nil {
		return nil, err
	}
	if s.c.ReadOnly {
		return nil, index.ErrReadOnly
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	snap := &index.Snapshot{Label: label, Collection: collection, Created: time.Now().UTC(), Docs: map[string]string{}}
	err := s.c.Index.ForEachStored(func(r *index.Stored) error {
		if collection == "" || r.Collection == collection {
			snap.Docs[r.Name] = r.Hash
			snap.Bytes += r.Size
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(snap.Docs) == 0 {
		if collection != "" {
			return nil, fmt.Errorf("%w: no stored document is in collection %q; braid collections lists them", index.ErrNotFound, collection)
		}
		return nil, fmt.Errorf("%w: no stored documents to snapshot; braid add stores some", index.ErrNotFound)
	}
	if err := s.c.Index.PutSnapshot(snap); err != nil {
		return nil, err
	}
	info := snapshotInfo(snap)
	return &info, nil
}

// Snapshots lists the snapshots, oldest first.
func (s *Store) Snapshots() ([]SnapshotInfo, error) {
	if err := s.available("snapshots"); err != nil {
		return nil, err
	}
	all, err := s.c.Index.Snapshots()
	out := make([]SnapshotInfo, len(all))
	for i, snap := range all {
		out[i] = snapshotInfo(snap)
	}
	return out, err
}

// RestoreRequest says which stored documents to write out, and where.
type RestoreRequest struct {
	Collection string // the current documents of this collection; or
	SnapshotID string // the documents as a snapshot recorded them
	Output     string // directory to write into, created when missing
	Include    []string
	Exclude    []string // globs over document names
	// Overwrite replaces existing files; without it they are skipped and
	// reported.
	Overwrite bool
	DryRun    bool // report what would happen, write nothing
}

// Restored is one document restore wrote (or, in a dry run, would write).
type Restored struct {
	Name  string `json:"name"`
	File  string `json:"file"`
	Bytes int64  `json:"bytes"`
	// Replaced says an existing file was (or would be) overwritten.
	Replaced bool `json:"replaced,omitempty"`
}

// Skipped is a document restore did not write, and why.
type Skipped struct {
	Name   string `json:"name"`
	File   string `json:"file,omitempty"`
	Reason string `json:"reason"`
}

// RestoreResult says what Restore did.
type RestoreResult struct {
	Output  string     `json:"output"`
	DryRun  bool       `json:"dry_run"`
	Written []Restored `json:"written"`
	Skipped []Skipped  `json:"skipped"`
}

// Restore writes stored documents' content to files under an output
// directory, each at its name. It never writes outside the directory (a
// name or a symbolic link leading out is skipped), and never replaces an
// existing file unless Overwrite is set.
func (s *Store) Restore(req RestoreRequest) (*RestoreResult, error) {
	if err := s.available("restore"); err != nil {
		return nil, err
	}
	if (req.Collection == "") == (req.SnapshotID == "") {
		return nil, fmt.Errorf("%w: restore needs a collection or a snapshot id (one of them)", index.ErrBadOption)
	}
	if req.Output == "" {
		return nil, fmt.Errorf("%w: restore needs an output directory", index.ErrBadOption)
	}
	incl, err := index.NewMatcher(req.Include)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", index.ErrBadOption, err)
	}
	excl, err := index.NewMatcher(req.Exclude)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", index.ErrBadOption, err)
	}
	docs := map[string]string{}
	if req.SnapshotID != "" {
		all, err := s.c.Index.Snapshots()
		if err != nil {
			return nil, err
		}
		for _, snap := range all {
			if snap.ID == req.SnapshotID {
				docs = snap.Docs
			}
		}
		if len(docs) == 0 {
			return nil, fmt.Errorf("%w: no snapshot %q; braid snapshot list shows them", index.ErrNotFound, req.SnapshotID)
		}
	} else {
		if err := s.c.Index.ForEachStored(func(r *index.Stored) error {
			if r.Collection == req.Collection {
				docs[r.Name] = r.Hash
			}
			return nil
		}); err != nil {
			return nil, err
		}
		if len(docs) == 0 {
			return nil, fmt.Errorf("%w: no stored document is in collection %q; braid collections lists them", index.ErrNotFound, req.Collection)
		}
	}
	out, err := filepath.Abs(req.Output)
	if err != nil {
		return nil, fmt.Errorf("braid: %s: %w", req.Output, err)
	}
	if info, err := os.Stat(out); err == nil && !info.IsDir() {
		return nil, fmt.Errorf("%w: %s is a file, not a directory", index.ErrBadOption, req.Output)
	}
	res := &RestoreResult{Output: out, DryRun: req.DryRun, Written: []Restored{}, Skipped: []Skipped{}}
	names := make([]string, 0, len(docs))
	for n := range docs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		if (incl != nil && !incl.Match(name)) || excl.Match(name) {
			continue
		}
		if r, err := s.restoreOne(out, name, docs[name], req); err != nil {
			return res, err
		} else if r.skipped != nil {
			res.Skipped = append(res.Skipped, *r.skipped)
		} else {
			res.Written = append(res.Written, *r.written)
		}
	}
	return res, nil
}

type restoreOutcome struct {
	written *Restored
	skipped *Skipped
}

// restoreOne writes one document, or says why it did not; the error is
// for failures that stop the restore.
func (s *Store) restoreOne(out, name, hash string, req RestoreRequest) (restoreOutcome, error) {
	skip := func(file, why string) (restoreOutcome, error) {
		return restoreOutcome{skipped: &Skipped{Name: name, File: file, Reason: why}}, nil
	}
	clean, err := CleanName(name)
	if err != nil || clean != name {
		return skip("", "the name leads outside the output directory")
	}
	file := filepath.Join(out, filepath.FromSlash(name))
	data, err := s.c.Blobs.Get(hash)
	if err != nil {
		return skip(file, err.Error())
	}
	if err := insideDir(out, filepath.Dir(file)); err != nil {
		return skip(file, err.Error())
	}
	info, err := os.Lstat(file)
	exists := err == nil
	switch {
	case exists && info.IsDir():
		return skip(file, "a directory is in the way")
	case exists && !req.Overwrite:
		return skip(file, "the file exists; restore with overwrite (--overwrite on the command line) to replace it")
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return skip(file, err.Error())
	}
	if exists && info.Mode().IsRegular() {
		if have, err := os.ReadFile(file); err == nil && bytes.Equal(have, data) {
			return skip(file, "the file already has this content")
		}
	}
	r := restoreOutcome{written: &Restored{Name: name, File: file, Bytes: int64(len(data)), Replaced: exists}}
	if req.DryRun {
		return r, nil
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return r, fmt.Errorf("braid: restore %s: %w", name, err)
	}
	if err := insideDir(out, filepath.Dir(file)); err != nil { // a link made between the check and MkdirAll
		return skip(file, err.Error())
	}
	if err := atomicfile.WriteFile(file, data, 0); err != nil {
		return r, fmt.Errorf("braid: restore %s: %w", name, err)
	}
	return r, nil
}

// insideDir checks that dir, symbolic links followed as far as it exists,
// is within root.
func insideDir(root, dir string) error {
	realRoot, err := filepath.EvalSymlinks(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // nothing exists yet, so no link can lead out
	}
	if err != nil {
		return err
	}
	// Walk up to the deepest part of dir that exists.
	p, rest := dir, ""
	for {
		if _, err := os.Lstat(p); err == nil {
			break
		}
		parent := filepath.Dir(p)
		if parent == p {
			return nil
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return err
	}
	rel, err := filepath.Rel(realRoot, filepath.Join(real, rest))
	if err != nil || !filepath.IsLocal(rel) && rel != "." {
		return fmt.Errorf("%s leads outside the output directory %s (a symbolic link?); not written", dir, root)
	}
	return nil
}
