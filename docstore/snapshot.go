package docstore

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"syscall"
	"time"

	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/internal/confine"
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
	// Within, when set, is a folder (its real path) Output must lie in:
	// the output folder is then made and opened from Within's descriptor,
	// so a link swapped into its path cannot move the writes elsewhere.
	// Empty means Output as it resolves now (the user named it).
	Within string
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
		return nil, fmt.Errorf("restore into %s: %w", req.Output, err)
	}
	if info, err := os.Stat(out); err == nil && !info.IsDir() {
		return nil, fmt.Errorf("%w: %s is a file, not a directory", index.ErrBadOption, req.Output)
	}
	res := &RestoreResult{Output: out, DryRun: req.DryRun, Written: []Restored{}, Skipped: []Skipped{}}
	dir, err := s.outputDir(out, req)
	if err != nil {
		return nil, err
	}
	if dir != nil {
		defer dir.Close()
	}
	names := make([]string, 0, len(docs))
	for n := range docs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		if (incl != nil && !incl.Match(name)) || excl.Match(name) {
			continue
		}
		if r, err := s.restoreOne(dir, out, name, docs[name], req); err != nil {
			return res, err
		} else if r.skipped != nil {
			res.Skipped = append(res.Skipped, *r.skipped)
		} else {
			res.Written = append(res.Written, *r.written)
		}
	}
	return res, nil
}

// ErrIndexDir is the error of a restore into the index directory.
var ErrIndexDir = errors.New("docstore: the output folder is in the index directory")

// outputDir opens the output folder, made when missing (unless a dry run
// finds it missing: nil), from RestoreRequest.Within's descriptor or from
// its own real path. A folder in the index directory is refused.
func (s *Store) outputDir(out string, req RestoreRequest) (*confine.Dir, error) {
	var dir *confine.Dir
	var err error
	if req.Within != "" {
		rel, rerr := filepath.Rel(req.Within, out)
		if rerr != nil || !(rel == "." || filepath.IsLocal(rel)) {
			return nil, fmt.Errorf("%w: %s is not inside %s", confine.ErrOutside, out, req.Within)
		}
		root, oerr := confine.OpenDir(req.Within)
		if oerr != nil {
			return nil, oerr
		}
		defer root.Close()
		if req.DryRun {
			dir, err = root.Sub(rel)
		} else {
			dir, err = root.Mkdir(rel)
		}
	} else {
		if !req.DryRun {
			if err := os.MkdirAll(out, 0o755); err != nil {
				return nil, fmt.Errorf("restore: %w", err)
			}
		}
		real, rerr := filepath.EvalSymlinks(out)
		if rerr != nil {
			if req.DryRun && errors.Is(rerr, fs.ErrNotExist) {
				return nil, nil
			}
			return nil, fmt.Errorf("restore: %w", rerr)
		}
		dir, err = confine.OpenDir(real)
	}
	if err != nil {
		if req.DryRun && errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("restore into %s: %w", out, err)
	}
	if s.InIndex(dir.Path()) {
		dir.Close()
		return nil, fmt.Errorf("%w: %s; restore writes documents elsewhere", ErrIndexDir, out)
	}
	return dir, nil
}

// InIndex says whether the real path p is the index directory or lies
// inside it (Config.IndexDir; never on a cluster backend, which has
// none): Restore never writes there, nor may a server hand it out.
func (s *Store) InIndex(p string) bool {
	return s.c.IndexDir != "" && confine.Within(s.c.IndexDir, p)
}

type restoreOutcome struct {
	written *Restored
	skipped *Skipped
}

// restoreOne writes one document beneath dir (the output folder, nil in
// a dry run whose folder does not exist yet), or says why it did not; the
// error is for failures that stop the restore. Every folder is made and
// every file created and renamed from dir's descriptor, so a link in the
// output folder leads nowhere outside it.
func (s *Store) restoreOne(dir *confine.Dir, out, name, hash string, req RestoreRequest) (restoreOutcome, error) {
	skip := func(file, why string) (restoreOutcome, error) {
		return restoreOutcome{skipped: &Skipped{Name: name, File: file, Reason: why}}, nil
	}
	clean, err := CleanName(name)
	if err != nil || clean != name {
		return skip("", "the name leads outside the output directory")
	}
	file := filepath.Join(out, filepath.FromSlash(name))
	rel := filepath.FromSlash(name)
	if dir != nil && s.InIndex(filepath.Join(dir.Path(), rel)) {
		return skip(file, "the name leads into the index directory")
	}
	data, err := s.c.Blobs.Get(hash)
	if err != nil {
		return skip(file, err.Error())
	}
	r := restoreOutcome{written: &Restored{Name: name, File: file, Bytes: int64(len(data))}}
	if dir == nil {
		return r, nil // a dry run into a folder that does not exist yet
	}
	var sub *confine.Dir
	if req.DryRun {
		sub, err = dir.Sub(filepath.Dir(rel))
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOENT) {
			return r, nil
		}
	} else {
		sub, err = dir.Mkdir(filepath.Dir(rel))
	}
	if err != nil {
		if errors.Is(err, confine.ErrOutside) {
			return skip(file, "a symbolic link in its folder leads outside the output directory")
		}
		return skip(file, err.Error())
	}
	defer sub.Close()
	if s.InIndex(sub.Path()) {
		return skip(file, "a symbolic link in its folder leads into the index directory")
	}
	base := filepath.Base(rel)
	mode, err := sub.Stat(base)
	exists := err == nil
	switch {
	case exists && mode.IsDir():
		return skip(file, "a directory is in the way")
	case exists && !req.Overwrite:
		return skip(file, "the file exists; restore with overwrite (--overwrite on the command line) to replace it")
	case err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOENT):
		return skip(file, err.Error())
	}
	if exists && mode.IsRegular() {
		if have, _, err := sub.ReadAt(base, int64(len(data))+1); err == nil && bytes.Equal(have, data) {
			return skip(file, "the file already has this content")
		}
	}
	r.written.Replaced = exists
	if req.DryRun {
		return r, nil
	}
	if err := sub.WriteFile(base, data, 0o600, req.Overwrite); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return skip(file, "the file exists; restore with overwrite (--overwrite on the command line) to replace it")
		}
		return r, fmt.Errorf("restore %s: %w", name, err)
	}
	return r, nil
}
