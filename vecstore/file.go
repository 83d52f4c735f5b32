package vecstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/indexdir"
	"github.com/braidsearch/braid/ingest"
	"github.com/braidsearch/braid/vector"
	"golang.org/x/sys/unix"
)

// File names the HNSW file of a model in the index directory dir, so
// switching models never mixes embeddings; its change log, when it has
// one, is vector.LogPath(File(dir, model)).
func File(dir, model string) string {
	h := sha256.Sum256([]byte(model))
	return filepath.Join(dir, "vectors-"+hex.EncodeToString(h[:4])+".hnsw")
}

// Options say which graph Load opens.
type Options struct {
	// Dir is the index directory.
	Dir string
	// Model is the embedding model's key, which names the file and the
	// stored embeddings.
	Model string
	// Embedder is the model. Load asks it only its dimension: embeddings
	// come from the store.
	Embedder ingest.Embedder
	// Vector tunes the graph; nil means vector's defaults.
	Vector *vector.Options
}

// Load opens the HNSW file of o.Model in o.Dir. A graph behind the store
// (a run without the model, or a crash before the save) is brought in
// step from the stored embeddings; a missing or unreadable one is rebuilt
// from them. Neither calls the model.
//
// damaged is "" when the file was sound or missing; when it was damaged
// it says so and how to repair it, and the graph returned is the one
// rebuilt in memory. A dimension that is not positive is an
// index.ErrBadOption. ctx bounds bringing the graph in step.
func Load(ctx context.Context, st *index.Store, o Options) (vi *vector.Index, damaged string, err error) {
	dim := o.Embedder.Dim()
	if dim <= 0 {
		return nil, "", fmt.Errorf("%w: the embedder reports dimension %d", index.ErrBadOption, dim)
	}
	gen, err := st.Gen()
	if err != nil {
		return nil, "", err
	}
	file := File(o.Dir, o.Model)
	vi, err = vector.LoadTrusting(file, o.Vector, trust(st, file))
	switch {
	case err == nil && vi.Dim() == dim:
		if vi.Gen() == gen {
			return vi, "", nil
		}
		if err := dropStale(st, vi); err != nil {
			return nil, "", err
		}
	case err != nil && !errors.Is(err, os.ErrNotExist) && !errors.Is(err, vector.ErrFormat):
		return nil, "", err
	case err != nil && !errors.Is(err, os.ErrNotExist) && !errors.Is(err, vector.ErrMismatch):
		reason := err
		if fe := (*vector.FormatError)(nil); errors.As(err, &fe) {
			reason = fe.Reason
		}
		damaged = fmt.Sprintf("%s is damaged (%v), so vectors are searched in a graph rebuilt from the stored embeddings at every start; braid --index %s doctor --repair removes the file and the next braid index saves a sound one",
			filepath.Base(file), reason, o.Dir)
		vi = vector.New(dim, o.Vector)
	default:
		vi = vector.New(dim, o.Vector)
	}
	vs := &ingest.Vectors{Embedder: o.Embedder, Model: o.Model, Index: vi}
	if _, err := vs.Fill(ctx, st, false); err != nil {
		return nil, "", err
	}
	return vi, damaged, nil
}

// trust lets vector.Load skip the checksums of a graph file this user's
// braid read whole before, by a stamp beside it sealed with st's key
// (FILE.verified, as the lexical segments' and meta.db's): at a million
// chunks they are some 165 MB read at every open. A file read is stamped
// as described before the read, so one written during it is read again.
func trust(st *index.Store, file string) vector.Trust {
	stamps := st.Stamps(file + indexdir.StampSuffix)
	var before *unix.Stat_t // the opened file, as Checked saw it
	return vector.Trust{
		Checked: func(f *os.File) bool {
			s, ok := indexdir.Fstat(f)
			if ok {
				before = s
			}
			return ok && stamps.Checked(f.Name(), s)
		},
		Verified: func(f *os.File) {
			if before != nil {
				stamps.Add(f.Name(), before)
				stamps.Save()
			}
		},
	}
}

// dropStale deletes from the graph the chunks the store no longer has.
func dropStale(st *index.Store, vi *vector.Index) error {
	live := map[string]bool{}
	if err := st.ForEachChunkID(func(id string) error {
		live[id] = true
		return nil
	}); err != nil {
		return err
	}
	for _, id := range vi.IDs() {
		if !live[id] {
			vi.Delete(id)
		}
	}
	return nil
}

// Save writes vs's graph to its model's file in dir, stamped with the
// store's commit number: a few changes since the graph was loaded or
// saved are appended to the file's change log, anything more rewrites the
// file atomically (vector.Index.Save); either way a crash leaves the graph
// as an earlier Save left it, which Load brings in step. It then prunes the stored embeddings the
// graph no longer needs once they are more than a few (pruneAbove). With fill it first embeds every chunk the graph
// still lacks. A nil vs saves nothing.
func Save(ctx context.Context, st *index.Store, dir string, vs *ingest.Vectors, fill bool) error {
	if vs == nil {
		return nil
	}
	if fill {
		if _, err := vs.Fill(ctx, st, true); err != nil {
			return err
		}
	}
	gen, err := st.Gen()
	if err != nil {
		return err
	}
	vs.Index.SetGen(gen)
	path := File(dir, vs.Model)
	if !vs.Index.Changed() {
		if _, err := os.Stat(path); err == nil {
			// The file holds this graph already (nothing was added,
			// deleted or committed since it was loaded or saved), and no
			// chunk changed, so no stored embedding became unneeded: a
			// no-change braid index writes nothing.
			return nil
		}
	}
	if err := vs.Index.Save(path); err != nil {
		return fmt.Errorf("save vector index: %w", err)
	}
	if n, err := st.CountVectors(vs.Model); err == nil && n <= pruneAbove(vs.Index.Len()) {
		return nil
	}
	_, err = vs.Prune(st)
	return err
}

// pruneAbove is how many stored embeddings a graph of n vectors lets
// stand before Save prunes those no chunk needs: the stored embeddings are
// a cache by text (an edit undone embeds nothing), and pruning reads
// every document and chunk, so a run that changed one note does not pay
// it until the unneeded ones are about a twentieth.
func pruneAbove(n int) int { return n + max(64, n/20) }

// OtherModels names, joined with ", ", the models other than model whose
// embeddings the store holds; "" when there are none or the store cannot
// say.
func OtherModels(st *index.Store, model string) string {
	models, err := st.EmbeddingModels()
	if err != nil {
		return ""
	}
	var other []string
	for _, m := range models {
		if m != model {
			other = append(other, m)
		}
	}
	return strings.Join(other, ", ")
}
