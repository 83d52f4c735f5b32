package docstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/braidsearch/braid/blob"
	"github.com/braidsearch/braid/diff"
	"github.com/braidsearch/braid/extract"
	"github.com/braidsearch/braid/index"
)

// VersionInfo is one version of a document.
type VersionInfo struct {
	index.Version
	Current bool `json:"current"`
	// Kept says the version's content can be read (it is in the blob store,
	// or it is the current content of a file).
	Kept bool `json:"kept"`
}

// VersionList is a document's versions, oldest first.
type VersionList struct {
	ID       string        `json:"id"`
	Path     string        `json:"path"`
	Stored   bool          `json:"stored"`
	Versions []VersionInfo `json:"versions"`
}

// Versions lists a document's versions. A stored document has one per
// content it was added with; a source's file has the versions kept under
// its source's KeepVersions, or only its current one.
func (s *Store) Versions(ref string) (*VersionList, error) {
	if err := s.available("versions"); err != nil {
		return nil, err
	}
	d, err := s.resolve(ref)
	if err != nil {
		return nil, err
	}
	vs, err := s.c.Index.Versions(d.ID)
	if err != nil {
		return nil, err
	}
	src, err := s.source(false)
	if err != nil {
		return nil, err
	}
	out := &VersionList{ID: d.ID, Path: d.Path, Stored: src != nil && d.SourceID == src.ID}
	// A file's current content is its newest version even when it was not
	// kept; a stored document's versions are recorded before it is indexed.
	if len(vs) == 0 || !out.Stored && vs[len(vs)-1].Hash != d.Hash {
		t := d.ModTime
		if t.IsZero() {
			t = d.IndexedAt
		}
		vs = append(vs, index.Version{Version: len(vs) + 1, Hash: d.Hash, Size: d.Size, Time: t})
	}
	b := s.c.Blobs
	for i, v := range vs {
		cur := i == len(vs)-1
		out.Versions = append(out.Versions, VersionInfo{Version: v, Current: cur, Kept: cur || b.Has(v.Hash)})
	}
	return out, nil
}

// Comparison is the difference between two versions of a document.
type Comparison struct {
	ID   string      `json:"id"`
	Path string      `json:"path"`
	From VersionInfo `json:"from"`
	To   VersionInfo `json:"to"`
	// Diff is a unified diff from From to To; empty when they are equal.
	Diff string `json:"diff"`
}

// CompareVersions diffs two versions of a document. from and to are
// version numbers (1 is the oldest kept) or content hashes (a prefix of 4
// or more hex digits); empty from means the version before to, empty to
// the current version.
func (s *Store) CompareVersions(ctx context.Context, ref, from, to string) (*Comparison, error) {
	if err := s.available("diff"); err != nil {
		return nil, err
	}
	l, err := s.Versions(ref)
	if err != nil {
		return nil, err
	}
	vs := l.Versions
	ti := len(vs) - 1
	if to != "" {
		if ti, err = pickVersion(vs, to); err != nil {
			return nil, err
		}
	}
	fi := ti - 1
	if from != "" {
		if fi, err = pickVersion(vs, from); err != nil {
			return nil, err
		}
	}
	if fi < 0 {
		return nil, fmt.Errorf("%w: %s has only one version; nothing to compare (a source's files keep versions with SourceSpec.KeepVersions)", index.ErrNotFound, l.Path)
	}
	a, err := s.versionContent(ref, vs[fi])
	if err != nil {
		return nil, err
	}
	b, err := s.versionContent(ref, vs[ti])
	if err != nil {
		return nil, err
	}
	if a, err = text(ctx, l.Path, a); err != nil {
		return nil, fmt.Errorf("version %d of %s: %w", vs[fi].Version.Version, l.Path, err)
	}
	if b, err = text(ctx, l.Path, b); err != nil {
		return nil, fmt.Errorf("version %d of %s: %w", vs[ti].Version.Version, l.Path, err)
	}
	name := func(v VersionInfo) string { return fmt.Sprintf("%s@v%d (%s)", l.Path, v.Version.Version, v.Hash[:12]) }
	return &Comparison{ID: l.ID, Path: l.Path, From: vs[fi], To: vs[ti],
		Diff: diff.Unified(name(vs[fi]), name(vs[ti]), string(a), string(b), 3)}, nil
}

// pickVersion finds a version by number or hash prefix.
func pickVersion(vs []VersionInfo, ref string) (int, error) {
	if n, err := strconv.Atoi(strings.TrimPrefix(strings.ToLower(ref), "v")); err == nil {
		if n < 1 || n > len(vs) {
			return 0, fmt.Errorf("%w: version %d, want 1..%d", index.ErrBadOption, n, len(vs))
		}
		return n - 1, nil
	}
	if len(ref) >= 4 {
		found := -1
		for i, v := range vs {
			if strings.HasPrefix(v.Hash, strings.ToLower(ref)) {
				if found >= 0 && vs[found].Hash != v.Hash {
					return 0, fmt.Errorf("%w: hash prefix %q matches versions %d and %d; give more digits", index.ErrAmbiguous, ref, found+1, i+1)
				}
				found = i
			}
		}
		if found >= 0 {
			return found, nil
		}
	}
	return 0, fmt.Errorf("%w: no version %q; want a version number 1..%d or a content hash", index.ErrNotFound, ref, len(vs))
}

// versionContent reads a version's content: from the blob store, or for
// a file's current version, from the file when it still has that content.
func (s *Store) versionContent(ref string, v VersionInfo) ([]byte, error) {
	data, err := s.c.Blobs.Get(v.Hash)
	if err == nil {
		return data, nil
	}
	if !errors.Is(err, blob.ErrNotFound) {
		return nil, err
	}
	if v.Current {
		data, file, err := s.c.Current(ref)
		if err != nil {
			return nil, err
		}
		if blob.Hash(data) == v.Hash {
			return data, nil
		}
		return nil, fmt.Errorf("%w: %s changed on disk since it was indexed; run braid index, then compare", index.ErrNotFound, file)
	}
	return nil, fmt.Errorf("%w: the content of version %d (%s) was not kept; SourceSpec.KeepVersions keeps the last N versions of a source's files", index.ErrNotFound, v.Version.Version, v.Hash[:12])
}

// text turns a version's content into the text it is indexed as, for a
// diff: the text of a PDF, HTML, DOCX or ODT file (package extract),
// picked by the document's path; any other content is its own text.
func text(ctx context.Context, path string, data []byte) ([]byte, error) {
	if extract.Format(path) == "" {
		return data, nil
	}
	x, err := extract.File(ctx, path, data, nil)
	if err != nil {
		return nil, err
	}
	return x.Text, nil
}
