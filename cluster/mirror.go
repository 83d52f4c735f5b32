package cluster

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"time"

	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/opensearch"
	bolt "go.etcd.io/bbolt"
)

// genBucket holds, in the mirror's store, the generation and content hash
// code of each document record the mirror has read (opensearch.Record's
// Gen, HashCode of its Hash), by document ID: what the mirror's sums
// (opensearch.RecordSums) are made of.
var genBucket = []byte("cluster_gens")

// flushEvery is how many records or removals Sync applies to the mirror
// in one commit.
const flushEvery = 256

// SyncReport says what a Sync read from the cluster.
type SyncReport struct {
	// Full is true when it read every record: the first Sync of a
	// Cluster, or one that found the mirror had missed a change.
	Full bool
	// Records and Gone count the document records and the removals read.
	Records, Gone int
	// Took is how long it took.
	Took time.Duration
}

// mirrorState is where the mirror stands against the cluster.
type mirrorState struct {
	synced bool                  // a full read is done: Sync may read on from mark
	mark   int64                 // the highest generation read
	marks  []int64               // the marks the last few Syncs read on from, oldest first
	sums   opensearch.RecordSums // of the records in genBucket
	last   SyncReport
}

// keepMarks is how many earlier marks Sync keeps to read on from when the
// mirror turns out to have missed a change, before it reads everything.
const keepMarks = 4

// LastSync reports what the last Sync that read the cluster read.
func (c *Cluster) LastSync() SyncReport {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ms.last
}

// Sync brings the mirror (Config.Mirror), the local copy of the
// cluster's documents and sources, up to date, so that the link graph and
// the engine's listings read them as they read an embedded index's; the
// copy holds no chunk text. It asks the cluster whether its index changed
// (opensearch.Index.Version) and reads nothing more when it did not.
//
// The first Sync of a new mirror reads every document record (a mirror
// kept in Config.MirrorDir starts where the last run left it). The others
// read only the records written, and the removals recorded, at a
// generation above the highest one read before
// (opensearch.Index.RecordsSince, GoneSince), then check the mirror
// against the cluster: the number of records and the sums of their
// generations and content hash codes (RecordSum), one request. A mismatch while the
// cluster was quiet means the mirror missed a change (a write whose
// generation was taken before, but seen after, a later one's; a write
// by a braid before generations): Sync reads on from an earlier mark, and
// if that does not mend it, reads everything again. A mismatch while the
// cluster is being written leaves the check to the next Sync.
func (c *Cluster) Sync(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	start := time.Now()
	v, err := c.x.Version(ctx)
	if err != nil || v == c.version {
		c.ms.last = SyncReport{Took: time.Since(start)}
		return err
	}
	rep := SyncReport{}
	if err := c.syncSources(ctx); err != nil {
		return err
	}
	ms := &c.ms
	if ms.synced {
		from := ms.mark
		err = c.since(ctx, from, &rep)
		ms.marks = append(ms.marks, from)
		if len(ms.marks) > keepMarks {
			ms.marks = ms.marks[1:]
		}
	} else {
		err = c.full(ctx, &rep)
	}
	if err != nil {
		return err
	}
	ok, err := c.agrees(ctx)
	if err != nil {
		return err
	}
	if !ok {
		v2, err := c.x.Version(ctx)
		if err != nil {
			return err
		}
		if v2 != v {
			// Written to while it was read: the next Sync reads on and
			// checks again.
			rep.Took = time.Since(start)
			ms.last = rep
			return c.saveState()
		}
		if ms.synced && len(ms.marks) > 0 {
			if err := c.since(ctx, ms.marks[0], &rep); err != nil {
				return err
			}
			ok, err = c.agrees(ctx)
			if err != nil {
				return err
			}
		}
		if !ok {
			if err := c.full(ctx, &rep); err != nil {
				return err
			}
		}
	}
	c.version = v
	rep.Took = time.Since(start)
	ms.last = rep
	return c.saveState()
}

// agrees reports whether the mirror holds as many records as the cluster,
// with the same sums of generations and hash codes.
func (c *Cluster) agrees(ctx context.Context) (bool, error) {
	got, err := c.x.RecordSum(ctx)
	if err != nil {
		return false, err
	}
	return got == c.ms.sums, nil
}

// syncSources copies the cluster's source records to the mirror and
// removes those the cluster no longer has.
func (c *Cluster) syncSources(ctx context.Context) error {
	st := c.cfg.Mirror
	srcs, err := c.Sources(ctx)
	if err != nil {
		return err
	}
	have, err := st.Sources()
	if err != nil {
		return err
	}
	live := map[string]bool{}
	for _, s := range srcs {
		live[s.ID] = true
		if err := st.PutSource(s); err != nil {
			return err
		}
	}
	for _, s := range have {
		if !live[s.ID] {
			if err := st.DeleteSourceRecord(s.ID); err != nil {
				return err
			}
		}
	}
	return nil
}

// full reads every document record into the mirror, replacing the
// documents whose content changed and removing those the cluster no
// longer has, and rebuilds genBucket.
func (c *Cluster) full(ctx context.Context, rep *SyncReport) error {
	st := c.cfg.Mirror
	ms := &c.ms
	ms.synced = false
	rep.Full = true
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
	err = st.Update(func(tx *bolt.Tx) error {
		for _, name := range [][]byte{genBucket, stateBucket} { // a kept copy stopped part way reads in full again
			if tx.Bucket(name) != nil {
				if err := tx.DeleteBucket(name); err != nil {
					return err
				}
			}
		}
		_, err := tx.CreateBucket(genBucket)
		return err
	})
	if err != nil {
		return err
	}
	ms.sums = opensearch.RecordSums{}
	var mark int64
	var changes []index.Change
	gens := map[string]entry{}
	flush := func() error {
		if err := c.commit(changes); err != nil {
			return err
		}
		changes = changes[:0]
		if err := putGens(st, gens, nil); err != nil {
			return err
		}
		clear(gens)
		return nil
	}
	seen := map[string]bool{}
	err = c.x.RecordsSince(ctx, -1, func(r opensearch.Record) error {
		rep.Records++
		mark = max(mark, r.Gen)
		e := entryOf(r)
		ms.add(e, 1) // as RecordSum counts: every first chunk
		gens[r.DocID] = e
		if len(r.Data) > 0 {
			seen[r.DocID] = true
			d, err := decode(r)
			if err != nil {
				return err
			}
			if h, ok := known[r.DocID]; !ok || h != d.Hash {
				changes = append(changes, change(d))
			}
		}
		if len(changes) >= flushEvery || len(gens) >= flushEvery {
			return flush()
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
	if err := flush(); err != nil {
		return err
	}
	ms.mark, ms.synced, ms.marks = mark, true, nil
	return nil
}

// since reads into the mirror the records written and the removals
// recorded at a generation above from, and moves the mark past them.
func (c *Cluster) since(ctx context.Context, from int64, rep *SyncReport) error {
	st := c.cfg.Mirror
	ms := &c.ms
	mark := ms.mark
	var recs []opensearch.Record
	apply := func() error {
		ids := make([]string, len(recs))
		for i, r := range recs {
			ids[i] = r.DocID
		}
		old, err := getGens(st, ids)
		if err != nil {
			return err
		}
		var changes []index.Change
		gens := map[string]entry{}
		for _, r := range recs {
			e := entryOf(r)
			g, had := old[r.DocID]
			if had && g == e {
				continue // read before
			}
			if had {
				ms.add(g, -1)
			}
			ms.add(e, 1)
			old[r.DocID], gens[r.DocID] = e, e
			if len(r.Data) == 0 {
				changes = append(changes, index.Change{DeleteID: r.DocID})
				continue
			}
			d, err := decode(r)
			if err != nil {
				return err
			}
			changes = append(changes, change(d))
		}
		recs = recs[:0]
		if err := c.commit(changes); err != nil {
			return err
		}
		return putGens(st, gens, nil)
	}
	err := c.x.RecordsSince(ctx, from, func(r opensearch.Record) error {
		rep.Records++
		mark = max(mark, r.Gen)
		recs = append(recs, r)
		if len(recs) >= flushEvery {
			return apply()
		}
		return nil
	})
	if err == nil {
		err = apply()
	}
	if err != nil {
		return err
	}

	type removal struct {
		id  string
		gen int64
	}
	var gone []removal
	remove := func() error {
		ids := make([]string, len(gone))
		for i, r := range gone {
			ids[i] = r.id
		}
		old, err := getGens(st, ids)
		if err != nil {
			return err
		}
		var changes []index.Change
		var del []string
		for _, r := range gone {
			g, had := old[r.id]
			if !had || g.gen > r.gen {
				continue // not in the mirror, or written again since
			}
			delete(old, r.id)
			ms.add(g, -1)
			del = append(del, r.id)
			changes = append(changes, index.Change{DeleteID: r.id})
		}
		gone = gone[:0]
		if err := c.commit(changes); err != nil {
			return err
		}
		return putGens(st, nil, del)
	}
	err = c.x.GoneSince(ctx, from, func(id string, gen int64) error {
		rep.Gone++
		mark = max(mark, gen)
		gone = append(gone, removal{id, gen})
		if len(gone) >= flushEvery {
			return remove()
		}
		return nil
	})
	if err == nil {
		err = remove()
	}
	if err != nil {
		return err
	}
	ms.mark = mark
	return nil
}

// decode is the document of record r.
func decode(r opensearch.Record) (*index.Document, error) {
	d := &index.Document{}
	if err := json.Unmarshal(r.Data, d); err != nil {
		return nil, fmt.Errorf("the record of document %s in the cluster is damaged (%v); index its source again", r.DocID, err)
	}
	return d, nil
}

// change puts d in the mirror with a stub of each chunk (the mirror
// holds no chunk text).
func change(d *index.Document) index.Change {
	stubs := make([]index.Chunk, len(d.ChunkIDs))
	for i, cid := range d.ChunkIDs {
		stubs[i] = index.Chunk{ID: cid, DocID: d.ID, Ord: i}
	}
	return index.Change{Doc: d, Chunks: stubs}
}

// commit applies changes to the mirror.
func (c *Cluster) commit(changes []index.Change) error {
	if len(changes) == 0 {
		return nil
	}
	st := c.cfg.Mirror
	p, err := st.Commit(changes)
	if err != nil {
		return err
	}
	return st.ClearPending(p.Gen)
}

// entry is what genBucket holds of a record.
type entry struct {
	gen int64
	hc  int32 // opensearch.HashCode of its content hash
}

func entryOf(r opensearch.Record) entry { return entry{r.Gen, opensearch.HashCode(r.Hash)} }

// add adds e to the mirror's sums n times (-1 to take it out).
func (ms *mirrorState) add(e entry, n int) {
	ms.sums.Count += n
	ms.sums.Gens += int64(n) * e.gen
	ms.sums.Hashes += int64(n) * int64(e.hc)
}

// getGens reads the entries genBucket holds for ids; an ID it lacks is
// absent from the map.
func getGens(st *index.Store, ids []string) (map[string]entry, error) {
	out := make(map[string]entry, len(ids))
	err := st.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(genBucket)
		if b == nil {
			return nil
		}
		for _, id := range ids {
			if v := b.Get([]byte(id)); len(v) == 12 {
				out[id] = entry{int64(binary.BigEndian.Uint64(v)), int32(binary.BigEndian.Uint32(v[8:]))}
			}
		}
		return nil
	})
	return out, err
}

// putGens sets the entries in set and removes the IDs in del, in one
// transaction.
func putGens(st *index.Store, set map[string]entry, del []string) error {
	if len(set) == 0 && len(del) == 0 {
		return nil
	}
	return st.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists(genBucket)
		if err != nil {
			return err
		}
		for id, e := range set {
			var v [12]byte
			binary.BigEndian.PutUint64(v[:], uint64(e.gen))
			binary.BigEndian.PutUint32(v[8:], uint32(e.hc))
			if err := b.Put([]byte(id), v[:]); err != nil {
				return err
			}
		}
		for _, id := range del {
			if err := b.Delete([]byte(id)); err != nil {
				return err
			}
		}
		return nil
	})
}

// stateBucket holds, in a kept mirror (Config.MirrorDir), where it stood
// after the last Sync: stateKey's savedState.
var stateBucket, stateKey = []byte("cluster_sync"), []byte("state")

// savedState is what of mirrorState a kept mirror keeps; the sums are
// counted again from genBucket at open, so that a process that stopped
// part way through a Sync leaves nothing inconsistent (the records it
// applied past the saved mark are read again, and found read).
type savedState struct {
	Mark  int64   `json:"mark"`
	Marks []int64 `json:"marks,omitempty"`
}

// kept reports whether the mirror outlives the Cluster.
func (c *Cluster) kept() bool { return c.m != nil && !c.m.temp }

// loadState picks up where a kept mirror's last Sync left it; a mirror
// without a saved state starts with a full read.
func (c *Cluster) loadState() error {
	if !c.kept() {
		return nil
	}
	ms := &c.ms
	return c.cfg.Mirror.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(stateBucket)
		if b == nil || b.Get(stateKey) == nil {
			return nil
		}
		var s savedState
		if err := json.Unmarshal(b.Get(stateKey), &s); err != nil {
			return nil // read in full again
		}
		g := tx.Bucket(genBucket)
		if g == nil {
			return nil
		}
		err := g.ForEach(func(_, v []byte) error {
			if len(v) == 12 {
				ms.add(entry{int64(binary.BigEndian.Uint64(v)), int32(binary.BigEndian.Uint32(v[8:]))}, 1)
			}
			return nil
		})
		if err != nil {
			return err
		}
		ms.mark, ms.marks, ms.synced = s.Mark, s.Marks, true
		return nil
	})
}

// saveState records where a kept mirror stands.
func (c *Cluster) saveState() error {
	if !c.kept() || !c.ms.synced {
		return nil
	}
	raw, err := json.Marshal(savedState{Mark: c.ms.mark, Marks: c.ms.marks})
	if err != nil {
		return err
	}
	return c.cfg.Mirror.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists(stateBucket)
		if err != nil {
			return err
		}
		return b.Put(stateKey, raw)
	})
}
