package embedded

import (
	"context"

	"github.com/braidsearch/braid/chunk"
	"github.com/braidsearch/braid/fusion"
	"github.com/braidsearch/braid/graph"
	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/lexical"
	"github.com/braidsearch/braid/vector"
)

// Retriever answers a search's retrieval on the embedded index.
type Retriever struct {
	Store *index.Store
	// OpenLexical is the lexical index, opened the first time a search needs
	// it (or the error that says why it cannot be).
	OpenLexical func() (*lexical.Index, error)
	// Vectors is the HNSW graph of the model in use; nil without one.
	Vectors func() *vector.Index
	// Keep tests a document against a request's filters
	// (notes.Reader.Keep).
	Keep func(lexical.Request) (func(docID string) (bool, error), error)
}

// Lexical returns up to req.Size chunks matching req.Query by BM25, best
// first, with req's filters applied, and how many matched in all.
func (r *Retriever) Lexical(ctx context.Context, req lexical.Request) ([]lexical.Candidate, int, error) {
	lex, err := r.OpenLexical()
	if err != nil {
		return nil, 0, err
	}
	return lex.Search(ctx, req)
}

// Vector returns up to k chunks nearest qv that pass req's filters, best
// first, scored by cosine similarity (vector.Index.SearchKept).
func (r *Retriever) Vector(_ context.Context, qv []float32, k int, req lexical.Request) ([]fusion.Candidate, error) {
	keep, err := r.filter(req)
	if err != nil {
		return nil, err
	}
	found, err := r.Vectors().SearchKept(qv, k, keep)
	if err != nil {
		return nil, err
	}
	out := make([]fusion.Candidate, len(found))
	for i, f := range found {
		out[i] = fusion.Candidate{ID: f.ID, Score: float64(f.Score)}
	}
	return out, nil
}

// Read returns the chunks of ids and the document of each, in the order
// of ids; both are nil for a chunk that is gone, or ahead of its document
// (an interrupted commit). The documents are shared (index.Store.SharedDocs):
// never modify them.
func (r *Retriever) Read(_ context.Context, ids []string) ([]*index.Chunk, []*index.Document, error) {
	chunks, err := r.Store.Chunks(ids)
	if err != nil {
		return nil, nil, err
	}
	docIDs := make([]string, len(chunks))
	for i, c := range chunks {
		if c != nil {
			docIDs[i] = c.DocID
		}
	}
	docs, err := r.Store.SharedDocs(docIDs)
	if err != nil {
		return nil, nil, err
	}
	for i, d := range docs {
		if d == nil {
			chunks[i] = nil
		}
	}
	return chunks, docs, nil
}

// Backlinks counts, for each of docIDs, the other documents that link to
// it.
func (r *Retriever) Backlinks(_ context.Context, docIDs []string) (map[string]int, error) {
	var counts map[string]int
	err := r.Store.Graph(func(g *graph.Reader) error {
		var err error
		counts, err = g.Backlinks(docIDs)
		return err
	})
	return counts, err
}

// Sources lists the registered sources.
func (r *Retriever) Sources(context.Context) ([]*index.Source, error) { return r.Store.Sources() }

// filter returns a test of a chunk id against the request's source, path,
// tag and document filters, which the HNSW graph cannot apply itself;
// nil when the request keeps every chunk.
func (r *Retriever) filter(req lexical.Request) (func(chunkID string) (bool, error), error) {
	if len(req.SourceIDs) == 0 && req.PathGlob == "" && len(req.Tags) == 0 && req.DocIDs == nil {
		return nil, nil
	}
	keep, err := r.Keep(req)
	if err != nil {
		return nil, err
	}
	verdict := map[string]bool{} // by document: its chunks share the answer
	return func(chunkID string) (bool, error) {
		docID := chunk.DocID(chunkID)
		if ok, seen := verdict[docID]; seen {
			return ok, nil
		}
		ok, err := keep(docID)
		if err == nil {
			verdict[docID] = ok
		}
		return ok, err
	}, nil
}
