package index

import (
	"context"
	"encoding/json"
	"maps"
	"slices"

	"github.com/braidsearch/braid/lexical"
	bolt "go.etcd.io/bbolt"
)

// The BM25 counts package lexical reads its statistics from (see
// lexical/bm25.go), kept in meta.db: moved in the transaction that clears
// a commit's pending record (clearPending), so that they describe the
// lexical index's commit.

var (
	bucketBM25 = []byte("bm25") // chunk id -> lexical.Counts (encode)
	keyBM25    = []byte("bm25") // in meta: lexical.Totals as JSON
)

func readTotals(meta *bolt.Bucket) *lexical.Totals {
	v := meta.Get(keyBM25)
	if v == nil {
		return nil
	}
	t := new(lexical.Totals)
	if json.Unmarshal(v, t) != nil || t.Fields == nil {
		return nil
	}
	return t
}

func putTotals(meta *bolt.Bucket, t *lexical.Totals) error {
	js, err := json.Marshal(t)
	if err != nil {
		return err
	}
	return meta.Put(keyBM25, js)
}

// moveCounts moves the totals, which must be at lexical commit from, by
// the batch b that took the lexical index from commit from to commit to.
// Totals at another commit, failed or damaged stay as they are; a nil b
// leaves them behind. A store that never had totals starts from zero
// when it has no counts (a new store, whose first batch this is).
func moveCounts(tx *bolt.Tx, from, to uint64, b *lexical.BatchCounts) error {
	meta, bucket := tx.Bucket(bucketMeta), tx.Bucket(bucketBM25)
	t := readTotals(meta)
	if t == nil && from == 0 && bucket != nil && bucket.Stats().KeyN == 0 {
		t = lexical.ZeroTotals(0)
	}
	if t == nil || t.Failed || t.Gen != from || b == nil || bucket == nil {
		return nil
	}
	ok := true
	take := func(id string) error {
		v := bucket.Get([]byte(id))
		if v == nil {
			return nil
		}
		c, good := lexical.DecodeCounts(v)
		ok = ok && good && t.Add(c, -1)
		return bucket.Delete([]byte(id))
	}
	for _, id := range b.Del {
		if err := take(id); err != nil {
			return err
		}
	}
	for _, id := range slices.Sorted(maps.Keys(b.Add)) { // bbolt writes sorted keys best
		if err := take(id); err != nil { // indexed again: its old counts go
			return err
		}
		c := b.Add[id]
		if err := bucket.Put([]byte(id), c.Encode()); err != nil {
			return err
		}
		t.Add(c, 1)
	}
	if !ok {
		// A count that does not decode or takes a total below zero: the
		// totals are wrong; the next commit counts them again.
		return meta.Delete(keyBM25)
	}
	t.Gen = to
	return putTotals(meta, t)
}

// BM25Totals reads the BM25 totals the store keeps of its lexical index;
// nil when it has none (or they do not decode). A lexical index reads its
// statistics through it (lexical.Index.StatsFrom).
func (s *Store) BM25Totals() *lexical.Totals {
	var t *lexical.Totals
	_ = s.view(func(tx *bolt.Tx) error {
		t = readTotals(tx.Bucket(bucketMeta))
		return nil
	})
	return t
}

// resetCounts drops every chunk's counts and sets the totals to t (nil: none).
func (s *Store) resetCounts(t *lexical.Totals) error {
	return s.update(func(tx *bolt.Tx) error {
		if tx.Bucket(bucketBM25) != nil {
			if err := tx.DeleteBucket(bucketBM25); err != nil {
				return err
			}
		}
		if _, err := tx.CreateBucket(bucketBM25); err != nil {
			return err
		}
		meta := tx.Bucket(bucketMeta)
		if t == nil {
			return meta.Delete(keyBM25)
		}
		return putTotals(meta, t)
	})
}

// keepCounts moves the totals by a batch outside a commit (see
// moveCounts): RebuildLexical's batches, all at one commit.
func (s *Store) keepCounts(from, to uint64, b *lexical.BatchCounts) error {
	return s.update(func(tx *bolt.Tx) error { return moveCounts(tx, from, to, b) })
}

// putCounts stores counts of chunks without moving the totals (seedCounts).
func (s *Store) putCounts(counts map[string]lexical.Counts) error {
	return s.update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketBM25)
		for _, id := range slices.Sorted(maps.Keys(counts)) {
			if err := b.Put([]byte(id), counts[id].Encode()); err != nil {
				return err
			}
		}
		return nil
	})
}

// chunkPage returns up to n chunks whose ids follow after, in id order,
// so a long walk can write between pages.
func (s *Store) chunkPage(after string, n int) ([]*Chunk, error) {
	var out []*Chunk
	err := s.view(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketChunks).Cursor()
		k, v := c.Seek([]byte(after))
		if k != nil && after != "" && string(k) == after {
			k, v = c.Next()
		}
		for ; k != nil && len(out) < n; k, v = c.Next() {
			ch := new(Chunk)
			if err := json.Unmarshal(v, ch); err != nil {
				return err
			}
			out = append(out, ch)
		}
		return nil
	})
	return out, err
}

// seedPage is how many chunks seedCounts reads and writes at a time.
const seedPage = 2048

// seedCounts counts every chunk of the store, as the lexical index at its
// commit holds them, and keeps the counts and their totals, after
// checking the totals against a full count of the lexical index: once
// for an index whose counts are missing or out of step. The store and the
// lexical index must be at the same commit with nothing pending. When
// they differ the totals are marked failed (see lexical.Totals.Failed) and
// the full count is what l uses.
func seedCounts(s *Store, l *lexical.Index) error {
	gen, err := l.Gen()
	if err != nil {
		return err
	}
	if err := s.resetCounts(nil); err != nil {
		return err
	}
	t := lexical.ZeroTotals(gen)
	after := ""
	for {
		page, err := s.chunkPage(after, seedPage)
		if err != nil || len(page) == 0 {
			if err != nil {
				return err
			}
			break
		}
		meta := storeMeta(s)
		counts := make(map[string]lexical.Counts, len(page))
		for _, c := range page {
			n, err := l.ChunkCounts(c.Lexical(), meta(c.DocID))
			if err != nil {
				return err
			}
			counts[c.ID] = n
			t.Add(n, 1)
		}
		if err := s.putCounts(counts); err != nil {
			return err
		}
		after = page[len(page)-1].ID
	}
	counted, err := l.CountStats(context.Background()) // keepStats, which calls it, has no context
	if err != nil {
		return err
	}
	if !lexical.SameStats(t.Stats(), counted) {
		t = &lexical.Totals{Gen: gen, Fields: map[string]uint64{}, Failed: true}
		if err := s.resetCounts(t); err != nil {
			return err
		}
		l.SetStats(gen, counted, false)
		return nil
	}
	if err := s.update(func(tx *bolt.Tx) error { return putTotals(tx.Bucket(bucketMeta), t) }); err != nil {
		return err
	}
	l.SetStats(gen, counted, true)
	return nil
}
