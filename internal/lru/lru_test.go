package lru

import "testing"

func TestEvictsLeastRecentlyUsed(t *testing.T) {
	c := New[float32](3)
	for k := range uint64(3) {
		c.Put(k, float32(k))
	}
	c.Get(0)      // 1 is now the least recently used
	c.Put(3, 3)   // evicts 1
	c.Put(2, 2.5) // update, no eviction
	for k, want := range map[uint64]struct {
		v  float32
		ok bool
	}{0: {0, true}, 1: {0, false}, 2: {2.5, true}, 3: {3, true}} {
		if v, ok := c.Get(k); v != want.v || ok != want.ok {
			t.Errorf("Get(%d) = %v, %v; want %v, %v", k, v, ok, want.v, want.ok)
		}
	}
	if n := c.Len(); n != 3 {
		t.Errorf("Len %d, want 3", n)
	}
}

func TestKeySeparatesParts(t *testing.T) {
	c := New[int](1)
	if c.Key("ab", "c") == c.Key("a", "bc") {
		t.Error(`Key("ab", "c") = Key("a", "bc")`)
	}
	if c.Key("q", "p") != c.Key("q", "p") {
		t.Error("Key is not a function of its parts")
	}
}
