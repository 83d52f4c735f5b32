package braid

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/braidsearch/braid/fusion"
	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/notes"
	"github.com/braidsearch/braid/opensearch"
	"github.com/braidsearch/braid/settings"
)

// Backend says where an engine keeps its index. The zero value is the
// embedded index in the engine's directory.
type Backend struct {
	// URL is the HTTP address of one node of an OpenSearch cluster (for
	// example http://127.0.0.1:9200); empty means the embedded index.
	URL string
	// Index names the cluster's chunk index (the file hashes and source
	// records go beside it under the same prefix); empty means "braid".
	Index string
	// Shards and Replicas shape a new index; zero means 1 shard and no
	// replica. An existing index keeps its own.
	Shards, Replicas int
	// Timeout bounds every request to the cluster; zero means 10 s.
	Timeout time.Duration
}

// cluster is the retriever of an engine whose index lives in OpenSearch.
// Searches, index runs and source lists read and write the cluster only,
// so several braid processes on several machines can share one index.
type cluster struct {
	e *Engine
	x *opensearch.Index

	mu      sync.Mutex // serialises sync
	version string     // of the cluster index the local copy (e.st) was brought to
	tmp     string     // the local copy's directory
	// model is the embedding model of the cluster's vectors ("" before the
	// first): set by an index run while searches read it.
	model atomic.Pointer[string]
}

// openCluster opens an engine on opt.Backend. The directory is not used.
func openCluster(opt Options) (*Engine, error) {
	if opt.Embedder != nil && opt.Model == "" {
		return nil, fmt.Errorf("%w: an embedder needs a model name", ErrBadOption)
	}
	ctx := context.Background()
	b := opt.Backend
	o := opensearch.Options{URL: b.URL, Index: b.Index, Shards: b.Shards, Replicas: b.Replicas, Timeout: b.Timeout}
	if opt.Embedder != nil {
		o.Dim = opt.Embedder.Dim()
	} else {
		o.AnyDim = true // a lexical reader of an index with vectors
	}
	x, err := opensearch.Open(ctx, o)
	if errors.Is(err, opensearch.ErrReindexNeeded) && opt.Embedder != nil {
		return nil, fmt.Errorf("%w (the embedding model in use, %s, makes %d-dimensional vectors: search with the model the index was built with, or use another Backend.Index)", err, opt.Model, o.Dim)
	}
	if err != nil {
		return nil, err
	}
	c := &cluster{x: x}
	e := &Engine{opt: opt, settings: &Settings{}}
	if err := c.readMeta(ctx, e); err != nil {
		x.Close()
		return nil, err
	}
	if c.tmp, err = os.MkdirTemp("", "braid-cluster-"); err != nil {
		x.Close()
		return nil, err
	}
	if e.st, err = index.OpenStore(filepath.Join(c.tmp, storeFile), false); err != nil {
		x.Close()
		os.RemoveAll(c.tmp)
		return nil, err
	}
	c.e, e.cl, e.ret = e, c, c
	e.docs = e.newStore()
	e.nt = notes.NewReader(e.st, blobsIn(c.tmp), notes.Config{Sync: e.mirrored, Chunks: e.chunks, Sources: c.Sources,
		EmbeddedOnly: e.embeddedOnly, ReadStored: e.docs.Read, StoreSource: e.docs.Source})
	return e, nil
}

// readMeta reads what the cluster index keeps beside its chunks: the
// search settings (into e.settings) and the embedding model its vectors
// were made with.
func (c *cluster) readMeta(ctx context.Context, e *Engine) error {
	meta, err := c.x.Meta(ctx)
	if err != nil {
		return err
	}
	if raw := meta["settings"]; len(raw) > 0 {
		if e.settings, err = settings.Parse(raw, "the settings of the cluster index "+c.x.Name(), "set them again with braid config set"); err != nil {
			return err
		}
	}
	if raw := meta["model"]; len(raw) > 0 {
		var m string
		if err := json.Unmarshal(raw, &m); err != nil {
			return fmt.Errorf("braid: the model name in the cluster index %s is damaged (%v); index it again", c.x.Name(), err)
		}
		c.model.Store(&m)
	}
	return nil
}

// modelName is the model of the cluster's vectors, "" before the first.
func (c *cluster) modelName() string {
	if m := c.model.Load(); m != nil {
		return *m
	}
	return ""
}

// otherModel is the model the cluster's vectors were made with when it is
// not the engine's, else "".
func (c *cluster) otherModel() string {
	if m := c.modelName(); m != "" && m != c.e.opt.Model {
		return m
	}
	return ""
}

// claimModel records the engine's model as the one the cluster's vectors
// are made with, before the first are sent; an index run with another
// model is refused, and one with none may remove chunks from an index with
// vectors but not add any: one index never mixes vectors of two models or
// chunks without a vector.
func (c *cluster) claimModel(ctx context.Context) error {
	want := c.e.opt.Model
	have := c.modelName()
	switch {
	case c.e.opt.Embedder == nil:
		return nil // checked per batch: removals need no model (clusterTarget.docs)
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
		return fmt.Errorf("%w: the cluster index %s holds embeddings of %s, not of the model in use, %s: index with %s, or into another Backend.Index", ErrBadOption, c.x.Name(), have, want, have)
	}
	return nil
}

// embeddedOnly is the error of an operation the cluster backend lacks.
func (e *Engine) embeddedOnly(what string) error {
	if e.cl == nil {
		return nil
	}
	return fmt.Errorf("%w: %s works on the embedded index only, and this engine uses the OpenSearch index %s at %s; run it on an index directory, without Options.Backend", ErrBackend, what, e.cl.x.Name(), e.opt.Backend.URL)
}

// filter is req's filters in the cluster's terms; ok is false when they
// keep nothing (a metadata filter that matched no document).
func clusterFilter(req index.Request) (f opensearch.Filter, ok bool) {
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

func (c *cluster) Lexical(ctx context.Context, req index.Request) ([]index.Candidate, int, error) {
	f, ok := clusterFilter(req)
	if !ok {
		return nil, 0, nil
	}
	q := opensearch.LexQuery{Terms: strings.Join(req.Query.Terms, " "), Phrases: req.Query.Phrases, Excluded: req.Query.Excluded, Fuzziness: req.Fuzziness}
	hits, total, err := c.x.Lexical(ctx, q, f, req.Size)
	if errors.Is(err, opensearch.ErrEmptyQuery) {
		return nil, 0, ErrEmptyQuery
	}
	if err != nil {
		return nil, 0, err
	}
	out := make([]index.Candidate, len(hits))
	for i, h := range hits {
		out[i] = index.Candidate{ChunkID: h.ChunkID, Score: h.Score, Terms: h.Terms}
	}
	return out, total, nil
}

func (c *cluster) Vector(ctx context.Context, qv []float32, k int, req index.Request) ([]fusion.Candidate, error) {
	f, ok := clusterFilter(req)
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

func (c *cluster) Read(ctx context.Context, ids []string) ([]*Chunk, []*Document, error) {
	got, err := c.x.Chunks(ctx, ids)
	if err != nil {
		return nil, nil, err
	}
	chunks := make([]*Chunk, len(got))
	docs := make([]*Document, len(got))
	for i, d := range got {
		if d == nil {
			continue
		}
		chunks[i] = &Chunk{ID: d.ChunkID, DocID: d.DocID, Ord: d.Ord, Text: d.Text, HeadingPath: d.HeadingPath, StartLine: d.StartLine, EndLine: d.EndLine}
		docs[i] = &Document{ID: d.DocID, SourceID: d.Source, Path: d.Path, Kind: index.DocKind(d.Kind), Title: d.DocTitle, Hash: d.DocHash, Lines: d.Lines, Aliases: d.Aliases, Tags: d.Tags}
	}
	return chunks, docs, nil
}

// backlinks counts from the link graph of the local copy of the
// documents, brought up to date first.
func (c *cluster) Backlinks(ctx context.Context, docIDs []string) (map[string]int, error) {
	if err := c.sync(ctx); err != nil {
		return nil, err
	}
	return local{c.e}.Backlinks(ctx, docIDs)
}

func (c *cluster) Sources(ctx context.Context) ([]*Source, error) {
	recs, err := c.x.Sources(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]*Source, 0, len(recs))
	for id, r := range recs {
		s := &Source{}
		if err := json.Unmarshal(r, s); err != nil {
			return nil, fmt.Errorf("braid: source record %s in the cluster is damaged (%v); braid sources rm %s, then index it again", id, err, id)
		}
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b *Source) int { return cmp.Compare(a.ID, b.ID) })
	return out, nil
}

// stats counts the cluster index's chunks and documents.
func (c *cluster) stats(srcs []*Source) (*Stats, error) {
	chunks, docs, err := c.x.Count(context.Background())
	if err != nil {
		return nil, err
	}
	st := &Stats{Backend: strings.TrimSuffix(c.e.opt.Backend.URL, "/") + "/" + c.x.Name(), Documents: docs, Chunks: chunks, SchemaVersion: opensearch.MappingVersion, Sources: []SourceStats{}, Settings: c.e.Config().List()}
	for _, s := range srcs {
		st.Sources = append(st.Sources, SourceStats{ID: s.ID, Name: s.Name, Path: s.Path, Kind: string(s.Kind), IndexedAt: s.IndexedAt})
	}
	return st, nil
}

// index runs an index of sources into the cluster: braid walks, parses,
// chunks and embeds here, and the cluster takes each batch.
func (c *cluster) index(ctx context.Context, sources []*Source, force map[string]bool, progress func(Progress), sum *Summary) error {
	if err := c.claimModel(ctx); err != nil {
		return err
	}
	t := &clusterTarget{c: c, known: map[string]sourcePath{}}
	ix := &index.Indexer{Remote: t, Opt: index.Options{Workers: c.e.opt.Workers, BatchDocs: c.e.opt.BatchDocs}, Progress: progress}
	if progress != nil {
		t.progress = func(done int) { progress(Progress{Source: "embeddings", Phase: "embed", Done: done}) }
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
	if runErr != nil && ctx.Err() == nil && !errors.Is(runErr, ErrBadOption) {
		runErr = fmt.Errorf("%w; what reached the cluster is consistent: once %s answers, the next index run sends the rest", runErr, c.e.opt.Backend.URL)
	}
	return runErr
}

func (c *cluster) putSource(ctx context.Context, src *Source) error {
	rec, err := json.Marshal(src)
	if err != nil {
		return err
	}
	return c.x.PutSource(ctx, src.ID, rec)
}

// clusterTarget takes an index run's changes into the cluster. A file's
// hash is recorded only after its chunks are in, so a run that stops part
// way (the cluster lost, an interrupt) leaves the file to the next run,
// which removes whatever part of it got in and sends it again.
type clusterTarget struct {
	c        *cluster
	known    map[string]sourcePath // by document ID: the files Entries read
	rejected []FileError           // chunks the cluster refused, by file
	progress func(done int)

	embedded  int
	embedTime time.Duration
	tokens    int64
}

// sourcePath is where a document's file hash is recorded.
type sourcePath struct{ source, path string }

// Entries reads the file hashes of a source. Each is kept as "hash docID"
// so that a vanished file's chunks can be found to delete.
func (t *clusterTarget) Entries(ctx context.Context, sourceID string) (map[string]index.Entry, error) {
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

func (t *clusterTarget) Commit(ctx context.Context, changes []index.Change) error {
	x := t.c.x
	var gone []string // documents whose old chunks go first
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
		}
	}
	// Embed first: the old chunks go only once the new ones are ready,
	// so a refused or failed batch leaves the documents as they were.
	docs, err := t.docs(ctx, changes)
	if err != nil {
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
			t.rejected = append(t.rejected, FileError{Path: d.Path, Err: fmt.Sprintf("the cluster refused chunk %s: %s", it.ID, it.Reason)})
		}
		if len(failed) > 0 {
			// Leave no part of a refused document behind.
			ids := make([]string, 0, len(failed))
			for id := range failed {
				ids = append(ids, id)
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
func (t *clusterTarget) docs(ctx context.Context, changes []index.Change) ([]opensearch.Doc, error) {
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
		for i := range ch.Chunks {
			c := &ch.Chunks[i]
			heads := strings.Join(c.HeadingPath, " / ")
			title := d.Title + "\n" + strings.TrimSuffix(d.Path, path.Ext(d.Path))
			if d.Kind == index.KindBEIR {
				title = "" // a record's title is a sentence of it, not a name (index/lexical.go)
			}
			out = append(out, opensearch.Doc{
				ChunkID: c.ID, DocID: d.ID, Source: d.SourceID, Path: d.Path, Title: title, DocTitle: d.Title,
				Headings: heads, Content: d.Title + "\n" + heads + "\n" + c.Text, Text: c.Text,
				HeadingPath: c.HeadingPath, Tags: tags, Ord: c.Ord, StartLine: c.StartLine, EndLine: c.EndLine,
				DocHash: d.Hash, Kind: string(d.Kind), Aliases: d.Aliases, Lines: d.Lines,
			})
			if c.Ord == 0 {
				out[len(out)-1].Record = record
			}
			texts = append(texts, index.EmbedInput(d.Title, c))
		}
	}
	em := t.c.e.opt.Embedder
	if m := t.c.modelName(); em == nil && len(texts) > 0 && m != "" {
		return nil, fmt.Errorf("%w: the cluster index %s holds embeddings of %s, and this engine has no embedding model (%s): index with %s, so that no chunk goes in without its vector", ErrBadOption, t.c.x.Name(), m, t.c.e.noVectors(), m)
	}
	if em == nil || len(texts) == 0 {
		return out, nil
	}
	tc, counts := em.(index.TokenCounter)
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

// chunks reads chunks with their text, in the order of ids, nil for one
// that is gone: from the store (without decoding their documents), or on
// the cluster backend from the cluster (the local copy holds no chunk
// text).
func (e *Engine) chunks(ctx context.Context, ids []string) ([]*Chunk, error) {
	if e.cl == nil {
		return e.st.Chunks(ids)
	}
	cs, _, err := e.ret.Read(ctx, ids)
	return cs, err
}

// chunkByID reads one chunk with its text, or nil when there is none.
func (e *Engine) chunkByID(id string) (*Chunk, error) {
	cs, err := e.chunks(context.Background(), []string{id})
	if err != nil {
		return nil, err
	}
	return cs[0], nil
}

// mirrored brings an engine on the cluster backend's local copy of the
// cluster's documents and sources (e.st) up to date, so that the link
// graph, ls, tree, find, document lookup and get read them as they read an
// embedded index's; it does nothing for the embedded index. The copy is a
// bbolt store in a temporary directory, refreshed only when the cluster's
// index has changed since (opensearch.Index.Version), from the document
// record each first chunk carries. Reading every record takes one request
// per 500 documents: right for knowledge bases of thousands of documents,
// not millions.
func (e *Engine) mirrored() error {
	if e.cl == nil {
		return nil
	}
	return e.cl.sync(context.Background())
}

func (c *cluster) sync(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, err := c.x.Version(ctx)
	if err != nil || v == c.version {
		return err
	}
	st := c.e.st
	srcs, err := c.Sources(ctx)
	if err != nil {
		return err
	}
	have, err := st.Sources()
	if err != nil {
		return err
	}
	known := map[string]string{} // document ID → content hash, in the copy
	for _, s := range have {
		entries, err := st.Entries(s.ID)
		if err != nil {
			return err
		}
		for _, en := range entries {
			known[en.DocID] = en.Hash
		}
	}
	for _, s := range srcs {
		if err := st.PutSource(s); err != nil {
			return err
		}
	}
	var changes []index.Change
	commit := func() error {
		if len(changes) == 0 {
			return nil
		}
		p, err := st.Commit(changes)
		if err != nil {
			return err
		}
		changes = changes[:0]
		return st.ClearPending(p.Gen)
	}
	seen := map[string]bool{}
	err = c.x.Records(ctx, func(id string, rec json.RawMessage) error {
		seen[id] = true
		d := &Document{}
		if err := json.Unmarshal(rec, d); err != nil {
			return fmt.Errorf("braid: the record of document %s in the cluster is damaged (%v); index its source again", id, err)
		}
		if h, ok := known[id]; ok && h == d.Hash {
			return nil
		}
		stubs := make([]Chunk, len(d.ChunkIDs))
		for i, cid := range d.ChunkIDs {
			stubs[i] = Chunk{ID: cid, DocID: d.ID, Ord: i}
		}
		changes = append(changes, index.Change{Doc: d, Chunks: stubs})
		if len(changes) == 256 {
			return commit()
		}
		return nil
	})
	if err != nil {
		return err
	}
	for id := range known {
		if !seen[id] {
			changes = append(changes, index.Change{DeleteID: id})
		}
	}
	if err := commit(); err != nil {
		return err
	}
	live := map[string]bool{}
	for _, s := range srcs {
		live[s.ID] = true
	}
	for _, s := range have {
		if !live[s.ID] {
			if err := st.DeleteSourceRecord(s.ID); err != nil {
				return err
			}
		}
	}
	c.version = v
	return nil
}

// doctor checks the cluster side: the cluster's health for the index, its
// mapping (Open checked the version), the model of its vectors against the
// engine's, and what it holds.
func (c *cluster) doctor(ctx context.Context) ([]Check, error) {
	h, err := c.x.Health(ctx)
	if err != nil {
		return nil, err
	}
	health := Check{Name: "cluster", OK: h.Status != "red", Detail: fmt.Sprintf("%s: %s, %d node(s), index %s", c.e.opt.Backend.URL, h.Status, h.Nodes, c.x.Name())}
	switch h.Status {
	case "yellow":
		health.Warning = true
		health.Detail += fmt.Sprintf("; %d replica shard(s) unassigned: fewer nodes than replicas need, so losing a node may lose data (add nodes, or set the index's replicas lower)", h.Unassigned)
	case "red":
		health.Detail += fmt.Sprintf("; %d shard(s) unassigned: some chunks cannot be searched until the nodes holding them return", h.Unassigned)
	}
	checks := []Check{health, {Name: "mapping", OK: true, Detail: fmt.Sprintf("braid mapping version %d", opensearch.MappingVersion)}}
	model := Check{Name: "embeddings", OK: true}
	switch m := c.modelName(); {
	case m == "":
		model.Detail, model.Warning = "the index holds no vectors yet: search is BM25 only until an index run with a model", true
	case c.otherModel() != "":
		model.Detail, model.Warning = fmt.Sprintf("the index's vectors are of %s, not of the model in use, %s: searches run BM25 only", m, c.e.opt.Model), true
	default:
		model.Detail = "vectors of " + m
	}
	chunks, docs, err := c.x.Count(ctx)
	if err != nil {
		return nil, err
	}
	srcs, err := c.Sources(ctx)
	if err != nil {
		return nil, err
	}
	return append(checks, model, Check{Name: "contents", OK: true, Detail: fmt.Sprintf("%d documents, %d chunks, %d source(s)", docs, chunks, len(srcs))}), nil
}
