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
// only texts the store has no vector for.
func (v *Vectors) sync(ctx context.Context, st *index.Store, del []string, add []*index.Chunk, title titles) error {
	for _, id := range del {
		v.Index.Delete(id)
	}
	return v.add(ctx, st, add, title)
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

func (v *Vectors) add(ctx context.Context, st *index.Store, chunks []*index.Chunk, title titles) error {
	if len(chunks) == 0 {
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
	if err := v.Index.AddBatch(ids, vecs); err != nil {
		return fmt.Errorf("add chunks to the vector index: %w", err)
	}
	return nil
}

// Fill adds to the graph every chunk of the store it lacks: after a crash,
// or when a model is set up for an index built without one. With embed it
// computes the embeddings the store does not have; without, chunks with no
// stored embedding are left out. It returns how many chunks it added.
func (v *Vectors) Fill(ctx context.Context, st *index.Store, embed bool) (int, error) {
	var ids []string
	err := st.ForEachChunkID(func(id string) error {
		if !v.Index.Has(id) {
			ids = append(ids, id)
		}
		return nil
	})
	if err != nil || len(ids) == 0 {
		return 0, err
	}
	const step = 1024
	added := 0
	title := storeTitles(st)
	for start := 0; start < len(ids); start += step {
		chunks, err := st.Chunks(ids[start:min(start+step, len(ids))])
		if err != nil {
			return 0, err
		}
		live := chunks[:0]
		for _, c := range chunks {
			if c != nil {
				live = append(live, c)
			}
		}
		if !embed {
			if live, err = v.stored(st, live, title); err != nil {
				return 0, err
			}
		}
		if err := v.add(ctx, st, live, title); err != nil {
			return 0, err
		}
		added += len(live)
	}
	return added, nil
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

// Prune deletes the model's stored embeddings that no chunk's text needs
// any more, and returns how many went.
func (v *Vectors) Prune(st *index.Store) (int, error) {
	docTitle, docSummary := map[string]string{}, map[string]string{}
	err := st.ForEachDoc(func(d *index.Document) error {
		docTitle[d.ID] = d.Title
		if sum := d.Summary(); sum != "" {
			docSummary[d.ID] = sum
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	live := map[string]bool{}
	err = st.ForEachChunk(func(c *index.Chunk) error {
		live[index.TextHash(index.EmbedInput(docTitle[c.DocID], docSummary[c.DocID], c))] = true
		return nil
	})
	if err != nil {
		return 0, err
	}
	return st.PruneVectors(v.Model, live)
}
