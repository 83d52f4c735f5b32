package cluster

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/braidsearch/braid/fusion"
	"github.com/braidsearch/braid/graph"
	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/ingest"
	"github.com/braidsearch/braid/lexical"
	"github.com/braidsearch/braid/opensearch"
	"github.com/braidsearch/braid/query"
	"github.com/braidsearch/braid/settings"
)

// Config is what the engine hands a Cluster.
type Config struct {
	// Index is the cluster's index, opened by the engine, which closes it.
	Index *opensearch.Index
	// Mirror is the local copy of the cluster's documents and sources
	// (Sync), a store of the engine's, which closes it.
	Mirror *index.Store
	// URL is the backend's address, for messages.
	URL string
	// Model names the engine's embedding model; Embedder is the model,
	// nil for none, and NoVectors then says why (for messages).
	Model     string
	Embedder  ingest.Embedder
	NoVectors string
	// MirrorDir is where Open keeps the local copy across runs, one folder
	// per cluster index (by its UUID); empty means a temporary folder,
	// read in full by the first Sync.
	MirrorDir string
	// Workers and BatchDocs shape an index run, as ingest.Options's do.
	Workers, BatchDocs int
}

// Cluster is the retriever of an engine whose index lives in OpenSearch.
// Searches, index runs and source lists read and write the cluster only,
// so several braid processes on several machines can share one index. It
// is safe for concurrent use.
type Cluster struct {
	cfg Config
	x   *opensearch.Index
	m   *mirrorDir // the local copy's folder, when Open made it

	mu      sync.Mutex  // serialises Sync
	version string      // of the cluster index the mirror was brought to
	ms      mirrorState // where the mirror stands (Sync)
	// model is the embedding model of the cluster's vectors ("" before the
	// first): set by an index run while searches read it.
	model atomic.Pointer[string]
}

// New reads what the cluster index keeps beside its chunks: the embedding
// model its vectors were made with, and the search settings, returned
// (nil when it holds none).
func New(ctx context.Context, cfg Config) (*Cluster, *settings.Values, error) {
	c := &Cluster{cfg: cfg, x: cfg.Index}
	meta, err := c.x.Meta(ctx)
	if err != nil {
		return nil, nil, err
	}
	var saved *settings.Values
	if raw := meta["settings"]; len(raw) > 0 {
		if saved, err = settings.Parse(raw, "the settings of the cluster index "+c.x.Name(), "set them again with braid config set"); err != nil {
			return nil, nil, err
		}
	}
	if raw := meta["model"]; len(raw) > 0 {
		var m string
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, nil, fmt.Errorf("the model name in the cluster index %s is damaged (%v); index it again", c.x.Name(), err)
		}
		c.model.Store(&m)
	}
	return c, saved, nil
}

// ModelName is the model of the cluster's vectors, "" before the first.
func (c *Cluster) ModelName() string {
	if m := c.model.Load(); m != nil {
		return *m
	}
	return ""
}

// OtherModel is the model the cluster's vectors were made with when it is
// not the engine's, else "".
func (c *Cluster) OtherModel() string {
	if m := c.ModelName(); m != "" && m != c.cfg.Model {
		return m
	}
	return ""
}

// claimModel records the engine's model as the one the cluster's vectors
// are made with, before the first are sent; an index run with another
// model is refused, and one with none may remove chunks from an index with
// vectors but not add any: one index never mixes vectors of two models or
// chunks without a vector.
func (c *Cluster) claimModel(ctx context.Context) error {
	want := c.cfg.Model
	have := c.ModelName()
	switch {
	case c.cfg.Embedder == nil:
		return nil // checked per batch: removals need no model (target.docs)
	case have == "":
		raw, err := json.Marshal(want)
		if err != nil {
			return err
		}
		if err := c.x.SetMeta(ctx, "model", raw); err != nil {
			return err
		}
		c.model.Store(&want)
		return nil
	case have != want:
		return fmt.Errorf("%w: the cluster index %s holds embeddings of %s, not of the model in use, %s: index with %s, or into another Backend.Index", index.ErrBadOption, c.x.Name(), have, want, have)
	}
	return nil
}

// Filter is req's filters in the cluster's terms; ok is false when they
// keep nothing (a metadata filter that matched no document).
func Filter(req lexical.Request) (f opensearch.Filter, ok bool) {
	if req.DocIDs != nil && len(req.DocIDs) == 0 {
		return f, false
	}
	f = opensearch.Filter{Sources: req.SourceIDs, DocIDs: req.DocIDs, PathGlob: req.PathGlob}
	for _, t := range req.Tags {
		f.Tags = append(f.Tags, normTag(t))
	}
	return f, true
}

// normTag is a tag as the cluster stores it: without its # and in lower
// case, so a filter matches the way the embedded index's does.
func normTag(t string) string { return strings.ToLower(strings.TrimPrefix(t, "#")) }

// Lexical returns up to req.Size chunks matching req.Query by BM25, best
// first, with req's filters applied, and how many matched in all.
func (c *Cluster) Lexical(ctx context.Context, req lexical.Request) ([]lexical.Candidate, int, error) {
	f, ok := Filter(req)
	if !ok {
		return nil, 0, nil
	}
	q := opensearch.LexQuery{Terms: strings.Join(req.Query.Terms, " "), Phrases: req.Query.Phrases, Excluded: req.Query.Excluded, Fuzziness: req.Fuzziness,
		TitleWeight: req.TitleWeight, HeadingWeight: req.HeadingWeight}
	hits, total, err := c.x.Lexical(ctx, q, f, req.Size)
	if errors.Is(err, opensearch.ErrEmptyQuery) {
		return nil, 0, query.ErrEmptyQuery
	}
	if err != nil {
		return nil, 0, err
	}
	out := make([]lexical.Candidate, len(hits))
	for i, h := range hits {
		out[i] = lexical.Candidate{ChunkID: h.ChunkID, Score: h.Score, Terms: h.Terms, FieldBonus: h.FieldBonus}
	}
	return out, total, nil
}

// Vector returns up to k chunks nearest qv that pass req's filters, best
// first, scored by cosine similarity.
func (c *Cluster) Vector(ctx context.Context, qv []float32, k int, req lexical.Request) ([]fusion.Candidate, error) {
	f, ok := Filter(req)
	if !ok {
		return nil, nil
	}
	hits, err := c.x.Vector(ctx, qv, f, k)
	if err != nil {
		return nil, err
	}
	out := make([]fusion.Candidate, len(hits))
	for i, h := range hits {
		out[i] = fusion.Candidate{ID: h.ChunkID, Score: h.Score}
	}
	return out, nil
}

// Read returns the chunks of ids with their text and the document of
// each, in the order of ids; both are nil for a chunk that is gone.
func (c *Cluster) Read(ctx context.Context, ids []string) ([]*index.Chunk, []*index.Document, error) {
	got, err := c.x.Chunks(ctx, ids)
	if err != nil {
		return nil, nil, err
	}
	chunks := make([]*index.Chunk, len(got))
	docs := make([]*index.Document, len(got))
	for i, d := range got {
		if d == nil {
			continue
		}
		chunks[i] = &index.Chunk{ID: d.ChunkID, DocID: d.DocID, Ord: d.Ord, Text: d.Text, HeadingPath: d.HeadingPath, StartLine: d.StartLine, EndLine: d.EndLine}
		docs[i] = &index.Document{ID: d.DocID, SourceID: d.Source, Path: d.Path, Kind: index.DocKind(d.Kind), Title: d.DocTitle, Hash: d.DocHash, Lines: d.Lines, Aliases: d.Aliases, Tags: d.Tags}
	}
	c.pages(ctx, chunks, docs)
	return chunks, docs, nil
}

// pages gives the chunks of PDFs their page: the cluster's chunk records
// have no page field (its mapping predates them), and the document
// record, kept in the mirror, has the line each page starts on.
func (c *Cluster) pages(ctx context.Context, chunks []*index.Chunk, docs []*index.Document) {
	if c.cfg.Mirror == nil || !slices.ContainsFunc(docs, func(d *index.Document) bool { return d != nil && d.Kind == index.KindPDF }) {
		return
	}
	if err := c.Sync(ctx); err != nil {
		return // the hits go without their page rather than fail
	}
	starts := map[string][]int{}
	for i, d := range docs {
		if d == nil || d.Kind != index.KindPDF {
			continue
		}
		p, ok := starts[d.ID]
		if !ok {
			if m, err := c.cfg.Mirror.Doc(d.ID); err == nil && m != nil && m.Hash == d.Hash {
				p = m.Pages
			}
			starts[d.ID] = p
		}
		d.Pages = p
		chunks[i].Page = d.Page(chunks[i].StartLine)
	}
}

// Backlinks counts, for each of docIDs, the other documents that link to
// it, from the link graph of the mirror, brought up to date first.
func (c *Cluster) Backlinks(ctx context.Context, docIDs []string) (map[string]int, error) {
	if err := c.Sync(ctx); err != nil {
		return nil, err
	}
	var counts map[string]int
	err := c.cfg.Mirror.Graph(func(r *graph.Reader) error {
		var err error
		counts, err = r.Backlinks(docIDs)
		return err
	})
	return counts, err
}

// Sources lists the registered sources, by ID.
func (c *Cluster) Sources(ctx context.Context) ([]*index.Source, error) {
	recs, err := c.x.Sources(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]*index.Source, 0, len(recs))
	for id, r := range recs {
		s := &index.Source{}
		if err := json.Unmarshal(r, s); err != nil {
			return nil, fmt.Errorf("source record %s in the cluster is damaged (%v); braid sources rm %s, then index it again", id, err, id)
		}
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b *index.Source) int { return cmp.Compare(a.ID, b.ID) })
	return out, nil
}
