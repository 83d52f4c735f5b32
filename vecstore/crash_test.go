package vecstore_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/ingest"
	"github.com/braidsearch/braid/internal/testenv"
	"github.com/braidsearch/braid/lexical"
	"github.com/braidsearch/braid/vecstore"
	"github.com/braidsearch/braid/vector"
)

// notes writes n notes of two sections each to dir; edit changes the
// second section of note 0.
func notes(t *testing.T, dir string, n int, edit string) {
	t.Helper()
	for i := range n {
		second := fmt.Sprintf("The second part of note %d talks about rivers and boats.", i)
		if i == 0 && edit != "" {
			second = edit
		}
		body := fmt.Sprintf("# Note %d\n\nThe first part of note %d talks about mountains and snow.\n\n## More\n\n%s\n", i, i, second)
		testenv.Must(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("n%02d.md", i)), []byte(body), 0o644))
	}
}

// run indexes vault into the store and lexical index of dir with vs, as
// an index run does, but never saves the graph at its end: the process
// died between its last commit and the save.
func run(t *testing.T, st *index.Store, lex *lexical.Index, vs *ingest.Vectors, vault string) {
	t.Helper()
	ix := &ingest.Indexer{Store: st, Lexical: lex, Opt: ingest.Options{Workers: 1, BatchDocs: 4}, Vectors: vs}
	src := &index.Source{ID: "s1", Name: "v", Path: vault, Kind: index.SourceDir, ChunkTokens: 16}
	testenv.Must(t, ix.Index(context.Background(), src, &ingest.Summary{}))
}

// TestCrashBeforeSaveLosesNothing: a run that dies after committing and
// before the graph's save loses no vector. The store keeps each embedding
// until a save makes the graph holding it durable, so Load brings the
// graph in step without the model; with checkpoints on the way (a long
// run's saves) the store holds only what came after the last one. A
// vector an edited note's unchanged text took from the graph is kept so
// too.
func TestCrashBeforeSaveLosesNothing(t *testing.T) {
	const n = 24 // notes, two chunks each
	for _, tc := range []struct {
		name  string
		after int // CheckpointAfter; 0: no checkpoint
	}{{"no checkpoint", 0}, {"checkpoints", 10}} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			dir, vault := t.TempDir(), t.TempDir()
			notes(t, vault, n, "")
			st := testenv.Must1(index.OpenStore(filepath.Join(dir, "meta.db"), false))(t)
			defer st.Close()
			lex := testenv.Must1(lexical.Open(filepath.Join(dir, "lexical.bleve"), false, nil))(t)
			defer lex.Close()
			emb := &fakeEmbedder{dim: 64}
			vs := &ingest.Vectors{Embedder: emb, Model: "m", Index: vector.New(emb.dim, nil), CheckpointAfter: tc.after}
			checkpoints := 0
			if tc.after > 0 {
				vs.Checkpoint = func(ctx context.Context) error {
					checkpoints++
					return vecstore.Save(ctx, st, dir, vs, false)
				}
			}
			run(t, st, lex, vs, vault)
			kept := testenv.Must1(st.CountVectors("m"))(t)
			switch {
			case tc.after == 0 && kept != 2*n:
				t.Errorf("%d embeddings stored before any save, want %d", kept, 2*n)
			case tc.after > 0 && (checkpoints == 0 || kept >= tc.after+8):
				t.Errorf("%d checkpoints, %d embeddings stored after the last, want some and fewer than %d", checkpoints, kept, tc.after+8)
			}
			loaded := func(what string) *vector.Index {
				t.Helper()
				again := &fakeEmbedder{dim: emb.dim}
				vi, damaged, err := vecstore.Load(ctx, st, vecstore.Options{Dir: dir, Model: "m", Embedder: again})
				if err != nil {
					t.Fatal(err)
				}
				if vi.Len() != 2*n || damaged != "" || again.texts != 0 {
					t.Errorf("%s: Load = %d chunks, damaged %q, %d texts embedded; want %d chunks from the graph and the store, none embedded", what, vi.Len(), damaged, again.texts, 2*n)
				}
				return vi
			}
			vi := loaded("after a crash before the save")

			// The next run saves the whole graph: the store keeps no
			// embedding.
			vs = &ingest.Vectors{Embedder: emb, Model: "m", Index: vi}
			testenv.Must(t, vecstore.Save(ctx, st, dir, vs, true))
			if kept := testenv.Must1(st.CountVectors("m"))(t); kept != 0 {
				t.Errorf("%d embeddings stored after a complete save, want 0", kept)
			}

			// An edit of one section: the other keeps its vector, taken
			// from the graph, and survives a crash before the save too.
			notes(t, vault, n, "Rewritten: the second part now talks about deserts.")
			before := emb.texts
			run(t, st, lex, vs, vault)
			if got := emb.texts - before; got != 1 {
				t.Errorf("an edit of one section embedded %d texts, want 1", got)
			}
			loaded("after a crash before saving an edit")
		})
	}
}
