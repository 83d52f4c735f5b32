package ingest

import (
	"context"
	"fmt"
	"time"

	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/vector"
)

// Embedder turns texts into unit-length vectors. model.Embedder is the ONNX
// implementation; the interface keeps this package free of the runtime.
type Embedder interface {
	Embed(ctx context.Context, texts []string, query bool) ([][]float32, error)
	Dim() int
}

// Vectors is the embedding side of an index run: the model, its name (the
// key its embeddings are cached under) and the HNSW graph kept in step.
type Vectors struct {
	Embedder Embedder
	Model    string
	Index    *vector.Index
	// BatchSize is how many texts go to the model in one call, which
	// sorts them by length and runs them in batches of its own; zero
	// means 512.
	BatchSize int
	// Progress, when set, hears how many chunk texts this run has embedded
	// so far.
	Progress func(done int)
	// Embedded counts the texts this run actually sent to the model, and
	// EmbedTime the time the model took for them.
	Embedded  int
	EmbedTime time.Duration
	// Tokens counts the tokens of those texts, when the embedder counts
	// them (see TokenCounter).
	Tokens int64
	// Checkpoint, when set, saves the graph durably (vecstore.Save, which
	// then calls Saved): a run calls it once the embeddings it stored
	// since the graph was last saved pass CheckpointAfter, so that during
	// a long run the store holds only those, not a second copy of every
	// vector the run embedded.
	Checkpoint func(ctx context.Context) error
	// CheckpointAfter is how many stored embeddings call Checkpoint; zero
	// means half the graph's vectors, and at least 16,384.
	CheckpointAfter int

	// inserting, while the graph links in a batch of chunks in the
	// background (insert), hears how that ended.
	inserting chan error

	// cached holds the text hashes of the embeddings this run stored, or
	// added to the graph from the store, since the graph was last saved:
	// the store keeps them until a save makes the graph durable.
	cached []string
}

// Saved tells v that its graph was just saved durably at the store's
// current commit: the embeddings the store kept for it go (the graph
// file holds them now). With complete (the graph holds every chunk of the
// store), every embedding the store holds for the model goes, those left
// by a crash or by older braid versions included.
func (v *Vectors) Saved(st *index.Store, complete bool) error {
	if complete {
		if n, err := st.CountVectors(v.Model); err != nil || n == 0 {
			v.cached = nil
			return err
		}
		if _, err := st.ClearVectors(v.Model, v.Index.Len() > 0); err != nil {
			return err
		}
		v.cached = nil
		return nil
	}
	if err := st.DeleteVectors(v.Model, v.cached); err != nil {
		return err
	}
	v.cached = nil
	return nil
}

// checkpoint calls Checkpoint once enough embeddings wait in the store.
func (v *Vectors) checkpoint(ctx context.Context) error {
	after := v.CheckpointAfter
	if after <= 0 {
		after = max(16384, v.Index.Len()/2)
	}
	if v.Checkpoint == nil || len(v.cached) < after {
		return nil
	}
	return v.Checkpoint(ctx)
}

// TokenCounter is an Embedder that counts the tokens it has embedded.
type TokenCounter interface {
	Tokens() int64
}

// titles looks up a document's title and summary, once per document.
type titles func(docID string) (title, summary string, err error)

func storeTitles(st *index.Store) titles {
	type ts struct{ title, summary string }
	cache := map[string]ts{}
	return func(id string) (string, string, error) {
		if t, ok := cache[id]; ok {
			return t.title, t.summary, nil
		}
		d, err := st.Doc(id)
		if err != nil || d == nil {
			return "", "", err
		}
		t := ts{d.Title, d.Summary()}
		cache[id] = t
		return t.title, t.summary, nil
	}
}

// sync deletes removed chunks from the graph and adds new ones, embedding
// only texts it finds no vector for: in the store, or in the graph under
// an old chunk that had the same text (prev maps text hashes to the old
// chunks of the documents the commit replaced, index.Store.EmbedHashes).
// Text that moved to a document another commit wrote is embedded again.
func (v *Vectors) sync(ctx context.Context, st *index.Store, del []string, add []*index.Chunk, title titles, prev map[string]string) error {
	if err := v.add(ctx, st, add, title, prev, del); err != nil {
		return err
	}
	return v.checkpoint(ctx)
}

// inputs returns what each chunk is embedded as, and its hash.
func inputs(chunks []*index.Chunk, title titles) (texts, hashes []string, err error) {
	texts = make([]string, len(chunks))
	hashes = make([]string, len(chunks))
	for i, c := range chunks {
		t, sum, err := title(c.DocID)
		if err != nil {
			return nil, nil, err
		}
		texts[i] = index.EmbedInput(t, sum, c)
		hashes[i] = index.TextHash(texts[i])
	}
	return texts, hashes, nil
}

// add adds chunks to the graph after deleting del from it, their vectors
// from the store, from the graph (prev, see sync) or from the model; a
// vector the store did not hold is stored until the graph is saved.
func (v *Vectors) add(ctx context.Context, st *index.Store, chunks []*index.Chunk, title titles, prev map[string]string, del []string) error {
	if len(prev) > 0 || len(del) > 0 {
		// The old chunks' vectors are read from the graph, and the
		// deleted ones leave it, once the batch before is in.
		if err := v.Wait(); err != nil {
			return err
		}
	}
	if len(chunks) == 0 {
		for _, id := range del {
			v.Index.Delete(id)
		}
		return nil
	}
	in, hashes, err := inputs(chunks, title)
	if err != nil {
		return err
	}
	vecs, err := st.Vectors(v.Model, hashes)
	if err != nil {
		return err
	}
	// Text an old chunk had keeps that chunk's vector, read from the graph
	// before the old chunk leaves it.
	var keptHashes []string
	var kept [][]float32
	took := map[string]bool{}
	for i, vec := range vecs {
		old, ok := prev[hashes[i]]
		if vec != nil || !ok {
			continue
		}
		if vecs[i] = v.Index.Vector(old); vecs[i] != nil && !took[hashes[i]] {
			took[hashes[i]] = true
			keptHashes = append(keptHashes, hashes[i])
			kept = append(kept, vecs[i])
		}
	}
	for _, id := range del {
		v.Index.Delete(id)
	}
	// The store keeps them until the graph is saved, as it does the
	// model's: a crash before the save brings the graph in step from it.
	if err := st.PutVectors(v.Model, keptHashes, kept); err != nil {
		return err
	}
	// Embed each missing text once, even when several chunks share it.
	var texts, missing []string
	want := map[string]bool{}
	for i, vec := range vecs {
		if vec == nil && !want[hashes[i]] {
			want[hashes[i]] = true
			texts = append(texts, in[i])
			missing = append(missing, hashes[i])
		}
	}
	fresh := map[string][]float32{}
	size := v.BatchSize
	if size <= 0 {
		size = 512 // enough texts that sorting by length leaves little padding
	}
	tc, counts := v.Embedder.(TokenCounter)
	for start := 0; start < len(texts); start += size {
		end := min(start+size, len(texts))
		t0 := time.Now()
		var tok0 int64
		if counts {
			tok0 = tc.Tokens()
		}
		out, err := v.Embedder.Embed(ctx, texts[start:end], false)
		v.EmbedTime += time.Since(t0)
		if counts {
			v.Tokens += tc.Tokens() - tok0
		}
		if err != nil {
			return fmt.Errorf("embed chunks: %w", err)
		}
		if err := st.PutVectors(v.Model, missing[start:end], out); err != nil {
			return err
		}
		for i, vec := range out {
			fresh[missing[start+i]] = vec
		}
		v.Embedded += end - start
		if v.Progress != nil {
			v.Progress(v.Embedded)
		}
	}
	ids := make([]string, len(chunks))
	for i, c := range chunks {
		ids[i] = c.ID
		if vecs[i] == nil {
			vecs[i] = fresh[hashes[i]]
		}
	}
	if err := v.insert(ids, vecs); err != nil {
		return err
	}
	v.cached = append(v.cached, hashes...)
	return nil
}

// insert links a batch of chunks into the graph in the background, once
// the batch before it is in: the graph's inserts, most of a large run's
// work, then go on while the next batch is written to the store and the
// lexical index, and the cores do not wait for one another at each
// commit. The store keeps the batch's embeddings until the graph is
// saved, so a crash before then loses nothing (Load brings the graph in
// step). Wait waits for the batch.
func (v *Vectors) insert(ids []string, vecs [][]float32) error {
	if err := v.Wait(); err != nil {
		return err
	}
	done := make(chan error, 1)
	v.inserting = done
	go func() { done <- v.Index.AddBatch(ids, vecs) }()
	return nil
}

// Wait waits until the graph holds every chunk the run has added to it,
// and says whether the last batch failed. An index run's entry points
// (Indexer.Index, IndexPaths, RemoveSource) and Fill wait before they
// return; a caller reading the graph in between calls it first.
func (v *Vectors) Wait() error {
	if v == nil || v.inserting == nil {
		return nil
	}
	err := <-v.inserting
	v.inserting = nil
	if err != nil {
		return fmt.Errorf("add chunks to the vector index: %w", err)
	}
	return nil
}

// Fill adds to the graph every chunk of the store it lacks: after a crash,
// or when a model is set up for an index built without one. With embed it
// computes the embeddings the store does not have; without, chunks with no
// stored embedding are left out. It returns how many chunks it added and
// how many it left out.
func (v *Vectors) Fill(ctx context.Context, st *index.Store, embed bool) (added, left int, err error) {
	if err := v.Wait(); err != nil {
		return 0, 0, err
	}
	defer func() {
		if werr := v.Wait(); err == nil {
			err = werr
		}
	}()
	var ids []string
	err = st.ForEachChunkID(func(id string) error {
		if !v.Index.Has(id) {
			ids = append(ids, id)
		}
		return nil
	})
	if err != nil || len(ids) == 0 {
		return 0, 0, err
	}
	const step = 1024
	title := storeTitles(st)
	for start := 0; start < len(ids); start += step {
		chunks, err := st.Chunks(ids[start:min(start+step, len(ids))])
		if err != nil {
			return 0, 0, err
		}
		live := chunks[:0]
		for _, c := range chunks {
			if c != nil {
				live = append(live, c)
			}
		}
		n := len(live)
		if !embed {
			if live, err = v.stored(st, live, title); err != nil {
				return 0, 0, err
			}
		}
		if err := v.add(ctx, st, live, title, nil, nil); err != nil {
			return 0, 0, err
		}
		added += len(live)
		left += n - len(live)
	}
	return added, left, nil
}

// stored keeps the chunks whose embedding the store has.
func (v *Vectors) stored(st *index.Store, chunks []*index.Chunk, title titles) ([]*index.Chunk, error) {
	_, hashes, err := inputs(chunks, title)
	if err != nil {
		return nil, err
	}
	vecs, err := st.Vectors(v.Model, hashes)
	if err != nil {
		return nil, err
	}
	out := chunks[:0]
	for i, c := range chunks {
		if vecs[i] != nil {
			out = append(out, c)
		}
	}
	return out, nil
}
