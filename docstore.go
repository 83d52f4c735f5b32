package braid

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/braidsearch/braid/blob"
	"github.com/braidsearch/braid/docstore"
	"github.com/braidsearch/braid/doctor"
	"github.com/braidsearch/braid/extract"
	"github.com/braidsearch/braid/index"
)

// Errors of the document store (package docstore).
var (
	ErrSourceFile = docstore.ErrSourceFile
	ErrBadName    = docstore.ErrBadName
)

// Requests to the document store and its results (package docstore).
type (
	AddRequest     = docstore.AddRequest
	AddResult      = docstore.AddResult
	UpdateRequest  = docstore.UpdateRequest
	UpdateResult   = docstore.UpdateResult
	DeleteRequest  = docstore.DeleteRequest
	DeleteResult   = docstore.DeleteResult
	RestoreRequest = docstore.RestoreRequest
	SnapshotInfo   = docstore.SnapshotInfo
	// DownloadRequest is a web page or file to fetch into the store.
	DownloadRequest = docstore.DownloadRequest
	// Fetched is a downloaded page, ready for Add.
	Fetched = docstore.Fetched
)

// Fetch downloads req.URL within its limits and returns the request that
// stores it with Add (docstore.Fetch); it touches no index, so a server
// can fetch before it takes its writer slot.
func Fetch(ctx context.Context, req DownloadRequest) (*Fetched, error) {
	return docstore.Fetch(ctx, req)
}

// ReadDocument reads a file to store with Add (see docstore.ReadDocument).
func ReadDocument(ctx context.Context, root, path string) ([]byte, error) {
	return docstore.ReadDocument(ctx, root, path)
}

// ParseMeta turns "key=value" pairs into a map (see docstore.ParseMeta).
func ParseMeta(pairs []string) (map[string]string, error) { return docstore.ParseMeta(pairs) }

// Store is the index's document store: documents added to the index itself
// rather than read from a source, their versions, collections and
// snapshots. On a cluster backend its operations fail with ErrBackend.
func (e *Engine) Store() *docstore.Store { return e.docs }

// newStore hands the document store what it needs of the engine; it is
// called once e.st is open (and, on a cluster backend, e.cl set).
func (e *Engine) newStore() *docstore.Store {
	return docstore.New(docstore.Config{
		Index:    e.st,
		Blobs:    e.blobs(),
		Dir:      filepath.Join(e.dir, doctor.StoreDir),
		IndexDir: e.realDir,
		Reindex:  e.indexStore,
		Lookup:   func(ref string) (*index.Document, error) { return e.nt.Document(ref) },
		Current: func(ref string) ([]byte, string, error) {
			c, err := e.nt.Get(context.Background(), ref) // Config.Current takes no ctx
			if err != nil {
				return nil, "", err
			}
			if c.Raw != nil {
				return c.Raw, c.File, nil // the file's bytes, which versions hash
			}
			return c.Data, c.File, nil
		},
		Text: func(path string, data []byte) ([]byte, error) {
			if extract.Format(path) == "" {
				return data, nil
			}
			x, err := extract.File(context.Background(), path, data, nil)
			if err != nil {
				return nil, err
			}
			return x.Text, nil
		},
		ReadOnly: e.opt.ReadOnly,
		Backend:  e.embeddedOnly,
	})
}

// blobs is the index's content-addressed store.
func (e *Engine) blobs() *blob.Store { return doctor.Blobs(e.realDir) }

// indexStore brings the index in step with the stored documents; refresh
// names documents to re-index even though their content did not change.
func (e *Engine) indexStore(ctx context.Context, src *Source, refresh map[string]bool) error {
	vs := e.vectors(nil)
	ix := &index.Indexer{Store: e.st, Lexical: e.lex, Opt: index.Options{Workers: e.opt.Workers, BatchDocs: e.opt.BatchDocs},
		Vectors: vs, Blobs: e.blobs(), Refresh: refresh}
	sum := &Summary{}
	err := ix.Index(ctx, src, sum)
	if err == nil && len(sum.Errors) > 0 {
		err = fmt.Errorf("braid: index %s: %s", sum.Errors[0].Path, sum.Errors[0].Err)
	}
	if serr := e.saveVectors(ctx, vs, err == nil); err == nil {
		err = serr
	}
	return err
}
