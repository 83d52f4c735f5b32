// Package notes reads what an index holds about its documents: it resolves
// a name to a document, reads a document's current content, a chunk's
// neighbours, citations, what an id names and where it sits, the folder
// tree, listings, the files a grep reads (and whether a link's target is
// one), finds documents by name and counts them. It also resolves what
// a search's filters name (Request), tests a document against them
// (Keep), answers a search by content hash (ByHash), finds the file a
// tag edit may change (Editable), and gives its answers' text for the
// CLI (text.go). It reads the index's
// store (on a cluster backend, the engine's local copy of the cluster's
// documents) and never writes.
package notes

import (
	"context"
	"errors"
	"fmt"

	"github.com/braidsearch/braid/blob"
	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/sessions"
)

// ErrOutside means a file named for reading or editing is not an indexed
// file of a source: outside every source, or led out of one by a symbolic
// link or "..".
var ErrOutside = errors.New("not an indexed file of a source")

// Lines is an inclusive 1-based line range in a document.
type Lines struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// Reader reads the documents of one index. Its methods are safe for
// concurrent use.
type Reader struct {
	st    *index.Store
	blobs *blob.Store
	cfg   Config
	names nameCache // document names for Find and Document
}

// Config is what a Reader needs from the engine beyond the store.
type Config struct {
	// Sync brings the store up to date before a read: a cluster backend's
	// local copy of the cluster's documents. Nil for none.
	Sync func() error
	// Chunks reads chunks with their text, in the order of ids, nil for
	// one that is gone. Nil reads the store's.
	Chunks func(ctx context.Context, ids []string) ([]*index.Chunk, error)
	// Sources lists the registered sources. Nil reads the store's.
	Sources func(ctx context.Context) ([]*index.Source, error)
	// EmbeddedOnly returns the error for an operation that needs the
	// embedded index (Around), or nil where the index is one.
	EmbeddedOnly func(what string) error
	// ReadStored reads a document of the index's document store
	// (docstore.Store.Read): its content and the file that holds it.
	ReadStored func(d *index.Document) (data []byte, file string, err error)
	// StoreSource is the document store's source, nil before anything
	// was stored (docstore.Store.Source).
	StoreSource func() (*index.Source, error)
	// StoreFiles maps the blob of each stored document to its name,
	// "store:NAME" (docstore.Store.Files), for Files. Nil for none.
	StoreFiles func() (map[string]string, error)
}

// NewReader reads st, whose index keeps the content of S3 objects in
// blobs.
func NewReader(st *index.Store, blobs *blob.Store, cfg Config) *Reader {
	return &Reader{st: st, blobs: blobs, cfg: cfg}
}

func (r *Reader) sync() error {
	if r.cfg.Sync == nil {
		return nil
	}
	return r.cfg.Sync()
}

// SessionDocs returns the ids of the indexed documents the named
// session's pins select (sessions.Docs, over the store brought up to
// date); index.ErrNotFound when there is no such session.
func (r *Reader) SessionDocs(name string) (map[string]bool, error) {
	if err := r.sync(); err != nil {
		return nil, err
	}
	return sessions.Docs(r.st, name)
}

func (r *Reader) embeddedOnly(what string) error {
	if r.cfg.EmbeddedOnly == nil {
		return nil
	}
	return r.cfg.EmbeddedOnly(what)
}

// Chunks reads chunks with their text, in the order of ids, nil for one
// that is gone.
func (r *Reader) Chunks(ctx context.Context, ids []string) ([]*index.Chunk, error) {
	if r.cfg.Chunks == nil {
		return r.st.Chunks(ids)
	}
	return r.cfg.Chunks(ctx, ids)
}

// chunk reads one chunk with its text, or nil when there is none.
func (r *Reader) chunk(ctx context.Context, id string) (*index.Chunk, error) {
	cs, err := r.Chunks(ctx, []string{id})
	if err != nil {
		return nil, err
	}
	return cs[0], nil
}

// Source finds a registered source by id or name.
func (r *Reader) Source(ctx context.Context, ref string) (*index.Source, error) {
	var all []*index.Source
	var err error
	if r.cfg.Sources != nil {
		all, err = r.cfg.Sources(ctx)
	} else {
		all, err = r.st.Sources()
	}
	if err != nil {
		return nil, err
	}
	var found []*index.Source
	for _, s := range all {
		if s.ID == ref {
			return s, nil
		}
		if s.Name == ref {
			found = append(found, s)
		}
	}
	switch len(found) {
	case 0:
		return nil, fmt.Errorf("%w: no source %q; braid sources lists them", index.ErrNotFound, ref)
	case 1:
		return found[0], nil
	}
	return nil, fmt.Errorf("%w: %d sources are named %q; use the id from braid sources", index.ErrAmbiguous, len(found), ref)
}

// MetaMatch says whether metadata m has every pair of want.
func MetaMatch(m, want map[string]string) bool {
	for k, v := range want {
		if got, ok := m[k]; !ok || got != v {
			return false
		}
	}
	return true
}
