package braid

import (
	"context"
	"fmt"
	"strings"

	"github.com/braidsearch/braid/ingest"
	"github.com/braidsearch/braid/settings"
	"github.com/braidsearch/braid/vecstore"
)

// DefaultVectorWeight is the weight a search that names none retrieves its
// two lists at; they are fused at auto's (fusion.Choice).
const DefaultVectorWeight = settings.DefaultVectorWeight

// Embedder turns texts into unit-length vectors; model.Embedder is the ONNX
// implementation.
type Embedder = ingest.Embedder

// loadVectors opens the model's HNSW graph (vecstore.Load; read, when
// set, is its file read ahead: vecstore.Preload), noting in
// vecDamaged when the file was missing or damaged and what the graph
// rebuilt in memory lacks.
func (e *Engine) loadVectors(read *vecstore.Read) error {
	vi, damaged, err := vecstore.Load(context.Background(), e.st, vecstore.Options{Dir: e.dir, Model: e.opt.Model, Embedder: e.opt.Embedder, Vector: &e.opt.Vector, Read: read})
	if err != nil {
		return err
	}
	e.vec = vi
	e.vecDamaged.Store(&damaged)
	return nil
}

// vectors is the embedding side of an index run. A long run saves the
// graph as it goes (Checkpoint), so the store drops the embeddings the
// graph file then holds.
func (e *Engine) vectors(progress func(done int)) *ingest.Vectors {
	if e.vec == nil {
		return nil
	}
	vs := &ingest.Vectors{Embedder: e.opt.Embedder, Model: e.opt.Model, Index: e.vec, Progress: progress}
	vs.Checkpoint = func(ctx context.Context) error { return e.saveVectors(ctx, vs, false) }
	return vs
}

// availability is what decides whether a search can use vectors
// (vecstore.Availability: its Weight and Unavailable).
func (e *Engine) availability() vecstore.Availability {
	a := vecstore.Availability{Cluster: e.cl != nil, Embedder: e.opt.Embedder != nil, Model: e.opt.Model,
		NoVectors: e.noVectors(), Damaged: e.damaged(), OtherModel: e.otherModels, Stranded: e.strandedEmbeddings}
	if e.vec != nil {
		a.Graph, a.Len = true, e.vec.Len()
	}
	return a
}

// damaged is what vecstore.Load said of the graph file, until an index
// run saved a whole graph.
func (e *Engine) damaged() string {
	if d := e.vecDamaged.Load(); d != nil {
		return *d
	}
	return ""
}

// saveVectors writes the graph (vecstore.Save); with fill it first
// embeds every chunk the graph still lacks.
func (e *Engine) saveVectors(ctx context.Context, vs *ingest.Vectors, fill bool) error {
	err := vecstore.Save(ctx, e.st, e.dir, vs, fill)
	if err == nil && fill {
		e.vecDamaged.Store(nil) // the file now holds every chunk's vector
	}
	return err
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
// instruction says false; a model.Embedder keeps recent queries' vectors.
func (e *Engine) embedQuery(ctx context.Context, text string, instruction *bool) ([][]float32, error) {
	if ie, ok := e.opt.Embedder.(instructed); ok {
		v, err := ie.EmbedQuery(ctx, text, instruction == nil || *instruction)
		return [][]float32{v}, err
	}
	return e.opt.Embedder.Embed(ctx, []string{text}, true)
}
