package braid

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/braidsearch/braid/blob"
	"github.com/braidsearch/braid/docstore"
	"github.com/braidsearch/braid/doctor"
	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/indexdir"
	"github.com/braidsearch/braid/ingest"
)

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
		Dir:      filepath.Join(e.dir, indexdir.StoreDir),
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
	ix := &ingest.Indexer{Store: e.st, Lexical: e.lex, Opt: ingest.Options{Workers: e.opt.Workers, BatchDocs: e.opt.BatchDocs},
		Vectors: vs, Blobs: e.blobs(), Refresh: refresh}
	sum := &Summary{}
	err := ix.Index(ctx, src, sum)
	if err == nil && len(sum.Errors) > 0 {
		err = fmt.Errorf("index %s: %s", sum.Errors[0].Path, sum.Errors[0].Err)
	}
	if serr := e.saveVectors(ctx, vs, err == nil); err == nil {
		err = serr
	}
	return err
}
