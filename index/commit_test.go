package index

import (
	"context"

	"github.com/braidsearch/braid/lexical"
)

// Indexer stands in, for this package's tests, for package ingest's
// Indexer over the embedded index (which this package cannot import): its
// commit is the one ingest makes, Commit, without vectors.
type Indexer struct {
	Store   *Store
	Lexical *lexical.Index
}

func (ix *Indexer) commit(_ context.Context, changes []Change) error {
	_, _, err := Commit(ix.Store, ix.Lexical, changes, nil)
	return err
}
