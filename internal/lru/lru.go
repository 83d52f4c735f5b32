// Package lru is a small least-recently-used cache keyed by a 64-bit hash
// of strings, safe for concurrent use: the reranker's scores and the
// embedder's query vectors.
package lru

import (
	"hash/maphash"
	"sync"
)

// Cache maps a key (Key) to a value, dropping the least recently used
// entry when full.
type Cache[V any] struct {
	seed maphash.Seed
	mu   sync.Mutex
	m    map[uint64]*entry[V]
	// head is a sentinel of the circular recency list: head.next is the
	// most recently used entry, head.prev the least.
	head entry[V]
	max  int
}

type entry[V any] struct {
	key        uint64
	value      V
	prev, next *entry[V]
}

// New returns a cache of at most n entries.
func New[V any](n int) *Cache[V] {
	c := &Cache[V]{seed: maphash.MakeSeed(), m: make(map[uint64]*entry[V], n), max: max(n, 1)}
	c.head.prev, c.head.next = &c.head, &c.head
	return c
}

// Key hashes parts, each ended by a zero byte so that ("ab", "c") and
// ("a", "bc") differ. The 64-bit hash stands for them: with a few thousand
// entries a collision is about 1e-12 likely, and the seed is random per
// cache, so no input can be crafted to collide.
func (c *Cache[V]) Key(parts ...string) uint64 {
	var h maphash.Hash
	h.SetSeed(c.seed)
	for _, p := range parts {
		h.WriteString(p)
		h.WriteByte(0)
	}
	return h.Sum64()
}

func (c *Cache[V]) unlink(e *entry[V]) {
	e.prev.next, e.next.prev = e.next, e.prev
}

func (c *Cache[V]) front(e *entry[V]) {
	e.prev, e.next = &c.head, c.head.next
	e.prev.next, e.next.prev = e, e
}

// Get returns the value under k, and whether there is one.
func (c *Cache[V]) Get(k uint64) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[k]
	if !ok {
		var zero V
		return zero, false
	}
	c.unlink(e)
	c.front(e)
	return e.value, true
}

// Put stores v under k.
func (c *Cache[V]) Put(k uint64, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.m[k]; ok {
		e.value = v
		c.unlink(e)
		c.front(e)
		return
	}
	var e *entry[V]
	if len(c.m) >= c.max {
		e = c.head.prev // reuse the least recently used entry
		c.unlink(e)
		delete(c.m, e.key)
	} else {
		e = new(entry[V])
	}
	e.key, e.value = k, v
	c.m[k] = e
	c.front(e)
}

// Len is how many entries the cache holds.
func (c *Cache[V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}
