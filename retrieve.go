package braid

import (
	"context"

	"github.com/braidsearch/braid/fusion"
	"github.com/braidsearch/braid/lexical"
)

// retriever is the storage side of a search: where the candidates come
// from and where their text is read back. It has two implementations: the
// embedded index (bleve, the HNSW graph and the bbolt store of one
// directory; package embedded) and an OpenSearch cluster (package
// cluster). Fusion,
// signals, reranking and hydration are the engine's (search.go), so both
// rank by the same code.
type retriever interface {
	// Lexical returns up to req.Size chunks matching req.Query by BM25,
	// best first, with req's filters applied, and how many matched in all.
	Lexical(ctx context.Context, req lexical.Request) ([]lexical.Candidate, int, error)
	// Vector returns up to k chunks nearest the query vector qv that pass
	// req's filters, best first, scored by cosine similarity.
	Vector(ctx context.Context, qv []float32, k int, req lexical.Request) ([]fusion.Candidate, error)
	// Read returns the chunks of ids and the document of each, in the
	// order of ids; both are nil for a chunk that is gone. The documents
	// may be shared with other searches (index.Store.SharedDocs): read
	// them, never modify them.
	Read(ctx context.Context, ids []string) ([]*Chunk, []*Document, error)
	// Backlinks counts, for each of docIDs, the other documents that link
	// to it.
	Backlinks(ctx context.Context, docIDs []string) (map[string]int, error)
	// Sources lists the registered sources.
	Sources(ctx context.Context) ([]*Source, error)
}
