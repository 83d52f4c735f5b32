package cluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/indexdir"
	"github.com/braidsearch/braid/opensearch"
	"github.com/braidsearch/braid/settings"
)

// Open opens the cluster index o names and a local copy of its documents
// and sources in a temporary folder (cfg.Index and cfg.Mirror are set
// here), and returns the retriever over both with the settings the
// cluster keeps (nil for none). With an embedder, o.Dim is the model's;
// without one the index may hold vectors of any size. Close closes both.
func Open(ctx context.Context, o opensearch.Options, cfg Config) (*Cluster, *settings.Values, error) {
	if cfg.Embedder != nil {
		o.Dim = cfg.Embedder.Dim()
	} else {
		o.AnyDim = true // a lexical reader of an index with vectors
	}
	x, err := opensearch.Open(ctx, o)
	if errors.Is(err, opensearch.ErrReindexNeeded) && cfg.Embedder != nil {
		return nil, nil, fmt.Errorf("%w (the embedding model in use, %s, makes %d-dimensional vectors: search with the model the index was built with, or use another Backend.Index)", err, cfg.Model, o.Dim)
	}
	if err != nil {
		return nil, nil, err
	}
	tmp, err := os.MkdirTemp("", "braid-cluster-")
	if err != nil {
		x.Close()
		return nil, nil, err
	}
	st, err := index.OpenStore(filepath.Join(tmp, indexdir.StoreFile), false)
	if err != nil {
		x.Close()
		os.RemoveAll(tmp)
		return nil, nil, err
	}
	cfg.Index, cfg.Mirror = x, st
	c, saved, err := New(ctx, cfg)
	if err != nil {
		st.Close()
		x.Close()
		os.RemoveAll(tmp)
		return nil, nil, err
	}
	c.tmp = tmp
	return c, saved, nil
}

// Dir is the temporary folder of the local copy (Open).
func (c *Cluster) Dir() string { return c.tmp }

// Remote is the cluster's index, for what the retriever does not cover
// (file hashes, source deletion, metadata).
func (c *Cluster) Remote() *opensearch.Index { return c.x }

// Close closes the cluster index and the local copy Open opened, and
// removes the copy's folder.
func (c *Cluster) Close() error {
	c.x.Close()
	err := c.cfg.Mirror.Close()
	if c.tmp != "" {
		os.RemoveAll(c.tmp)
	}
	return err
}

// Mirror is the local copy of the cluster's documents and sources.
func (c *Cluster) Mirror() *index.Store { return c.cfg.Mirror }
