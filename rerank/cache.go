package rerank

import (
	"hash/maphash"
	"sync"
)

// cacheSize is how many (query, passage) scores a Reranker keeps.
const cacheSize = 4096

// cache maps a (query, passage text) key to its score, dropping the least
// recently used entry when full. It is safe for concurrent use.
type cache struct {
	seed maphash.Seed
	mu   sync.Mutex
	m    map[uint64]*entry
	// head is a sentinel of the circular recency list: head.next is the
	// most recently used entry, head.prev the least.
	head entry
	max  int
}

type entry struct {
	key        uint64
	score      float32
	prev, next *entry
}

func newCache(n int) *cache {
	c := &cache{seed: maphash.MakeSeed(), m: make(map[uint64]*entry, n), max: n}
	c.head.prev, c.head.next = &c.head, &c.head
	return c
}

// key hashes the pair. The 64-bit hash stands for the pair: with a few
// thousand entries a collision is about 1e-12 likely, and the seed is
// random per process, so no input can be crafted to collide.
func (c *cache) key(query, text string) uint64 {
	var h maphash.Hash
	h.SetSeed(c.seed)
	h.WriteString(query)
	h.WriteByte(0)
	h.WriteString(text)
	return h.Sum64()
}

func (c *cache) unlink(e *entry) {
	e.prev.next, e.next.prev = e.next, e.prev
}

func (c *cache) front(e *entry) {
	e.prev, e.next = &c.head, c.head.next
	e.prev.next, e.next.prev = e, e
}

func (c *cache) get(k uint64) (float32, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[k]
	if !ok {
		return 0, false
	}
	c.unlink(e)
	c.front(e)
	return e.score, true
}

func (c *cache) put(k uint64, score float32) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.m[k]; ok {
		e.score = score
		c.unlink(e)
		c.front(e)
		return
	}
	var e *entry
	if len(c.m) >= c.max {
		e = c.head.prev // reuse the least recently used entry
		c.unlink(e)
		delete(c.m, e.key)
	} else {
		e = new(entry)
	}
	e.key, e.score = k, score
	c.m[k] = e
	c.front(e)
}

func (c *cache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}
