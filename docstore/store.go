package docstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/braidsearch/braid/blob"
	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/indexdir"
)

// Errors of the document store. It also returns the engine's shared
// errors: index.ErrNotFound, ErrAmbiguous, ErrBadOption, ErrReadOnly and
// ErrBackend.
var (
	// ErrSourceFile means a delete named a document that lives in a user's
	// source: braid never deletes a user's files.
	ErrSourceFile = errors.New("braid does not delete source files")
	// ErrBadName means a stored document's name is empty, absolute, leaves
	// the store with "..", or is not valid UTF-8.
	ErrBadName = errors.New("invalid document name")
)

// SourceName is the name of the internal source of stored documents; grep
// shows a stored document as "store:NAME".
const SourceName = "store"

// Config is what a Store needs from the engine that owns it.
type Config struct {
	// Index keeps the stored documents' records, versions, metadata and
	// snapshots, beside the documents of every source.
	Index *index.Store
	// Blobs is the index's content-addressed store, where stored content is
	// kept once per distinct text.
	Blobs *blob.Store
	// Dir is the directory of the store source, inside the index directory;
	// it is created with the first Add.
	Dir string
	// IndexDir is the index directory (its real path): Restore never
	// writes into it, whatever the output folder and the names.
	IndexDir string
	// Reindex brings the index in step with the stored documents; refresh
	// names documents to re-index although their content did not change.
	Reindex func(ctx context.Context, src *index.Source, refresh map[string]bool) error
	// Lookup resolves a document name, id or content hash to a document of
	// any source, as the engine does for get and search.
	Lookup func(ref string) (*index.Document, error)
	// Current reads a document's content as it is now, and the file it was
	// read from: the current version of a source's file that was not kept.
	Current func(ref string) (data []byte, file string, err error)
	// ReadOnly refuses every write with index.ErrReadOnly.
	ReadOnly bool
	// Backend returns why an operation, named by what, is not available, or
	// nil when it is (the engine keeps its index in a cluster: an
	// index.ErrBackend). Nil means always available.
	Backend func(what string) error
}

// Store is the index's own store of documents: documents added with Add
// (not files of a source), their versions, collections and snapshots. Its
// methods are safe for concurrent use; writes are serialised inside the
// Store, so an engine must have one Store for its index.
type Store struct {
	c  Config
	mu sync.Mutex // serialises writes
}

// New returns the document store c describes.
func New(c Config) *Store { return &Store{c: c} }

// available says whether the operation what can run here.
func (s *Store) available(what string) error {
	if s.c.Backend == nil {
		return nil
	}
	return s.c.Backend(what)
}

// Source returns the internal source of stored documents; nil when
// nothing was ever stored.
func (s *Store) Source() (*index.Source, error) { return s.source(false) }

// source returns the store source, registering it when create is set.
func (s *Store) source(create bool) (*index.Source, error) {
	abs, err := filepath.Abs(s.c.Dir)
	if err != nil {
		return nil, fmt.Errorf("document store: %w", err)
	}
	id := index.SourceID(abs)
	src, err := s.c.Index.Source(id)
	if err != nil || src != nil || !create {
		return src, err
	}
	if err := os.MkdirAll(abs, indexdir.DirMode); err != nil {
		return nil, fmt.Errorf("create the document store: %w", err)
	}
	src = &index.Source{ID: id, Name: SourceName, Path: abs, Kind: index.SourceStore, AddedAt: time.Now().UTC()}
	return src, s.c.Index.PutSource(src)
}

// Read returns a stored document's content from the blob store, and the
// blob's file.
func (s *Store) Read(d *index.Document) (data []byte, file string, err error) {
	file = s.c.Blobs.Path(d.Hash)
	data, err = s.c.Blobs.Get(d.Hash)
	if err != nil {
		return nil, file, fmt.Errorf("read stored document %s: %w; braid doctor checks the store", d.Path, err)
	}
	return data, file, nil
}

// Files maps the blob file of each stored document to the name grep shows
// for it ("store:NAME"); several names may share one blob, and the first
// in name order is shown.
func (s *Store) Files() (map[string]string, error) {
	out := map[string]string{}
	src, err := s.source(false)
	if err != nil || src == nil {
		return out, err
	}
	entries, err := s.c.Index.Entries(src.ID)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(entries))
	for n := range entries {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if f := s.c.Blobs.Path(entries[n].Hash); out[f] == "" {
			out[f] = SourceName + ":" + n
		}
	}
	return out, nil
}

// resolve finds a document as Lookup does, and also a stored document by
// its name written the way Add accepts it (CleanName trims surrounding
// spaces and a leading ./), which Lookup alone does not.
func (s *Store) resolve(ref string) (*index.Document, error) {
	d, err := s.c.Lookup(ref)
	if err == nil || !errors.Is(err, index.ErrNotFound) {
		return d, err
	}
	src, serr := s.source(false)
	if serr != nil || src == nil {
		return nil, err
	}
	if n, cerr := CleanName(ref); cerr == nil {
		if d, derr := s.c.Index.DocByPath(src.ID, n); derr != nil || d != nil {
			return d, derr
		}
	}
	return nil, err
}

// sweepBlobs removes the blobs nothing refers to any more.
func (s *Store) sweepBlobs() ([]string, int64, error) {
	refs, err := s.c.Index.BlobRefs()
	if err != nil {
		return nil, 0, err
	}
	return s.c.Blobs.Sweep(func(h string) bool { return refs[h] })
}
