package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/ingest"
	"github.com/braidsearch/braid/lexical"
	"github.com/braidsearch/braid/opensearch"
)

// Index runs an index of sources into the cluster: braid walks, parses,
// chunks and embeds here, and the cluster takes each batch. force names
// the sources whose files are read again whether or not they changed.
func (c *Cluster) Index(ctx context.Context, sources []*index.Source, force map[string]bool, progress func(ingest.Progress), sum *ingest.Summary) error {
	if err := c.claimModel(ctx); err != nil {
		return err
	}
	t := &target{c: c, known: map[string]sourcePath{}}
	ix := &ingest.Indexer{Remote: t, Opt: ingest.Options{Workers: c.cfg.Workers, BatchDocs: c.cfg.BatchDocs}, Progress: progress}
	if progress != nil {
		t.progress = func(done int) { progress(ingest.Progress{Source: "embeddings", Phase: "embed", Done: done}) }
	}
	var runErr error
	for _, src := range sources {
		// Registered first, so that a run the cluster's loss interrupts
		// is finished by a plain braid index.
		if runErr = c.putSource(ctx, src); runErr != nil {
			break
		}
		ix.Force = force[src.ID]
		if runErr = ix.Index(ctx, src, sum); runErr != nil {
			break
		}
		if runErr = c.putSource(ctx, src); runErr != nil {
			break
		}
	}
	sum.Errors = append(sum.Errors, t.rejected...)
	sum.Embedded, sum.EmbedMS, sum.Tokens = t.embedded, t.embedTime.Milliseconds(), t.tokens
	if err := c.x.Refresh(ctx); err != nil && runErr == nil {
		runErr = err
	}
	if runErr != nil && ctx.Err() == nil && !errors.Is(runErr, index.ErrBadOption) {
		runErr = fmt.Errorf("%w; what reached the cluster is consistent: once %s answers, the next index run sends the rest", runErr, c.cfg.URL)
	}
	return runErr
}

func (c *Cluster) putSource(ctx context.Context, src *index.Source) error {
	rec, err := json.Marshal(src)
	if err != nil {
		return err
	}
	return c.x.PutSource(ctx, src.ID, rec)
}

// target takes an index run's changes into the cluster. A file's
// hash is recorded only after its chunks are in, so a run that stops part
// way (the cluster lost, an interrupt) leaves the file to the next run,
// which removes whatever part of it got in and sends it again.
type target struct {
	c        *Cluster
	known    map[string]sourcePath // by document ID: the files Entries read
	rejected []ingest.FileError    // chunks the cluster refused, by file
	progress func(done int)

	embedded  int
	embedTime time.Duration
	tokens    int64
}

// sourcePath is where a document's file hash is recorded.
type sourcePath struct{ source, path string }

// Entries reads the file hashes of a source. Each is kept as "hash docID"
// so that a vanished file's chunks can be found to delete.
func (t *target) Entries(ctx context.Context, sourceID string) (map[string]index.Entry, error) {
	hashes, err := t.c.x.FileHashes(ctx, sourceID)
	if err != nil {
		return nil, err
	}
	out := make(map[string]index.Entry, len(hashes))
	for p, v := range hashes {
		h, id, _ := strings.Cut(v, " ")
		out[p] = index.Entry{Path: p, DocID: id, Hash: h}
		t.known[id] = sourcePath{sourceID, p}
	}
	return out, nil
}

func (t *target) Commit(ctx context.Context, changes []index.Change) error {
	x := t.c.x
	var gone []string    // documents whose old chunks go first
	var removed []string // documents that go for good
	set := map[string]map[string]string{}
	remove := map[string][]string{}
	for _, ch := range changes {
		if ch.Doc != nil {
			gone = append(gone, ch.Doc.ID)
			if set[ch.Doc.SourceID] == nil {
				set[ch.Doc.SourceID] = map[string]string{}
			}
			set[ch.Doc.SourceID][ch.Doc.Path] = ch.Doc.Hash + " " + ch.Doc.ID
		} else if ch.DeleteID != "" {
			gone = append(gone, ch.DeleteID)
			removed = append(removed, ch.DeleteID)
		}
	}
	// Embed first: the old chunks go only once the new ones are ready,
	// so a refused or failed batch leaves the documents as they were.
	docs, err := t.docs(ctx, changes)
	if err != nil {
		return err
	}
	// The generation is taken once the batch is ready to send, so that
	// the time between a generation and its writes being seen is short
	// (a reader that passed it meanwhile reads everything again:
	// Cluster.Sync).
	gen, err := x.NextGen(ctx)
	if err != nil {
		return err
	}
	for i := range docs {
		docs[i].Gen = gen
	}
	if err := x.Gone(ctx, gen, removed); err != nil {
		return err
	}
	if err := x.DeleteDocs(ctx, gone); err != nil {
		return err
	}
	failed := map[string]bool{} // documents with a refused chunk: not recorded, so the next run tries again
	if err := x.Put(ctx, docs); err != nil {
		var be *opensearch.BulkError
		if !errors.As(err, &be) {
			return err
		}
		byChunk := map[string]*opensearch.Doc{}
		for i := range docs {
			byChunk[docs[i].ChunkID] = &docs[i]
		}
		for _, it := range be.Items {
			d := byChunk[it.ID]
			if d == nil || failed[d.DocID] {
				continue
			}
			failed[d.DocID] = true
			t.rejected = append(t.rejected, ingest.FileError{Path: d.Path, Err: fmt.Sprintf("the cluster refused chunk %s: %s", it.ID, it.Reason)})
		}
		if len(failed) > 0 {
			// Leave no part of a refused document behind.
			ids := make([]string, 0, len(failed))
			for id := range failed {
				ids = append(ids, id)
			}
			if err := x.Gone(ctx, gen, ids); err != nil {
				return err
			}
			if err := x.DeleteDocs(ctx, ids); err != nil {
				return err
			}
		}
	}
	for _, ch := range changes {
		switch {
		case ch.Doc != nil && failed[ch.Doc.ID]:
			delete(set[ch.Doc.SourceID], ch.Doc.Path)
			remove[ch.Doc.SourceID] = append(remove[ch.Doc.SourceID], ch.Doc.Path)
		case ch.Doc == nil && ch.DeleteID != "":
			if k, ok := t.known[ch.DeleteID]; ok {
				remove[k.source] = append(remove[k.source], k.path)
			}
		}
	}
	for src, paths := range set {
		if err := x.SetFileHashes(ctx, src, paths, remove[src]); err != nil {
			return err
		}
		delete(remove, src)
	}
	for src, paths := range remove {
		if err := x.SetFileHashes(ctx, src, nil, paths); err != nil {
			return err
		}
	}
	return nil
}

// docs turns the changes' chunks into the cluster's documents, with their
// embeddings when the engine has a model.
func (t *target) docs(ctx context.Context, changes []index.Change) ([]opensearch.Doc, error) {
	var out []opensearch.Doc
	var texts []string
	for _, ch := range changes {
		d := ch.Doc
		if d == nil {
			continue
		}
		tags := make([]string, len(d.Tags))
		for i, tg := range d.Tags {
			tags[i] = normTag(tg)
		}
		rec := *d
		rec.ChunkIDs = make([]string, len(ch.Chunks))
		for i := range ch.Chunks {
			rec.ChunkIDs[i] = ch.Chunks[i].ID
		}
		record, err := json.Marshal(&rec)
		if err != nil {
			return nil, fmt.Errorf("encode document %s: %w", d.Path, err)
		}
		sum := d.Summary()
		title := lexical.TitleText(d.Title, d.Path, sum, d.Kind == index.KindBEIR) // as the embedded index's
		for i := range ch.Chunks {
			c := &ch.Chunks[i]
			heads := strings.Join(c.HeadingPath, " / ")
			out = append(out, opensearch.Doc{
				ChunkID: c.ID, DocID: d.ID, Source: d.SourceID, Path: d.Path, Title: title, DocTitle: d.Title,
				Headings: heads, Content: lexical.ContentText(d.Title, sum, heads, c.Lexical()), Text: c.Text,
				HeadingPath: c.HeadingPath, Tags: tags, Ord: c.Ord, StartLine: c.StartLine, EndLine: c.EndLine,
				DocHash: d.Hash, Kind: string(d.Kind), Aliases: d.Aliases, Lines: d.Lines,
			})
			if c.Ord == 0 {
				out[len(out)-1].Record = record
			}
			texts = append(texts, index.EmbedInput(d.Title, sum, c))
		}
	}
	em := t.c.cfg.Embedder
	if m := t.c.ModelName(); em == nil && len(texts) > 0 && m != "" {
		return nil, fmt.Errorf("%w: the cluster index %s holds embeddings of %s, and this engine has no embedding model (%s): index with %s, so that no chunk goes in without its vector", index.ErrBadOption, t.c.x.Name(), m, t.c.cfg.NoVectors, m)
	}
	if em == nil || len(texts) == 0 {
		return out, nil
	}
	tc, counts := em.(ingest.TokenCounter)
	var tok0 int64
	if counts {
		tok0 = tc.Tokens()
	}
	start := time.Now()
	vecs, err := em.Embed(ctx, texts, false)
	t.embedTime += time.Since(start)
	if counts {
		t.tokens += tc.Tokens() - tok0
	}
	if err != nil {
		return nil, fmt.Errorf("embed chunks: %w", err)
	}
	for i := range out {
		out[i].Vector = vecs[i]
	}
	t.embedded += len(texts)
	if t.progress != nil {
		t.progress(t.embedded)
	}
	return out, nil
}
