package vecstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
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
	// Read, when set, is the file already read (Preload); Load uses it
	// when it was read for the same Dir, Model and Vector, else reads
	// the file itself.
	Read *Read
}

// Read is a graph file read ahead of Load (Preload).
type Read struct {
	gen  uint64 // the store's generation before the file was read
	file string
	opt  vector.Options
	vi   *vector.Index
	err  error
}

// Preload reads the graph file Load would open for o (o.Embedder unused),
// so that a caller can read it while the embedding model loads (a fresh
// search process: some 60 ms of a million chunks' graph beside ONNX
// Runtime's session) and hand it to Load in Options.Read. A file
// that is missing or damaged is Load's to judge and report, as if it had
// read it itself; nil when the store cannot say its generation. Load
// reads the file again when a commit came in between: the store's
// generation is read before the graph, as Load itself does.
func Preload(st *index.Store, o Options) *Read {
	gen, err := st.Gen()
	if err != nil {
		return nil
	}
	file := File(o.Dir, o.Model)
	vi, err := vector.LoadTrusting(file, o.Vector, trust(st, file))
	return &Read{gen: gen, file: file, opt: optionsOf(o.Vector), vi: vi, err: err}
}

// optionsOf is *o, the zero Options for nil.
func optionsOf(o *vector.Options) vector.Options {
	if o == nil {
		return vector.Options{}
	}
	return *o
}

// Load opens the HNSW file of o.Model in o.Dir. A graph behind the store
// (a run without the model, or a crash before the save) is brought in
// step from the embeddings the store keeps until the graph is saved
// (index.Store.PutVectors); a graph of another M is rebuilt from the
// file's own vectors. Neither calls the model. A missing or unreadable
// file has only what the store kept: the chunks' vectors live in the
// graph file alone, so the rest waits for the next braid index to embed
// them again.
//
// damaged is "" when the file was sound (or missing with nothing to lose);
// otherwise it says what vectors are missing and how to get them back,
// and the graph returned is the one rebuilt in memory. A dimension that
// is not positive is an index.ErrBadOption. ctx bounds bringing the graph
// in step.
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
	if r := o.Read; r != nil && r.gen == gen && r.file == file && r.opt == optionsOf(o.Vector) {
		vi, err = r.vi, r.err
	} else {
		vi, err = vector.LoadTrusting(file, o.Vector, trust(st, file))
	}
	err0 := err
	var lost string // why the graph lost vectors: the file is missing or damaged
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
	case errors.Is(err, vector.ErrMismatch):
		if vi, err = reshape(ctx, st, file, dim, o.Vector); err != nil {
			return nil, "", err
		}
		if vi == nil {
			lost = fmt.Sprintf("%s is of another format", filepath.Base(file))
			vi = vector.New(dim, o.Vector)
		}
	case err != nil && !errors.Is(err, os.ErrNotExist):
		reason := err
		if fe := (*vector.FormatError)(nil); errors.As(err, &fe) {
			reason = fe.Reason
		}
		lost = fmt.Sprintf("%s is damaged (%v)", filepath.Base(file), reason)
		vi = vector.New(dim, o.Vector)
	case err == nil: // a graph of another dimension: another model under this name
		vi = vector.New(dim, o.Vector)
	default:
		if embedded(st, o.Model) {
			lost = fmt.Sprintf("%s is missing", filepath.Base(file))
		}
		vi = vector.New(dim, o.Vector)
	}
	vs := &ingest.Vectors{Embedder: o.Embedder, Model: o.Model, Index: vi}
	_, left, err := vs.Fill(ctx, st, false)
	if err != nil {
		return nil, "", err
	}
	switch {
	case lost != "" && left > 0:
		damaged = fmt.Sprintf("%s, so %d chunks have no vector to search (the graph file held their embeddings alone): braid --index %s doctor --repair removes a damaged file, and the next braid index embeds them again with the model",
			lost, left, o.Dir)
	case lost != "" && errors.Is(err0, vector.ErrFormat) && !errors.Is(err0, vector.ErrMismatch):
		damaged = fmt.Sprintf("%s, so vectors are searched in a graph rebuilt from the stored embeddings at every start; braid --index %s doctor --repair removes the file and the next braid index saves a sound one",
			lost, o.Dir)
	}
	return vi, damaged, nil
}

// embedded says whether the store records that the index was embedded
// with model.
func embedded(st *index.Store, model string) bool {
	models, _ := st.EmbeddingModels()
	return slices.Contains(models, model)
}

// reshape rebuilds the graph file at path, of another M, with opt's,
// from its own vectors; nil when the file is of a format this braid does
// not read. It keeps only the chunks the store holds.
func reshape(ctx context.Context, st *index.Store, path string, dim int, opt *vector.Options) (*vector.Index, error) {
	var own *vector.Options
	if opt != nil {
		o := *opt
		o.M = 0 // the file's
		own = &o
	}
	old, err := vector.Load(path, own)
	switch {
	case errors.Is(err, vector.ErrFormat):
		return nil, nil
	case err != nil:
		return nil, err
	case old.Dim() != dim:
		return nil, nil
	}
	live := map[string]bool{}
	if err := st.ForEachChunkID(func(id string) error {
		live[id] = true
		return nil
	}); err != nil {
		return nil, err
	}
	vi := vector.New(dim, opt)
	var ids []string
	var vecs [][]float32
	flush := func() error {
		if err := ctx.Err(); err != nil {
			return err
		}
		err := vi.AddBatch(ids, vecs)
		ids, vecs = ids[:0], vecs[:0]
		return err
	}
	for _, id := range old.IDs() {
		if !live[id] {
			continue
		}
		if v := old.Vector(id); v != nil {
			ids, vecs = append(ids, id), append(vecs, v)
		}
		if len(ids) == 1024 {
			if err := flush(); err != nil {
				return nil, err
			}
		}
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return vi, nil
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
// as an earlier Save left it, which Load brings in step from the
// embeddings the store keeps until then. Once the save is durable those
// go (ingest.Vectors.Saved): the graph file is then the one copy of each
// vector. With fill it first embeds every chunk the graph still lacks,
// and then every embedding the store holds for the model goes. A nil vs
// saves nothing.
func Save(ctx context.Context, st *index.Store, dir string, vs *ingest.Vectors, fill bool) error {
	if vs == nil {
		return nil
	}
	if err := vs.Wait(); err != nil {
		return err
	}
	if fill {
		full, err := filled(st, vs)
		if err != nil {
			return err
		}
		if !full {
			if _, _, err := vs.Fill(ctx, st, true); err != nil {
				return err
			}
		}
	} else if err := st.SetFilled(vs.Model, 0, false); err != nil {
		return err // before a graph that may lack chunks is saved
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
			// deleted or committed since it was loaded or saved): a
			// no-change braid index writes nothing, unless the store
			// still holds embeddings the file has.
			return saved(st, vs, fill, gen)
		}
	}
	if err := vs.Index.Save(path); err != nil {
		return fmt.Errorf("save vector index: %w", err)
	}
	return saved(st, vs, fill, gen)
}

// saved tells vs its graph is saved (ingest.Vectors.Saved) and, with
// fill, records that the file holds every chunk at commit gen
// (index.Store.SetFilled).
func saved(st *index.Store, vs *ingest.Vectors, fill bool, gen uint64) error {
	if err := vs.Saved(st, fill); err != nil || !fill {
		return err
	}
	return st.SetFilled(vs.Model, gen, true)
}

// filled says whether vs's graph holds every chunk of the store without
// looking at each (the Fill that walks every chunk id, some seconds at a
// million): the store records that the graph file was saved whole at the
// commit the store is still at (index.Store.SetFilled), and the graph in
// memory is that file's, unchanged since (at the same commit, nothing
// added or deleted). A run that committed anything, a graph brought in
// step or rebuilt at its load, and one saved with chunks missing
// (SetFilled's ok false, at every save without fill) all fill.
func filled(st *index.Store, vs *ingest.Vectors) (bool, error) {
	at, ok, err := st.Filled(vs.Model)
	if err != nil || !ok {
		return false, err
	}
	gen, err := st.Gen()
	if err != nil {
		return false, err
	}
	return at == gen && vs.Index.Gen() == gen && !vs.Index.Changed(), nil
}

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
