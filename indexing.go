package braid

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
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
}

// Index registers the given sources (or, with none, takes every registered
// source) and brings the index in step with them, embedding new chunk
// texts when the engine has an embedder. progress may be nil.
// Per-file problems are listed in the summary; the returned error is for
// problems that stop the run, after which the index is still consistent.
// An error with no Summary means nothing was written (see Open for what
// that undoes).
func (e *Engine) Index(ctx context.Context, specs []SourceSpec, progress func(Progress)) (sum *Summary, err error) {
	if e.created != "" {
		defer func() { e.discard.Store(sum == nil && err != nil) }()
	}
	if e.opt.ReadOnly {
		return nil, ErrReadOnly
	}
	start := time.Now()
	// An index run that finds nothing to change must not report success
	// on a store doctor calls damaged.
	if e.cl == nil {
		if err := e.st.Verify(); err != nil {
			return nil, err
		}
	}
	var sources []*Source
	force := map[string]bool{}
	if len(specs) == 0 {
		all, err := e.ret.Sources(ctx)
		if err != nil {
			return nil, err
		}
		if len(all) == 0 {
			return nil, errors.New("braid: no sources registered yet; run braid index PATH")
		}
		sources = all
	}
	// Check every path before touching the index.
	for _, sp := range specs {
		src, rechunk, err := e.sourceFor(ctx, sp)
		if err != nil {
			return nil, err
		}
		force[src.ID] = rechunk
		sources = append(sources, src)
	}
	if e.cl != nil {
		sum := &Summary{}
		err := e.cl.Index(ctx, sources, force, progress, sum)
		sum.TookMS = time.Since(start).Milliseconds()
		return sum, err
	}
	var embedProgress func(done int)
	if progress != nil {
		embedProgress = func(done int) {
			progress(Progress{Source: "embeddings", Phase: "embed", Done: done})
		}
	}
	vs := e.vectors(embedProgress)
	ix := &index.Indexer{Store: e.st, Lexical: e.lex, Opt: index.Options{Workers: e.opt.Workers, BatchDocs: e.opt.BatchDocs}, Progress: progress, Vectors: vs, Blobs: e.blobs(), AWS: e.opt.AWS}
	sum = &Summary{}
	var runErr error
	for _, src := range sources {
		ix.Force = force[src.ID]
		if runErr = ix.Index(ctx, src, sum); runErr != nil {
			break
		}
	}
	if runErr == nil {
		runErr = e.saveVectors(ctx, vs, true)
	} else {
		// Keep what was embedded before the failure; the next run fills the rest.
		_ = e.saveVectors(ctx, vs, false)
	}
	if vs != nil {
		sum.Embedded = vs.Embedded
		sum.EmbedMS = vs.EmbedTime.Milliseconds()
		sum.Tokens = vs.Tokens
	}
	sum.TookMS = time.Since(start).Milliseconds()
	return sum, runErr
}

// sourceFor turns a spec into a source record, reusing the registered one
// for the same path, and says whether its chunk settings changed.
func (e *Engine) sourceFor(ctx context.Context, sp SourceSpec) (*Source, bool, error) {
	if sp.Path == "" {
		return nil, false, fmt.Errorf("%w: empty path", ErrBadOption)
	}
	overlap := 0
	if sp.ChunkOverlap != nil {
		overlap = *sp.ChunkOverlap
	}
	if sp.ChunkTokens < 0 || (sp.ChunkTokens > 0 && sp.ChunkTokens < 16) || overlap < 0 || (sp.ChunkTokens > 0 && overlap >= sp.ChunkTokens) {
		return nil, false, fmt.Errorf("%w: chunk size %d and overlap %d: want a size of at least 16 tokens and an overlap of 0 or more below it", ErrBadOption, sp.ChunkTokens, overlap)
	}
	var abs string
	var kind index.SourceKind
	if bucket.IsURL(sp.Path) {
		u, err := bucket.ParseURL(sp.Path)
		if err != nil {
			return nil, false, fmt.Errorf("%w: %v", ErrBadOption, err)
		}
		if sp.Endpoint != "" {
			if err := bucket.CheckEndpoint(sp.Endpoint); err != nil {
				return nil, false, fmt.Errorf("%w: SourceSpec.Endpoint: %v", ErrBadOption, err)
			}
		}
		abs, kind = u.String(), index.SourceS3
	} else {
		if sp.Endpoint != "" {
			return nil, false, fmt.Errorf("%w: an S3 endpoint is for s3:// sources, and %s is a local path", ErrBadOption, sp.Path)
		}
		var err error
		if abs, kind, err = localSource(sp.Path); err != nil {
			return nil, false, err
		}
	}
	if _, err := index.NewMatcher(append(append([]string(nil), sp.Patterns...), sp.Excludes...)); err != nil {
		return nil, false, fmt.Errorf("%w: %v", ErrBadOption, err)
	}
	id := index.SourceID(abs)
	src, err := e.sourceByID(ctx, id)
	if err != nil {
		return nil, false, err
	}
	if src != nil && src.Kind == index.SourceStore {
		return src, false, nil // the document store's own directory (a watcher's re-index): its blobs are no text files
	}
	if src == nil {
		src = &Source{ID: id, Path: abs, AddedAt: time.Now().UTC(), Name: filepath.Base(abs)}
	}
	src.Kind = kind
	if sp.Name != "" {
		src.Name = sp.Name
	}
	if len(sp.Patterns) > 0 {
		src.Patterns = sp.Patterns
	}
	for _, x := range sp.Excludes {
		if !contains(src.Excludes, x) {
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
			return nil, false, fmt.Errorf("%w: keep-versions %d, want 0 or more", ErrBadOption, *sp.KeepVersions)
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
// is: a folder, a file or a BEIR corpus.
func localSource(p string) (string, index.SourceKind, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", "", fmt.Errorf("braid: %s: %w", p, err)
	}
	info, err := os.Stat(abs)
	if err != nil {
		switch {
		case errors.Is(err, os.ErrNotExist):
			return "", "", fmt.Errorf("braid: %s does not exist; check the path", p)
		case errors.Is(err, os.ErrPermission):
			return "", "", fmt.Errorf("braid: %s is not readable: permission denied", p)
		}
		return "", "", fmt.Errorf("braid: %s: %w", p, err)
	}
	kind := index.SourceDir
	if !info.IsDir() && !info.Mode().IsRegular() {
		return "", "", fmt.Errorf("%w: %s is %s; braid indexes folders and regular files", ErrBadOption, p, confine.Kind(info.Mode()))
	}
	if !info.IsDir() {
		kind = index.SourceFile
		if index.IsJSONL(abs) {
			kind = index.SourceJSONL
		}
	}
	if f, err := os.Open(abs); err != nil {
		return "", "", fmt.Errorf("braid: %s is not readable: %w", p, errors.Unwrap(err))
	} else {
		f.Close()
	}
	return abs, kind, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Sources lists the registered sources.
func (e *Engine) Sources() ([]*Source, error) { return e.ret.Sources(context.Background()) }

// sourceByID is the registered source with this id, or nil.
func (e *Engine) sourceByID(ctx context.Context, id string) (*Source, error) {
	if e.cl == nil {
		return e.st.Source(id)
	}
	all, err := e.ret.Sources(ctx)
	if err != nil {
		return nil, err
	}
	for _, s := range all {
		if s.ID == id {
			return s, nil
		}
	}
	return nil, nil
}

// RemoveSource unregisters a source (by id or name) and removes its
// documents from the index; the files themselves are not touched. It returns
// how many documents were removed.
func (e *Engine) RemoveSource(ref string) (int, error) {
	if e.opt.ReadOnly {
		return 0, ErrReadOnly
	}
	src, err := e.nt.Source(ref)
	if err != nil {
		return 0, err
	}
	if e.cl != nil {
		ctx := context.Background()
		files, err := e.cl.x.FileHashes(ctx, src.ID)
		if err != nil {
			return 0, err
		}
		return len(files), e.cl.x.DeleteSource(ctx, src.ID)
	}
	if src.Kind == index.SourceStore {
		// Its records would bring the documents back at the next add.
		return 0, fmt.Errorf("%w: %q is the document store, not a folder; delete stored documents by name instead (braid delete, or the MCP tool delete_by_name)", ErrBadOption, ref)
	}
	vs := e.vectors(nil)
	ix := &index.Indexer{Store: e.st, Lexical: e.lex, Vectors: vs, Blobs: e.blobs()}
	n, err := ix.RemoveSource(src.ID)
	if err != nil {
		return n, err
	}
	return n, e.saveVectors(context.Background(), vs, true)
}
