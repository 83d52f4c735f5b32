package braid_test

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/internal/modeltest"
	"github.com/braidsearch/braid/internal/testenv"
	"github.com/braidsearch/braid/vector"
)

// counting runs the real tiny model and counts what it is asked to embed.
type counting struct {
	braid.Embedder
	calls, texts atomic.Int64
	pad          int // extra zero dimensions to put out, to test dimension checks
}

func (c *counting) Embed(ctx context.Context, texts []string, query bool) ([][]float32, error) {
	c.calls.Add(1)
	c.texts.Add(int64(len(texts)))
	out, err := c.Embedder.Embed(ctx, texts, query)
	for i := range out {
		out[i] = append(out[i], make([]float32, c.pad)...)
	}
	return out, err
}

func tinyEngine(t *testing.T, dir string) (*braid.Engine, *counting) {
	t.Helper()
	c := &counting{Embedder: modeltest.Tiny(t)}
	e, err := braid.Open(dir, &braid.Options{Embedder: c, Model: "braid/tiny-encoder"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e, c
}

// indexedTiny writes the notes and indexes them with the tiny model,
// returning the vault and the (closed) index directory.
func indexedTiny(t *testing.T) (vault, dir string) {
	t.Helper()
	vault = writeVault(t, hybridNotes)
	dir = filepath.Join(t.TempDir(), "idx")
	e, _ := tinyEngine(t, dir)
	if _, err := e.Index(context.Background(), []braid.SourceSpec{{Path: vault}}, nil); err != nil {
		t.Fatal(err)
	}
	e.Close()
	return vault, dir
}

var hybridNotes = map[string]string{
	"tomatoes.md": "# Tomatoes\n\nTomatoes need full sun and deep watering every morning.\n",
	"compost.md":  "# Compost\n\nCompost turns kitchen scraps into dark humus for the garden.\n",
	"bread.md":    "# Bread\n\nKnead the dough, let it rise overnight, then bake it hot.\n",
	"rust.md":     "# Rust\n\nThe borrow checker makes sure every reference is valid.\n",
	"music.md":    "# Music\n\nPlay the scale slowly on the piano, then faster.\n",
}

func TestHybridEndToEnd(t *testing.T) {
	ctx := context.Background()
	vault := writeVault(t, hybridNotes)
	e, c := tinyEngine(t, filepath.Join(t.TempDir(), "idx"))
	sum, err := e.Index(ctx, []braid.SourceSpec{{Path: vault}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Embedded != sum.Chunks || sum.Chunks < len(hybridNotes) {
		t.Fatalf("embedded %d of %d chunks", sum.Embedded, sum.Chunks)
	}

	// Vector only: a chunk's own embedding input finds it with cosine 1.
	one := 1.0
	c.calls.Store(0)
	res, err := e.Search(ctx, "# Bread\n\nKnead the dough, let it rise overnight, then bake it hot.", braid.SearchOptions{VectorWeight: &one, Explain: true, Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Results) == 0 || res.Results[0].Path != "bread.md" {
		t.Fatalf("vector search: %+v, want bread.md first", res.Results)
	}
	top := res.Results[0]
	if top.Source != "vector" || math.Abs(top.Explain.VectorScore-1) > 1e-4 || top.Explain.LexicalRank != 0 || top.Explain.VectorRank != 1 {
		t.Errorf("top hit source %q explain %+v, want vector with cosine 1 and no lexical rank", top.Source, top.Explain)
	}
	if c.calls.Load() != 1 {
		t.Errorf("vector search embedded %d times, want once (the query)", c.calls.Load())
	}

	// Hybrid: both lists take part and the explain shows each.
	half := 0.5
	for _, f := range []braid.Fusion{braid.FusionLinear, braid.FusionRRF} {
		res, err = e.Search(ctx, "tomatoes sun watering", braid.SearchOptions{VectorWeight: &half, Fusion: f, Explain: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Results) == 0 || res.Results[0].Path != "tomatoes.md" {
			t.Fatalf("%s: %+v, want tomatoes.md first", f, res.Results)
		}
		x := res.Results[0].Explain
		if res.Results[0].Source != "hybrid" || x.Fusion != string(f) || x.LexicalRank != 1 || x.VectorRank == 0 || x.VectorWeight != 0.5 {
			t.Errorf("%s: source %q explain %+v", f, res.Results[0].Source, x)
		}
		if len(res.Results) != len(hybridNotes) {
			t.Errorf("%s: %d hits, want every note (the vector list holds them all)", f, len(res.Results))
		}
	}

	// Filters the vector index cannot apply are applied to its candidates.
	res, err = e.Search(ctx, "tomatoes sun watering", braid.SearchOptions{VectorWeight: &one, PathGlob: "b*.md"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Results) != 1 || res.Results[0].Path != "bread.md" {
		t.Errorf("vector search with --path b*.md: %+v, want bread.md alone", res.Results)
	}

	// w = 0 computes no embedding.
	zero := 0.0
	c.calls.Store(0)
	res, err = e.Search(ctx, "tomatoes", braid.SearchOptions{VectorWeight: &zero})
	if err != nil {
		t.Fatal(err)
	}
	if c.calls.Load() != 0 || res.Results[0].Source != "lexical" {
		t.Errorf("w=0: %d embedding calls, source %q; want none and lexical", c.calls.Load(), res.Results[0].Source)
	}
	// The default weight is hybrid when embeddings exist.
	res, err = e.Search(ctx, "tomatoes", braid.SearchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Results[0].Source != "hybrid" || res.Warning != "" {
		t.Errorf("default weight: source %q warning %q, want hybrid and none", res.Results[0].Source, res.Warning)
	}
	for _, bad := range []braid.SearchOptions{{Fusion: "sum"}, {Normalize: "l2"}, {VectorWeight: ptr(1.5)}} {
		if _, err := e.Search(ctx, "x", bad); !errors.Is(err, braid.ErrBadOption) {
			t.Errorf("Search(%+v) = %v, want ErrBadOption", bad, err)
		}
	}
}

func ptr(f float64) *float64 { return &f }

func TestEmbeddingsKeyedByText(t *testing.T) {
	ctx := context.Background()
	vault := writeVault(t, hybridNotes)
	dir := filepath.Join(t.TempDir(), "idx")
	e, c := tinyEngine(t, dir)
	first, err := e.Index(ctx, []braid.SourceSpec{{Path: vault}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	again, err := e.Index(ctx, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if again.Embedded != 0 {
		t.Errorf("re-index of an unchanged vault embedded %d chunks, want 0", again.Embedded)
	}
	// Change one note, delete another: only the changed text is embedded,
	// and the deleted note's chunks leave the graph.
	testenv.Must(t, os.WriteFile(filepath.Join(vault, "bread.md"), []byte("# Bread\n\nSourdough needs a starter fed daily.\n"), 0o644))
	testenv.Must(t, os.Remove(filepath.Join(vault, "rust.md")))
	c.texts.Store(0)
	sum, err := e.Index(ctx, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Embedded != 1 || c.texts.Load() != 1 {
		t.Errorf("after one edit: embedded %d (model saw %d texts), want 1", sum.Embedded, c.texts.Load())
	}
	one := 1.0
	res, err := e.Search(ctx, "# Rust\n\nThe borrow checker makes sure every reference is valid.", braid.SearchOptions{VectorWeight: &one, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range res.Results {
		if h.Path == "rust.md" {
			t.Errorf("deleted rust.md still found: %+v", h)
		}
	}
	if len(res.Results) != len(hybridNotes)-1 {
		t.Errorf("%d hits, want %d (every live note)", len(res.Results), len(hybridNotes)-1)
	}
	e.Close()

	// The graph file is the one copy of each vector: losing it, a search
	// says the chunks have no vector and that braid index embeds them
	// again, which it does.
	files := testenv.Must1(filepath.Glob(filepath.Join(dir, "vectors-*.hnsw")))(t)
	if len(files) != 1 {
		t.Fatalf("vector files %v, want one", files)
	}
	testenv.Must(t, os.Remove(files[0]))
	e2, c2 := tinyEngine(t, dir)
	res, err = e2.Search(ctx, "# Bread\n\nSourdough needs a starter fed daily.", braid.SearchOptions{VectorWeight: &one, Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Warning, "no embeddings") && !strings.Contains(res.Warning, "embeds them again") {
		t.Errorf("search with the graph file lost: warning %q, want it to say braid index embeds the chunks again", res.Warning)
	}
	sum, err = e2.Index(ctx, nil, nil)
	if err != nil || sum.Embedded != len(hybridNotes)-1 {
		t.Errorf("re-index after losing the graph embedded %d (%v), want %d", sum.Embedded, err, len(hybridNotes)-1)
	}
	c2.texts.Store(0)
	res, err = e2.Search(ctx, "# Bread\n\nSourdough needs a starter fed daily.", braid.SearchOptions{VectorWeight: &one, Limit: 1})
	if err != nil || len(res.Results) != 1 || res.Results[0].Path != "bread.md" || c2.texts.Load() != 1 || res.Warning != "" {
		t.Errorf("after the re-index: %+v (%v), warning %q, %d texts embedded; want bread.md, only the query embedded", res.Results, err, res.Warning, c2.texts.Load())
	}
	_ = first
}

func TestNoModelFallsBackToLexical(t *testing.T) {
	ctx := context.Background()
	vault := writeVault(t, hybridNotes)
	e := openEngine(t, &braid.Options{NoVectors: "ONNX Runtime not found: run make ort"})
	if _, err := e.Index(ctx, []braid.SourceSpec{{Path: vault}}, nil); err != nil {
		t.Fatal(err)
	}
	res, err := e.Search(ctx, "tomatoes", braid.SearchOptions{VectorWeight: ptr(0.7)})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Results) == 0 || res.Results[0].Source != "lexical" {
		t.Fatalf("results %+v, want lexical hits", res.Results)
	}
	if !strings.Contains(res.Warning, "ONNX Runtime not found: run make ort") || !strings.Contains(res.Warning, "lexical") {
		t.Errorf("warning %q, want the reason and that the search was lexical", res.Warning)
	}
	res, err = e.Search(ctx, "tomatoes", braid.SearchOptions{})
	if err != nil || res.Warning != "" {
		t.Errorf("default weight without a model: warning %q (%v), want none", res.Warning, err)
	}
}

func TestEmbedderDimensionChecked(t *testing.T) {
	ctx := context.Background()
	vault := writeVault(t, hybridNotes)
	c := &counting{Embedder: modeltest.Tiny(t), pad: 3} // says 8, puts out 11
	e, err := braid.Open(filepath.Join(t.TempDir(), "idx"), &braid.Options{Embedder: c, Model: "liar"})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	_, err = e.Index(ctx, []braid.SourceSpec{{Path: vault}}, nil)
	if !errors.Is(err, vector.ErrDimension) {
		t.Fatalf("Index with a model that lies about its dimension: %v, want ErrDimension", err)
	}
	// The lexical side is committed and searchable.
	res, err := e.Search(ctx, "tomatoes", braid.SearchOptions{VectorWeight: ptr(0)})
	if err != nil || len(res.Results) == 0 {
		t.Errorf("lexical search after the failure: %v, %v", res, err)
	}
}

// A batch the graph refuses stops the run at the next commit: the graph
// links a batch in while the next is written, so its error comes one
// batch late, never not at all.
func TestEmbedderDimensionCheckedMidRun(t *testing.T) {
	ctx := context.Background()
	vault := writeVault(t, hybridNotes)
	c := &counting{Embedder: modeltest.Tiny(t), pad: 3}
	e, err := braid.Open(filepath.Join(t.TempDir(), "idx"), &braid.Options{Embedder: c, Model: "liar", BatchDocs: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	_, err = e.Index(ctx, []braid.SourceSpec{{Path: vault}}, nil)
	if !errors.Is(err, vector.ErrDimension) {
		t.Fatalf("Index, one document a batch, with a model that lies about its dimension: %v, want ErrDimension", err)
	}
	if n := c.calls.Load(); n > 2 || len(hybridNotes) < 3 {
		t.Errorf("the model was called %d times for %d notes, want the run stopped by the second batch", n, len(hybridNotes))
	}
}

func TestModelSwitchKeepsVectorsApart(t *testing.T) {
	ctx := context.Background()
	_, dir := indexedTiny(t)
	c := &counting{Embedder: modeltest.Tiny(t)}
	e2, err := braid.Open(dir, &braid.Options{Embedder: c, Model: "another-model"})
	if err != nil {
		t.Fatal(err)
	}
	defer e2.Close()
	res, err := e2.Search(ctx, "tomatoes", braid.SearchOptions{VectorWeight: ptr(0.5)})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Warning, "embeddings are of braid/tiny-encoder, not of the model in use, another-model") || res.Results[0].Source != "lexical" {
		t.Errorf("another model before indexing: warning %q source %q, want lexical with a warning", res.Warning, res.Results[0].Source)
	}
	sum, err := e2.Index(ctx, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Embedded != len(hybridNotes) {
		t.Errorf("index with the new model embedded %d, want %d (every chunk, once)", sum.Embedded, len(hybridNotes))
	}
	var _ = index.TextHash
}

// A run without the model leaves the graph behind the store; the next open
// with the model brings it in step, and the next run with it embeds only
// what is new.
func TestGraphCatchesUpAfterRunWithoutModel(t *testing.T) {
	ctx := context.Background()
	vault, dir := indexedTiny(t)
	testenv.Must(t, os.Remove(filepath.Join(vault, "music.md")))
	testenv.Must(t, os.WriteFile(filepath.Join(vault, "chess.md"), []byte("# Chess\n\nThe knight moves in an L shape.\n"), 0o644))
	plain, err := braid.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := plain.Index(ctx, nil, nil); err != nil {
		t.Fatal(err)
	}
	plain.Close()

	e2, c := tinyEngine(t, dir)
	res, err := e2.Search(ctx, "# Music\n\nPlay the scale slowly on the piano, then faster.", braid.SearchOptions{VectorWeight: ptr(1), Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range res.Results {
		if h.Path == "music.md" || h.Path == "chess.md" {
			t.Errorf("vector search found %s, which the graph should not hold", h.Path)
		}
	}
	if len(res.Results) != len(hybridNotes)-1 {
		t.Errorf("%d vector hits, want %d", len(res.Results), len(hybridNotes)-1)
	}
	c.texts.Store(0)
	sum, err := e2.Index(ctx, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Embedded != 1 {
		t.Errorf("catch-up run embedded %d, want 1 (chess.md)", sum.Embedded)
	}
	res = testenv.Must1(e2.Search(ctx, "# Chess\n\nThe knight moves in an L shape.", braid.SearchOptions{VectorWeight: ptr(1), Limit: 1}))(t)
	if len(res.Results) != 1 || res.Results[0].Path != "chess.md" {
		t.Errorf("after catch-up: %+v, want chess.md", res.Results)
	}
}

// Another HNSW degree rebuilds the graph from stored embeddings, with no
// model call but the query's.
func TestNewGraphDegreeRebuildsFromStore(t *testing.T) {
	ctx := context.Background()
	_, dir := indexedTiny(t)
	c := &counting{Embedder: modeltest.Tiny(t)}
	e2, err := braid.Open(dir, &braid.Options{Embedder: c, Model: "braid/tiny-encoder", Vector: vector.Options{M: 4}, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer e2.Close()
	res, err := e2.Search(ctx, "# Compost\n\nCompost turns kitchen scraps into dark humus for the garden.", braid.SearchOptions{VectorWeight: ptr(1), Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Results) != 1 || res.Results[0].Path != "compost.md" || c.texts.Load() != 1 {
		t.Errorf("M=4: %+v with %d texts embedded, want compost.md and only the query", res.Results, c.texts.Load())
	}
}

// Re-chunking rewrites every chunk, but text that comes out the same is not
// embedded again.
func TestRechunkEmbedsOnlyNewText(t *testing.T) {
	ctx := context.Background()
	vault := writeVault(t, hybridNotes)
	e, c := tinyEngine(t, filepath.Join(t.TempDir(), "idx"))
	if _, err := e.Index(ctx, []braid.SourceSpec{{Path: vault}}, nil); err != nil {
		t.Fatal(err)
	}
	c.texts.Store(0)
	sum, err := e.Index(ctx, []braid.SourceSpec{{Path: vault, ChunkTokens: 300}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Chunks != len(hybridNotes) || sum.Embedded != 0 || c.texts.Load() != 0 {
		t.Errorf("re-chunk: %d chunks written, %d embedded (model saw %d); want %d written and none embedded", sum.Chunks, sum.Embedded, c.texts.Load(), len(hybridNotes))
	}
}
