package braid

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/braidsearch/braid/fusion"
	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/vector"
)

// DefaultVectorWeight is the vector weight of a search that names none,
// when embeddings are available. On SciFact's train split (809 queries,
// bge-small-en-v1.5 fp32, linear min-max fusion) nDCG@10 is 0.758 at 0.5,
// 0.766 at 0.6 and 0.763 at 0.7; 0.6 beats 0.5 query for query by 0.0084
// (standard error 0.0030). `braid eval` measures it.
const DefaultVectorWeight = 0.6

// Embedder turns texts into unit-length vectors; model.Embedder is the ONNX
// implementation.
type Embedder = index.Embedder

// vectorFile names the HNSW file of a model, so switching models never
// mixes embeddings.
func (e *Engine) vectorFile() string {
	h := sha256.Sum256([]byte(e.opt.Model))
	return filepath.Join(e.dir, "vectors-"+hex.EncodeToString(h[:4])+".hnsw")
}

// loadVectors opens the model's HNSW file. A graph behind the store (a run
// without the model, or a crash before the save) is brought in step from
// the stored embeddings; a missing or unreadable one is rebuilt from them.
// Neither calls the model.
func (e *Engine) loadVectors() error {
	dim := e.opt.Embedder.Dim()
	if dim <= 0 {
		return fmt.Errorf("%w: the embedder reports dimension %d", ErrBadOption, dim)
	}
	gen, err := e.st.Gen()
	if err != nil {
		return err
	}
	vi, err := vector.Load(e.vectorFile(), &e.opt.Vector)
	switch {
	case err == nil && vi.Dim() == dim:
		e.vec = vi
		if vi.Gen() == gen {
			return nil
		}
		if err := e.dropStale(); err != nil {
			return err
		}
	case err != nil && !errors.Is(err, os.ErrNotExist) && !errors.Is(err, vector.ErrFormat):
		return err
	case err != nil && !errors.Is(err, os.ErrNotExist) && !errors.Is(err, vector.ErrMismatch):
		reason := err
		if fe := (*vector.FormatError)(nil); errors.As(err, &fe) {
			reason = fe.Reason
		}
		e.vecDamaged = fmt.Sprintf("%s is damaged (%v), so vectors are searched in a graph rebuilt from the stored embeddings at every start; braid --index %s doctor --repair removes the file and the next braid index saves a sound one",
			filepath.Base(e.vectorFile()), reason, e.dir)
		e.vec = vector.New(dim, &e.opt.Vector)
	default:
		e.vec = vector.New(dim, &e.opt.Vector)
	}
	_, err = e.vectors(nil).Fill(context.Background(), e.st, false)
	return err
}

// dropStale deletes from the graph the chunks the store no longer has.
func (e *Engine) dropStale() error {
	live := map[string]bool{}
	if err := e.st.ForEachChunkID(func(id string) error {
		live[id] = true
		return nil
	}); err != nil {
		return err
	}
	for _, id := range e.vec.IDs() {
		if !live[id] {
			e.vec.Delete(id)
		}
	}
	return nil
}

// vectors is the embedding side of an index run.
func (e *Engine) vectors(progress func(done int)) *index.Vectors {
	if e.vec == nil {
		return nil
	}
	return &index.Vectors{Embedder: e.opt.Embedder, Model: e.opt.Model, Index: e.vec, Progress: progress}
}

// saveVectors writes the graph, stamped with the store's commit number;
// with fill it first embeds every chunk the graph still lacks.
func (e *Engine) saveVectors(ctx context.Context, vs *index.Vectors, fill bool) error {
	if vs == nil {
		return nil
	}
	if fill {
		if _, err := vs.Fill(ctx, e.st, true); err != nil {
			return err
		}
	}
	gen, err := e.st.Gen()
	if err != nil {
		return err
	}
	e.vec.SetGen(gen)
	if err := e.vec.Save(e.vectorFile()); err != nil {
		return fmt.Errorf("braid: save vector index: %w", err)
	}
	_, err = vs.Prune(e.st)
	return err
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
	if why := e.VectorsUnavailable(); why != "" {
		if opt.VectorWeight != nil && *opt.VectorWeight == 0 {
			return 0, "", nil // vectors were not asked for: nothing to warn about
		}
		if opt.VectorWeight == nil || opt.weightFromSettings {
			if s := e.strandedEmbeddings(); s != "" {
				// A default search would be hybrid with the model the
				// index was built with: say why it is not.
				return 0, s + ", so this search is lexical only", nil
			}
			if e.vec != nil && e.otherModels() != "" {
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
		if e.vec != nil || e.opt.VectorsOff {
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

// VectorsUnavailable says why a search cannot use vectors now (no
// embedding model, or no embeddings indexed yet), or "" when it can.
func (e *Engine) VectorsUnavailable() string {
	switch {
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
	models, err := e.st.EmbeddingModels()
	if err != nil {
		return ""
	}
	var other []string
	for _, m := range models {
		if m != e.opt.Model {
			other = append(other, m)
		}
	}
	return strings.Join(other, ", ")
}

// RerankUnavailable says why searches are not reranked, or "" when a
// cross-encoder is loaded.
func (e *Engine) RerankUnavailable() string {
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

// hybrid fetches candidates from both retrievers and fuses them. Phrases and
// exclusions are enforced by the lexical index, so with them the vector
// candidates are limited to chunks the lexical query matched.
func (e *Engine) hybrid(ctx context.Context, q index.Query, req index.Request, opt SearchOptions, w float64, tm *Timings) ([]scored, int, error) {
	k := max(opt.Candidates, opt.Limit*4)
	constrained := len(q.Phrases) > 0 || len(q.Excluded) > 0
	var lexC []index.Candidate
	total := 0
	if w < 1 || constrained {
		req.Size = k
		if constrained && w > 0 {
			req.Size = max(k, 1000)
		}
		t := time.Now()
		var err error
		if lexC, total, err = e.lex.Search(ctx, req); err != nil {
			return nil, 0, err
		}
		tm.Lexical = msSince(t)
	}
	var vecC []fusion.Candidate
	if w > 0 {
		t := time.Now()
		qv, err := e.embedQuery(ctx, q.Semantic(), opt.QueryInstruction)
		if err != nil {
			return nil, 0, fmt.Errorf("braid: embed query: %w", err)
		}
		tm.Embed = msSince(t)
		t = time.Now()
		filtered := len(req.SourceIDs) > 0 || req.PathGlob != "" || len(req.Tags) > 0 || req.DocIDs != nil
		n := k
		if filtered || constrained {
			n = k * 8
		}
		found, err := e.vec.Search(qv[0], n)
		if err != nil {
			return nil, 0, err
		}
		var inLex map[string]bool
		if constrained {
			inLex = make(map[string]bool, len(lexC))
			for _, c := range lexC {
				inLex[c.ChunkID] = true
			}
		}
		keep, err := e.filter(req)
		if err != nil {
			return nil, 0, err
		}
		for _, r := range found {
			if len(vecC) == k {
				break
			}
			if constrained && !inLex[r.ID] {
				continue
			}
			if ok, err := keep(r.ID); err != nil {
				return nil, 0, err
			} else if !ok {
				continue
			}
			vecC = append(vecC, fusion.Candidate{ID: r.ID, Score: float64(r.Score)})
		}
		if w == 1 && !constrained {
			total = len(vecC)
		}
		tm.Vector = msSince(t)
	}
	t := time.Now()
	defer func() { tm.Fusion = msSince(t) }()
	if len(lexC) > k {
		lexC = lexC[:k]
	}
	lexF := make([]fusion.Candidate, len(lexC))
	byID := make(map[string]index.Candidate, len(lexC))
	for i, c := range lexC {
		lexF[i] = fusion.Candidate{ID: c.ChunkID, Score: c.Score}
		byID[c.ChunkID] = c
	}
	var fused []fusion.Hit
	if opt.fusion() == FusionRRF {
		fused = fusion.RRF(lexF, vecC, w, 60)
	} else {
		norm := fusion.MinMax
		if opt.Normalize == NormZScore {
			norm = fusion.ZScore
		}
		fused = fusion.Linear(lexF, vecC, w, norm)
	}
	out := make([]scored, len(fused))
	for i, h := range fused {
		c := byID[h.ID]
		out[i] = scored{chunkID: h.ID, score: h.Score, lex: h.Lexical, vec: h.Vector, bm25: c.Explanation, terms: c.Terms}
	}
	return out, total, nil
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

// filter returns a test of a chunk id against the request's source, path
// and tag filters, which the vector index cannot apply itself.
func (e *Engine) filter(req index.Request) (func(chunkID string) (bool, error), error) {
	if len(req.SourceIDs) == 0 && req.PathGlob == "" && len(req.Tags) == 0 && req.DocIDs == nil {
		return func(string) (bool, error) { return true, nil }, nil
	}
	var glob *index.Matcher
	if req.PathGlob != "" {
		var err error
		if glob, err = index.NewMatcher([]string{req.PathGlob}); err != nil {
			return nil, err
		}
	}
	keep := e.keepDoc(req, glob)
	verdict := map[string]bool{} // by document: its chunks share the answer
	return func(chunkID string) (bool, error) {
		docID := index.ChunkDocID(chunkID)
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

// keepDoc tests a document against the source, path and tag filters.
func (e *Engine) keepDoc(req index.Request, glob *index.Matcher) func(docID string) (bool, error) {
	var docs map[string]bool // a metadata filter may name many documents
	if req.DocIDs != nil {
		docs = make(map[string]bool, len(req.DocIDs))
		for _, id := range req.DocIDs {
			docs[id] = true
		}
	}
	return func(docID string) (bool, error) {
		if docs != nil && !docs[docID] {
			return false, nil // decided without reading the document
		}
		d, err := e.st.Doc(docID)
		if err != nil || d == nil {
			return false, err
		}
		if len(req.SourceIDs) > 0 && !contains(req.SourceIDs, d.SourceID) {
			return false, nil
		}
		if glob != nil && !glob.Match(d.Path) {
			return false, nil
		}
		for _, t := range req.Tags {
			t = strings.TrimPrefix(t, "#")
			found := false
			for _, dt := range d.Tags {
				found = found || strings.EqualFold(dt, t)
			}
			if !found {
				return false, nil
			}
		}
		return true, nil
	}
}
