package braid

import (
	"context"

	"github.com/braidsearch/braid/chunk"
	"github.com/braidsearch/braid/fusion"
	"github.com/braidsearch/braid/graph"
	"github.com/braidsearch/braid/lexical"
)

// retriever is the storage side of a search: where the candidates come
// from and where their text is read back. It has two implementations: the
// embedded index (bleve, the HNSW graph and the bbolt store of one
// directory; this file) and an OpenSearch cluster (package cluster). Fusion,
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
	// order of ids; both are nil for a chunk that is gone.
	Read(ctx context.Context, ids []string) ([]*Chunk, []*Document, error)
	// Backlinks counts, for each of docIDs, the other documents that link
	// to it.
	Backlinks(ctx context.Context, docIDs []string) (map[string]int, error)
	// Sources lists the registered sources.
	Sources(ctx context.Context) ([]*Source, error)
}

// local is the embedded retriever.
type local struct{ e *Engine }

func (l local) Lexical(ctx context.Context, req lexical.Request) ([]lexical.Candidate, int, error) {
	lex, err := l.e.lexical()
	if err != nil {
		return nil, 0, err
	}
	return lex.Search(ctx, req)
}

// Vector searches the HNSW graph, which cannot filter while it walks
// (vector.Index.SearchKept).
func (l local) Vector(_ context.Context, qv []float32, k int, req lexical.Request) ([]fusion.Candidate, error) {
	keep, err := l.e.filter(req)
	if err != nil {
		return nil, err
	}
	found, err := l.e.vec.SearchKept(qv, k, keep)
	if err != nil {
		return nil, err
	}
	out := make([]fusion.Candidate, len(found))
	for i, r := range found {
		out[i] = fusion.Candidate{ID: r.ID, Score: float64(r.Score)}
	}
	return out, nil
}

func (l local) Read(_ context.Context, ids []string) ([]*Chunk, []*Document, error) {
	chunks, err := l.e.st.Chunks(ids)
	if err != nil {
		return nil, nil, err
	}
	docs := make([]*Document, len(chunks))
	byID := map[string]*Document{}
	for i, c := range chunks {
		if c == nil {
			continue
		}
		d, ok := byID[c.DocID]
		if !ok {
			if d, err = l.e.st.Doc(c.DocID); err != nil {
				return nil, nil, err
			}
			byID[c.DocID] = d
		}
		if d == nil {
			chunks[i] = nil // a chunk ahead of its document (an interrupted commit)
			continue
		}
		docs[i] = d
	}
	return chunks, docs, nil
}

func (l local) Backlinks(_ context.Context, docIDs []string) (map[string]int, error) {
	var counts map[string]int
	err := l.e.st.Graph(func(r *graph.Reader) error {
		var err error
		counts, err = r.Backlinks(docIDs)
		return err
	})
	return counts, err
}

func (l local) Sources(context.Context) ([]*Source, error) { return l.e.st.Sources() }

// filter returns a test of a chunk id against the request's source, path,
// tag and document filters (notes.Reader.Keep), which the HNSW graph
// cannot apply itself; nil when the request keeps every chunk.
func (e *Engine) filter(req lexical.Request) (func(chunkID string) (bool, error), error) {
	if len(req.SourceIDs) == 0 && req.PathGlob == "" && len(req.Tags) == 0 && req.DocIDs == nil {
		return nil, nil
	}
	keep, err := e.nt.Keep(req)
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
