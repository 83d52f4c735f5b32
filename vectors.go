package braid

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/settings"
	"github.com/braidsearch/braid/vecstore"
)

// DefaultVectorWeight is the vector weight of a search that names none,
// when embeddings are available (settings.DefaultVectorWeight says how it
// was chosen).
const DefaultVectorWeight = settings.DefaultVectorWeight

// Embedder turns texts into unit-length vectors; model.Embedder is the ONNX
// implementation.
type Embedder = index.Embedder

// loadVectors opens the model's HNSW graph (vecstore.Load), noting in
// vecDamaged when the file was damaged and the graph is one rebuilt in
// memory.
func (e *Engine) loadVectors() error {
	vi, damaged, err := vecstore.Load(e.st, vecstore.Options{Dir: e.dir, Model: e.opt.Model, Embedder: e.opt.Embedder, Vector: &e.opt.Vector})
	if err != nil {
		return err
	}
	e.vec, e.vecDamaged = vi, damaged
	return nil
}

// vectors is the embedding side of an index run.
func (e *Engine) vectors(progress func(done int)) *index.Vectors {
	if e.vec == nil {
		return nil
	}
	return &index.Vectors{Embedder: e.opt.Embedder, Model: e.opt.Model, Index: e.vec, Progress: progress}
}

// saveVectors writes the graph (vecstore.Save); with fill it first
// embeds every chunk the graph still lacks.
func (e *Engine) saveVectors(ctx context.Context, vs *index.Vectors, fill bool) error {
	return vecstore.Save(ctx, e.st, e.dir, vs, fill)
}

// weight decides a search's vector weight, with a warning when the caller
// asked for vectors that are not available.
func (e *Engine) weight(opt SearchOptions) (float64, string, error) {
	if w := opt.VectorWeight; w != nil && (math.IsNaN(*w) || *w < 0 || *w > 1) {
		return 0, "", fmt.Errorf("%w: vector_weight %v out of range, want 0..1", ErrBadOption, *w)
	}
	if opt.Keyword {
		return 0, "", nil
	}
	if why := e.vectorsUnavailable(); why != "" {
		if opt.VectorWeight != nil && *opt.VectorWeight == 0 {
			return 0, "", nil // vectors were not asked for: nothing to warn about
		}
		if opt.VectorWeight == nil || opt.weightFromSettings {
			if s := e.strandedEmbeddings(); s != "" {
				// A default search would be hybrid with the model the
				// index was built with: say why it is not.
				return 0, s + ", so this search is lexical only", nil
			}
			if (e.vec != nil || e.cl != nil) && e.otherModels() != "" {
				return 0, why + ", so this search is lexical only", nil
			}
			return 0, "", nil
		}
		if e.vec == nil {
			why = "vector search is unavailable (" + why + ")"
		}
		return 0, why + ", so this search is lexical only", nil
	}
	if opt.VectorWeight == nil {
		return DefaultVectorWeight, e.vecDamaged, nil
	}
	if *opt.VectorWeight == 0 {
		return 0, "", nil
	}
	return *opt.VectorWeight, e.vecDamaged, nil
}

// strandedEmbeddings says, for an engine without an embedder (and vectors
// not turned off), that the index holds embeddings it cannot search and
// why; "" otherwise.
func (e *Engine) strandedEmbeddings() string {
	e.strandedOnce.Do(func() {
		if e.vec != nil || e.opt.VectorsOff || e.cl != nil {
			return
		}
		models, err := e.st.EmbeddingModels()
		if err != nil || len(models) == 0 {
			return
		}
		e.stranded = fmt.Sprintf("the index holds embeddings of %s that cannot be searched: %s", strings.Join(models, ", "), e.noVectors())
	})
	return e.stranded
}

// vectorsUnavailable says why a search cannot use vectors now (no
// embedding model, or no embeddings indexed yet), or "" when it can.
func (e *Engine) vectorsUnavailable() string {
	switch {
	case e.cl != nil && e.opt.Embedder == nil:
		return e.noVectors()
	case e.cl != nil && e.cl.OtherModel() != "":
		return fmt.Sprintf("the cluster index's embeddings are of %s, not of the model in use, %s (search with --model set to %s)", e.cl.OtherModel(), e.opt.Model, e.cl.OtherModel())
	case e.cl != nil:
		return ""
	case e.vec == nil:
		return e.noVectors()
	case e.vec.Len() == 0:
		if other := e.otherModels(); other != "" {
			return fmt.Sprintf("the index's embeddings are of %s, not of the model in use, %s (run braid index to embed with %s, or search with --model set to %s)", other, e.opt.Model, e.opt.Model, other)
		}
		return "the index has no embeddings yet (run braid index to compute them)"
	}
	return ""
}

// otherModels names the models, other than the one in use, whose
// embeddings the index holds: an index remembers what it was embedded
// with, and a search with another model says so rather than quietly
// running lexical only.
func (e *Engine) otherModels() string {
	if e.cl != nil {
		return e.cl.OtherModel()
	}
	return vecstore.OtherModels(e.st, e.opt.Model)
}

// rerankUnavailable says why searches are not reranked, or "" when a
// cross-encoder is loaded.
func (e *Engine) rerankUnavailable() string {
	switch {
	case e.opt.Reranker != nil:
		return ""
	case e.opt.NoRerank != "":
		return e.opt.NoRerank
	}
	return "no reranker model is set up"
}

func (e *Engine) noVectors() string {
	if e.opt.NoVectors != "" {
		return e.opt.NoVectors
	}
	return "no embedding model is set up"
}

// instructed is an embedder that can embed a query without its model's
// retrieval instruction (model.Embedder).
type instructed interface {
	EmbedQuery(ctx context.Context, text string, instruction bool) ([]float32, error)
}

// embedQuery embeds a search's query, with the model's instruction unless
// instruction says false.
func (e *Engine) embedQuery(ctx context.Context, text string, instruction *bool) ([][]float32, error) {
	if ie, ok := e.opt.Embedder.(instructed); ok && instruction != nil && !*instruction {
		v, err := ie.EmbedQuery(ctx, text, false)
		return [][]float32{v}, err
	}
	return e.opt.Embedder.Embed(ctx, []string{text}, true)
}
