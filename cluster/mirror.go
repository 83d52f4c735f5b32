package cluster

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/braidsearch/braid/index"
)

// Sync brings the mirror (Config.Mirror), the local copy of the
// cluster's documents and sources, up to date, so that the link graph and
// the engine's listings read them as they read an embedded index's. It
// reads the cluster only when its index has changed since
// (opensearch.Index.Version), from the document record each first chunk
// carries; the copy holds no chunk text.
func (c *Cluster) Sync(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, err := c.x.Version(ctx)
	if err != nil || v == c.version {
		return err
	}
	st := c.cfg.Mirror
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
		d := &index.Document{}
		if err := json.Unmarshal(rec, d); err != nil {
			return fmt.Errorf("the record of document %s in the cluster is damaged (%v); index its source again", id, err)
		}
		if h, ok := known[id]; ok && h == d.Hash {
			return nil
		}
		stubs := make([]index.Chunk, len(d.ChunkIDs))
		for i, cid := range d.ChunkIDs {
			stubs[i] = index.Chunk{ID: cid, DocID: d.ID, Ord: i}
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
