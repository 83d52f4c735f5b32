package doctor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"

	"github.com/braidsearch/braid/blob"
	"github.com/braidsearch/braid/graph"
	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/indexdir"
	"github.com/braidsearch/braid/lexical"
	"github.com/braidsearch/braid/vector"
)

// Handles is what Consistency reads of an open embedded index.
type Handles struct {
	Store *index.Store
	// Lexical opens (or returns the open) lexical index. An error that is
	// indexdir.ErrCorrupt is a finding; any other fails the check.
	Lexical func() (*lexical.Index, error)
	Blobs   *blob.Store
	// Vectors is the vector index; nil when the engine has no embedder.
	Vectors *vector.Index
	// Model names the embedding model of Vectors.
	Model string
	// Stranded says that the index holds embeddings the engine cannot
	// search and why; "" when it does not.
	Stranded string
}

// Consistency checks an open index for consistency: format version,
// interrupted commits, the store and the lexical index agreeing chunk for
// chunk, the BM25 statistics the store keeps equal to a count of the
// lexical index, every document's chunks present, every document in the link
// graph, every chunk in the vector index (when there is one), the document
// store's blobs, and every source's path still there. A damaged file found
// on the way is a failed "files" check, not an error.
func Consistency(h Handles) ([]Check, error) {
	checks, err := consistency(h)
	if errors.Is(err, indexdir.ErrCorrupt) {
		return append(checks, Check{Name: "files", Detail: err.Error()}), nil
	}
	return checks, err
}

func consistency(h Handles) ([]Check, error) {
	var checks []Check
	add := func(name string, ok bool, format string, args ...any) {
		checks = append(checks, Check{Name: name, OK: ok, Detail: fmt.Sprintf(format, args...)})
	}
	add("format", true, "index format %d", indexdir.SchemaVersion)

	st := h.Store
	lex, err := h.Lexical()
	if err != nil {
		return nil, err
	}
	p, err := st.PendingWork()
	if err != nil {
		return nil, err
	}
	if p != nil {
		add("commits", false, "commit %d was interrupted and is not finished; run braid index (any write finishes it)", p.Gen)
	} else {
		sg, err := st.Gen()
		if err != nil {
			return nil, err
		}
		lg, err := lex.Gen()
		if err != nil {
			return nil, err
		}
		add("commits", sg == lg, "store at commit %d, lexical index at commit %d", sg, lg)
	}

	docs, chunks, err := st.Counts()
	if err != nil {
		return nil, err
	}
	n, err := lex.DocCount()
	if err != nil {
		return nil, err
	}
	add("lexical", uint64(chunks) == n, "%d chunks in the store, %d in the lexical index", chunks, n)

	kept, same, err := lex.StatsCheck(context.Background()) // Doctor takes no context
	switch {
	case err != nil:
		return nil, err
	case !kept:
		add("bm25", true, "meta.db keeps no BM25 statistics of this commit: they are counted when a search needs them, and kept from the next braid index that changes something")
	case same:
		add("bm25", true, "the BM25 statistics kept in meta.db equal a count of the lexical index")
	default:
		add("bm25", false, "the BM25 statistics kept in meta.db differ from a count of the lexical index; delete the index's %s and run braid index, which rebuilds it and them from meta.db", indexdir.LexicalDir)
	}

	var missing []string
	owned := 0
	err = st.ForEachDoc(func(d *index.Document) error {
		cs, err := st.Chunks(d.ChunkIDs)
		if err != nil {
			return err
		}
		for i, c := range cs {
			if c == nil || c.DocID != d.ID {
				missing = append(missing, d.ChunkIDs[i])
			}
		}
		owned += len(d.ChunkIDs)
		return nil
	})
	if err != nil {
		return nil, err
	}
	add("chunks", len(missing) == 0 && owned == chunks, "%d documents own %d chunks; %d missing, %d unowned", docs, owned, len(missing), chunks-owned+len(missing))

	nodes := 0
	if err := st.Graph(func(r *graph.Reader) error { nodes = r.Len(); return nil }); err != nil {
		return nil, err
	}
	add("graph", nodes == docs, "%d of %d documents in the link graph", nodes, docs)

	if h.Stranded != "" {
		add("vectors", false, "%s; until then search is lexical only", h.Stranded)
	}
	if h.Vectors != nil {
		n := h.Vectors.Len()
		if n == chunks {
			add("vectors", true, "%d of %d chunks embedded with %s (%d dimensions)", n, chunks, h.Model, h.Vectors.Dim())
		} else {
			add("vectors", false, "%d of %d chunks embedded with %s; run braid index to embed the rest", n, chunks, h.Model)
		}
	}

	store, err := checkStore(st, h.Blobs)
	if err != nil {
		return nil, err
	}
	checks = append(checks, store)

	srcs, err := st.Sources()
	if err != nil {
		return nil, err
	}
	var gone []string
	for _, s := range srcs {
		if s.Kind == index.SourceS3 {
			continue // a bucket is asked only when it is indexed
		}
		if _, err := os.Stat(s.Path); err != nil {
			gone = append(gone, s.Path)
		}
	}
	sort.Strings(gone)
	if len(gone) > 0 {
		add("sources", false, "%d of %d source paths are gone: %v; braid sources rm ID drops a source", len(gone), len(srcs), gone)
	} else {
		add("sources", true, "%d sources, all paths present", len(srcs))
	}
	return checks, nil
}

// checkStore checks the document store: every stored document's content
// is in the blob store, and no blob is left that nothing refers to (only a
// warning: an add killed between writing its blob and its record leaves
// one behind).
func checkStore(st *index.Store, bs *blob.Store) (Check, error) {
	var lost []string
	stored := 0
	err := st.ForEachStored(func(r *index.Stored) error {
		stored++
		if !bs.Has(r.Hash) {
			lost = append(lost, r.Name)
		}
		return nil
	})
	if err != nil {
		return Check{}, err
	}
	refs, err := st.BlobRefs()
	if err != nil {
		return Check{}, err
	}
	orphans, bytes, err := bs.Unreferenced(func(h string) bool { return refs[h] })
	if err != nil {
		return Check{}, err
	}
	c := Check{Name: "store", OK: true, Detail: fmt.Sprintf("%d stored documents, their content all present", stored)}
	switch {
	case len(lost) > 0:
		sort.Strings(lost)
		c.OK, c.Detail = false, fmt.Sprintf("%d of %d stored documents have lost their content: %v; add them again with braid add, or braid delete them", len(lost), stored, lost)
	case len(orphans) > 0:
		c.Warning = true
		c.Detail = fmt.Sprintf("%d stored documents; %d blobs (%s) that nothing refers to; braid doctor --repair removes them", stored, len(orphans), index.FormatBytes(bytes))
	}
	return c, nil
}
