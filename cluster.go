package braid

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/braidsearch/braid/cluster"
	"github.com/braidsearch/braid/doctor"
	"github.com/braidsearch/braid/notes"
	"github.com/braidsearch/braid/opensearch"
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
	// Mirror is a folder where the engine keeps its local copy of the
	// cluster's document records across runs (one folder per cluster
	// index), so that a new process reads only what changed since the
	// last one; empty means a temporary copy, read in full at the first
	// call that needs it.
	Mirror string
	// Timeout bounds every request to the cluster; zero means 2 minutes
	// per request (a bulk write of a batch on a busy cluster may take
	// that long) and 30 s for the first, which checks the cluster answers.
	Timeout time.Duration
}

// openCluster opens an engine on opt.Backend (cluster.Open). The
// directory is not used.
func openCluster(opt Options) (*Engine, error) {
	if opt.Embedder != nil && opt.Model == "" {
		return nil, fmt.Errorf("%w: an embedder needs a model name", ErrBadOption)
	}
	b := opt.Backend
	e := &Engine{opt: opt, settings: &Settings{}}
	c, saved, err := cluster.Open(context.Background(), opensearch.Options{URL: b.URL, Index: b.Index, Shards: b.Shards, Replicas: b.Replicas, Timeout: b.Timeout},
		cluster.Config{URL: b.URL, MirrorDir: b.Mirror, Model: opt.Model, Embedder: opt.Embedder, NoVectors: e.noVectors(), Workers: opt.Workers, BatchDocs: opt.BatchDocs})
	if err != nil {
		return nil, err
	}
	if saved != nil {
		e.settings = saved
	}
	e.cl, e.ret, e.st = c, c, c.Mirror()
	e.docs = e.newStore()
	e.sess = e.newSessions()
	e.nt = notes.NewReader(e.st, doctor.Blobs(c.Dir()), notes.Config{Sync: e.mirrored, Chunks: e.chunks, Sources: c.Sources,
		EmbeddedOnly: e.embeddedOnly, ReadStored: e.docs.Read, StoreSource: e.docs.Source,
		StoreFiles: e.docs.Files})
	return e, nil
}

// embeddedOnly is the error of an operation the cluster backend lacks,
// with why where it is one docs/opensearch.md names.
func (e *Engine) embeddedOnly(what string) error {
	if e.cl == nil {
		return nil
	}
	why := ""
	switch {
	case what == "gaps":
		why = " (it averages each document's chunk vectors, and the cluster keeps vectors only in its k-NN graph, out of _source, so braid cannot read them back)"
	case strings.HasPrefix(what, "the document store") || slices.Contains([]string{"versions", "diff", "collections", "snapshots", "restore"}, what) || strings.HasPrefix(what, "a metadata filter"):
		why = " (the document store keeps documents, versions and metadata in an index directory's blobs and store, and a cluster index has no directory that every braid on it shares)"
	}
	return fmt.Errorf("%w: %s works on the embedded index only%s, and this engine uses the OpenSearch index %s at %s; run it on an index directory, without Options.Backend", ErrBackend, what, why, e.cl.Remote().Name(), e.opt.Backend.URL)
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
func (e *Engine) chunkByID(ctx context.Context, id string) (*Chunk, error) {
	cs, err := e.chunks(ctx, []string{id})
	if err != nil {
		return nil, err
	}
	return cs[0], nil
}

// mirrored brings an engine on the cluster backend's local copy of the
// cluster's documents and sources (e.st) up to date, so that the link
// graph, ls, tree, find, document lookup and get read them as they read an
// embedded index's (cluster.Cluster.Sync); it does nothing for the
// embedded index.
func (e *Engine) mirrored() error {
	if e.cl == nil {
		return nil
	}
	return e.cl.Sync(context.Background())
}

// clusterStats counts the cluster index's chunks and documents.
func (e *Engine) clusterStats(ctx context.Context, srcs []*Source) (*Stats, error) {
	chunks, docs, err := e.cl.Count(ctx)
	if err != nil {
		return nil, err
	}
	st := &Stats{Backend: strings.TrimSuffix(e.opt.Backend.URL, "/") + "/" + e.cl.Remote().Name(), Documents: docs, Chunks: chunks, SchemaVersion: opensearch.MappingVersion, Sources: []SourceStats{}, Settings: e.Config().List()}
	for _, s := range srcs {
		st.Sources = append(st.Sources, SourceStats{ID: s.ID, Name: s.Name, Path: s.Path, Kind: string(s.Kind), IndexedAt: s.IndexedAt})
	}
	return st, nil
}

// clusterDoctor checks the cluster side (cluster.Cluster.Doctor).
func (e *Engine) clusterDoctor(ctx context.Context) ([]Check, error) {
	found, err := e.cl.Doctor(ctx)
	if err != nil {
		return nil, err
	}
	checks := make([]Check, len(found))
	for i, f := range found {
		checks[i] = Check{Name: f.Name, OK: f.OK, Detail: f.Detail, Warning: f.Warning}
	}
	return checks, nil
}
