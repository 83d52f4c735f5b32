package ingest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/braidsearch/braid/bucket"
	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/internal/confine"
)

// SourceSpec names a path to index and how.
type SourceSpec struct {
	Path        string   // a directory, a text/markdown file, a BEIR corpus .jsonl, or an s3://bucket/prefix URL
	Name        string   // display name; empty means the base name of Path (or the name it was registered with)
	Patterns    []string // include globs; empty keeps what the source had (every text file for a new one)
	Excludes    []string // exclude globs, added to what the source had
	NoRecursive bool     // index only the top level of a directory
	MaxFileSize int64    // skip larger files; zero keeps the source's limit (default 8 MB)
	// ChunkTokens is the token budget per chunk; zero keeps the source's
	// setting (default 512). Changing it re-chunks the whole source.
	ChunkTokens int
	// ChunkOverlap is the overlap between the pieces of a split section;
	// nil keeps the source's setting (default 64), 0 means none.
	ChunkOverlap *int
	// KeepVersions is how many versions of each file's content, the current
	// one included, to copy into the index's blob store for braid versions
	// and braid diff; nil keeps the source's setting (default 0: none).
	KeepVersions *int
	// FollowLinks, when set, says whether the walk follows symbolic links
	// to files outside the source (default false: they are skipped and
	// counted in Skips.LinkOutside); nil keeps the source's setting.
	FollowLinks *bool
	// Endpoint is the URL of the S3-compatible store (http://host:port)
	// an s3:// source lives in; it is kept with the source. Empty keeps
	// the source's (for a new one: the AWS configuration's, else Amazon
	// S3). It is an error for other paths.
	Endpoint string
	// Within, when set, lists the folders (real paths) the source's real
	// path must lie in: a caller that checked the path it was given
	// against an allowed area (braid serve) has the check made again on
	// the path registered, so a link swapped in between leads nowhere.
	Within []string
}

// ErrOutsideAllowed is the error of a SourceSpec whose path, links
// followed, is not inside SourceSpec.Within.
var ErrOutsideAllowed = errors.New("index: path outside the allowed folders")

// Source checks the spec's path and options and turns them into a source
// record: the one registered under the path's id (registered looks it up,
// nil when there is none) with the spec's changes, or a new one. rechunk
// says whether its chunk settings changed, which re-chunks the whole
// source. The document store's own directory comes back as it is: its
// blobs are no text files.
func (sp SourceSpec) Source(registered func(id string) (*index.Source, error)) (src *index.Source, rechunk bool, err error) {
	if sp.Path == "" {
		return nil, false, fmt.Errorf("%w: empty path", index.ErrBadOption)
	}
	overlap := 0
	if sp.ChunkOverlap != nil {
		overlap = *sp.ChunkOverlap
	}
	if sp.ChunkTokens < 0 || (sp.ChunkTokens > 0 && sp.ChunkTokens < 16) || overlap < 0 || (sp.ChunkTokens > 0 && overlap >= sp.ChunkTokens) {
		return nil, false, fmt.Errorf("%w: chunk size %d and overlap %d: want a size of at least 16 tokens and an overlap of 0 or more below it", index.ErrBadOption, sp.ChunkTokens, overlap)
	}
	var abs string
	var kind index.SourceKind
	if bucket.IsURL(sp.Path) {
		u, err := bucket.ParseURL(sp.Path)
		if err != nil {
			return nil, false, fmt.Errorf("%w: %v", index.ErrBadOption, err)
		}
		if sp.Endpoint != "" {
			if err := bucket.CheckEndpoint(sp.Endpoint); err != nil {
				return nil, false, fmt.Errorf("%w: SourceSpec.Endpoint: %v", index.ErrBadOption, err)
			}
		}
		abs, kind = u.String(), index.SourceS3
	} else {
		if sp.Endpoint != "" {
			return nil, false, fmt.Errorf("%w: an S3 endpoint is for s3:// sources, and %s is a local path", index.ErrBadOption, sp.Path)
		}
		if abs, kind, err = localSource(sp.Path); err != nil {
			return nil, false, err
		}
	}
	if _, err := index.NewMatcher(append(slices.Clone(sp.Patterns), sp.Excludes...)); err != nil {
		return nil, false, fmt.Errorf("%w: %v", index.ErrBadOption, err)
	}
	id := index.SourceID(abs)
	if src, err = registered(id); err != nil {
		return nil, false, err
	}
	if src == nil && kind != index.SourceS3 {
		// An older braid registered the path as given, links and all.
		if old, err := filepath.Abs(sp.Path); err == nil && old != abs {
			if src, err = registered(index.SourceID(old)); err != nil {
				return nil, false, err
			}
			if src != nil {
				id = src.ID
				src.Path = abs
			}
		}
	}
	if kind != index.SourceS3 && len(sp.Within) > 0 && !slices.ContainsFunc(sp.Within, func(root string) bool { return confine.Within(root, abs) }) {
		return nil, false, fmt.Errorf("%w: %s leads outside the folders allowed (%s)", ErrOutsideAllowed, sp.Path, strings.Join(sp.Within, ", "))
	}
	if src != nil && src.Kind == index.SourceStore {
		return src, false, nil
	}
	if src == nil {
		src = &index.Source{ID: id, Path: abs, AddedAt: time.Now().UTC(), Name: filepath.Base(abs)}
	}
	src.Kind = kind
	if sp.Name != "" {
		src.Name = sp.Name
	}
	if len(sp.Patterns) > 0 {
		src.Patterns = sp.Patterns
	}
	for _, x := range sp.Excludes {
		if !slices.Contains(src.Excludes, x) {
			src.Excludes = append(src.Excludes, x)
		}
	}
	if sp.NoRecursive {
		src.NoRecursive = true
	}
	if sp.MaxFileSize > 0 {
		src.MaxFileSize = sp.MaxFileSize
	}
	if sp.KeepVersions != nil {
		if *sp.KeepVersions < 0 {
			return nil, false, fmt.Errorf("%w: keep-versions %d, want 0 or more", index.ErrBadOption, *sp.KeepVersions)
		}
		src.KeepVersions = *sp.KeepVersions
	}
	if sp.FollowLinks != nil {
		src.FollowLinks = *sp.FollowLinks
	}
	if sp.Endpoint != "" {
		src.Endpoint = sp.Endpoint
	}
	before := [2]int{src.ChunkTokens, src.ChunkOverlap}
	if sp.ChunkTokens > 0 {
		src.ChunkTokens = sp.ChunkTokens
	}
	if sp.ChunkOverlap != nil {
		src.ChunkOverlap = *sp.ChunkOverlap
		if src.ChunkOverlap == 0 {
			src.ChunkOverlap = -1 // chunk.Options: negative means no overlap
		}
	}
	return src, before != [2]int{src.ChunkTokens, src.ChunkOverlap}, nil
}

// localSource checks a local path to index and says what kind of source it
// is: a folder, a file or a BEIR corpus. The path it returns is the real
// one, every symbolic link in it followed now: a source grants the folder
// it is when it is registered, and is read later only while no link has
// taken a place in that path (confine.OpenDir).
func localSource(p string) (string, index.SourceKind, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", "", fmt.Errorf("index: %s: %w", p, err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	info, err := os.Stat(abs)
	if err != nil {
		switch {
		case errors.Is(err, os.ErrNotExist):
			return "", "", fmt.Errorf("index: %s does not exist; check the path", p)
		case errors.Is(err, os.ErrPermission):
			return "", "", fmt.Errorf("index: %s is not readable: permission denied", p)
		}
		return "", "", fmt.Errorf("index: %s: %w", p, err)
	}
	if !info.IsDir() && !info.Mode().IsRegular() {
		return "", "", fmt.Errorf("%w: %s is %s; braid indexes folders and regular files", index.ErrBadOption, p, confine.Kind(info.Mode()))
	}
	kind := index.SourceDir
	if !info.IsDir() {
		kind = index.SourceFile
		if IsJSONL(abs) {
			kind = index.SourceJSONL
		}
	}
	f, err := os.Open(abs)
	if err != nil {
		return "", "", fmt.Errorf("index: %s is not readable: %w", p, errors.Unwrap(err))
	}
	f.Close()
	return abs, kind, nil
}
