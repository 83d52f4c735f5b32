package braid

import (
	"github.com/braidsearch/braid/graph"
	"github.com/braidsearch/braid/markdown"
	"github.com/braidsearch/braid/vecstore"
)

// TagStyle says where Tag writes tags (package markdown).
type TagStyle = markdown.TagStyle

// Where Tag writes tags.
const (
	TagFrontmatter = markdown.TagFrontmatter
	TagComment     = markdown.TagComment
)

// Graph is the index's link graph: it answers what a document links to
// and what links to it, links whose target is missing, notes nothing links
// to, and gaps (similar notes without a link).
func (e *Engine) Graph() *graph.Queries {
	return &graph.Queries{
		Read: e.st.Graph,
		Sync: e.mirrored,
		Document: func(name string) (string, error) {
			d, err := e.nt.Document(name)
			if err != nil {
				return "", err
			}
			return d.ID, nil
		},
		Exists:       e.nt.Exists,
		NotFound:     ErrNotFound,
		BadOption:    ErrBadOption,
		EmbeddedOnly: e.embeddedOnly,
		Chunks: func(fn func(docID, chunkID, text string) error) error {
			return e.st.ForEachChunk(func(c *Chunk) error { return fn(c.DocID, c.ID, c.Text) })
		},
		Embeddings: e.embeddings,
		Nearest:    vecstore.Nearest,
	}
}

// embeddings are the chunk embeddings Gaps averages, read when it runs:
// the engine may load its vector index after Graph was called.
func (e *Engine) embeddings() graph.Embeddings {
	if e.vec == nil {
		return graph.Embeddings{Missing: e.noVectors()}
	}
	return graph.Embeddings{Vector: e.vec.Vector, Len: e.vec.Len()}
}
