package index

import (
	"container/list"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"sync"

	bolt "go.etcd.io/bbolt"
)

// docCacheBytes bounds the records whose documents a docCache keeps, by
// their size as stored.
const docCacheBytes = 16 << 20

// docCache keeps decoded documents for SharedDocs, each with a hash of
// the record it was decoded from: an entry is used only while the store
// holds that same record, so a write needs no invalidation. The hash is
// keyed with a seed of the process's own, so no record can be written to
// collide with another.
type docCache struct {
	seed  maphash.Seed
	mu    sync.Mutex
	max   int
	bytes int
	lru   list.List // of *docEntry, the most recent first
	by    map[string]*list.Element
}

type docEntry struct {
	id   string
	sum  uint64
	size int
	doc  *Document
}

func newDocCache(max int) *docCache {
	return &docCache{seed: maphash.MakeSeed(), max: max, by: map[string]*list.Element{}}
}

// get is the document decoded from record v of id, from the cache when it
// holds v's; a nil cache decodes every time.
func (c *docCache) get(id string, v []byte) (*Document, error) {
	if c == nil {
		return decodeDoc(id, v)
	}
	sum := maphash.Bytes(c.seed, v)
	c.mu.Lock()
	if el, ok := c.by[id]; ok {
		if e := el.Value.(*docEntry); e.sum == sum && e.size == len(v) {
			c.lru.MoveToFront(el)
			c.mu.Unlock()
			return e.doc, nil
		}
	}
	c.mu.Unlock()
	d, err := decodeDoc(id, v)
	if err != nil || len(v) > c.max/8 {
		return d, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.by[id]; ok {
		old := el.Value.(*docEntry)
		c.bytes -= old.size
		el.Value = &docEntry{id: id, sum: sum, size: len(v), doc: d}
		c.lru.MoveToFront(el)
	} else {
		c.by[id] = c.lru.PushFront(&docEntry{id: id, sum: sum, size: len(v), doc: d})
	}
	c.bytes += len(v)
	for c.bytes > c.max {
		el := c.lru.Back()
		e := el.Value.(*docEntry)
		c.lru.Remove(el)
		delete(c.by, e.id)
		c.bytes -= e.size
	}
	return d, nil
}

// SharedDocs returns the documents with the given ids, in their order (nil
// for one the store does not hold), decoded once and kept while their
// records are unchanged, for a search's hits: the documents are shared
// with every other caller, so they must never be modified. Doc returns a
// document of the caller's own.
func (s *Store) SharedDocs(ids []string) ([]*Document, error) {
	out := make([]*Document, len(ids))
	err := s.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketDocs)
		for i, id := range ids {
			v := b.Get([]byte(id))
			if v == nil {
				continue
			}
			var err error
			if out[i], err = s.docs.get(id, v); err != nil {
				return err
			}
		}
		return nil
	})
	return out, err
}

func decodeDoc(id string, v []byte) (*Document, error) {
	d := new(Document)
	if err := json.Unmarshal(v, d); err != nil {
		return nil, fmt.Errorf("decode document %s: %w", id, err)
	}
	return d, nil
}
