package cluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/indexdir"
	"github.com/braidsearch/braid/opensearch"
	"github.com/braidsearch/braid/settings"
	"golang.org/x/sys/unix"
)

// Open opens the cluster index o names and a local copy of its documents
// and sources (cfg.Index and cfg.Mirror are set here), and returns the
// retriever over both with the settings the cluster keeps (nil for
// none). The copy is kept in cfg.MirrorDir, in a folder named by the
// index's UUID, so that the next Open there starts where this one left
// (Sync reads only what changed since), unless another process holds
// that folder or cfg.MirrorDir is empty: then it lives in a temporary
// folder Close removes. With an embedder, o.Dim is the model's; without
// one the index may hold vectors of any size. Close closes both.
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
	m, err := openMirror(ctx, x, cfg.MirrorDir)
	if err != nil {
		x.Close()
		return nil, nil, err
	}
	cfg.Index, cfg.Mirror = x, m.st
	c, saved, err := New(ctx, cfg)
	if err != nil {
		m.close()
		x.Close()
		return nil, nil, err
	}
	c.m = m
	if err := c.loadState(); err != nil {
		c.Close()
		return nil, nil, err
	}
	return c, saved, nil
}

// mirrorDir is the folder of a Cluster's local copy.
type mirrorDir struct {
	st   *index.Store
	dir  string
	temp bool     // removed at close
	lock *os.File // held while the copy is in use, for a kept one
}

// openMirror opens the local copy: kept under keep (by the index's
// UUID) when keep is set and no other process holds it, else in a new
// temporary folder.
func openMirror(ctx context.Context, x *opensearch.Index, keep string) (*mirrorDir, error) {
	if keep != "" {
		if m, err := keptMirror(ctx, x, keep); err != nil || m != nil {
			return m, err
		}
	}
	tmp, err := os.MkdirTemp("", "braid-cluster-")
	if err != nil {
		return nil, err
	}
	st, err := index.OpenStore(filepath.Join(tmp, indexdir.StoreFile), false)
	if err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	return &mirrorDir{st: st, dir: tmp, temp: true}, nil
}

// keptMirror opens the copy kept under keep for index x, or returns nil
// when another process holds it.
func keptMirror(ctx context.Context, x *opensearch.Index, keep string) (*mirrorDir, error) {
	uuid, err := x.UUID(ctx)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(keep, uuid)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("cluster: make the folder of the local copy: %w; set another with Backend.Mirror", err)
	}
	lock, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("cluster: lock the local copy in %s: %w", dir, err)
	}
	if err := unix.Flock(int(lock.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		lock.Close()
		return nil, nil // another braid on this machine uses it: a temporary copy
	}
	now := time.Now()
	os.Chtimes(lock.Name(), now, now) // in use: see prune
	prune(keep, uuid, now)
	path := filepath.Join(dir, indexdir.StoreFile)
	st, err := index.OpenStore(path, false)
	if err == nil {
		var p *index.Pending
		if p, err = st.PendingWork(); err == nil && p != nil {
			// A commit the last process did not finish: start afresh.
			st.Close()
			st, err = nil, errors.New("interrupted")
		}
	}
	if err != nil {
		// A copy that does not open whole is read again from the cluster.
		if st != nil {
			st.Close()
		}
		os.Remove(path)
		if st, err = index.OpenStore(path, false); err != nil {
			lock.Close()
			return nil, err
		}
	}
	return &mirrorDir{st: st, dir: dir, lock: lock}, nil
}

// keptFor is how long a kept copy no process opened stays: the copy of
// an index since deleted, or of a cluster no longer used.
const keptFor = 30 * 24 * time.Hour

// prune removes the copies under keep, other than uuid's, that no
// process has opened for keptFor and none holds now.
func prune(keep, uuid string, now time.Time) {
	entries, err := os.ReadDir(keep)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.IsDir() || e.Name() == uuid {
			continue
		}
		dir := filepath.Join(keep, e.Name())
		fi, err := os.Stat(filepath.Join(dir, "lock"))
		if err != nil || now.Sub(fi.ModTime()) < keptFor {
			continue
		}
		f, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_RDWR, 0)
		if err != nil {
			continue
		}
		if unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) == nil {
			os.RemoveAll(dir)
		}
		f.Close()
	}
}

func (m *mirrorDir) close() error {
	err := m.st.Close()
	if m.temp {
		os.RemoveAll(m.dir)
	}
	if m.lock != nil {
		m.lock.Close()
	}
	return err
}

// Dir is the folder of the local copy (Open).
func (c *Cluster) Dir() string {
	if c.m == nil {
		return ""
	}
	return c.m.dir
}

// Remote is the cluster's index, for what the retriever does not cover
// (file hashes, source deletion, metadata).
func (c *Cluster) Remote() *opensearch.Index { return c.x }

// Close closes the cluster index and the local copy Open opened, and
// removes the copy's folder when it was a temporary one.
func (c *Cluster) Close() error {
	c.x.Close()
	if c.m != nil {
		return c.m.close()
	}
	return c.cfg.Mirror.Close()
}

// Mirror is the local copy of the cluster's documents and sources.
func (c *Cluster) Mirror() *index.Store { return c.cfg.Mirror }
