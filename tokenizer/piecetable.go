package tokenizer

import (
	"hash/maphash"
	"math/bits"
)

// pieceTable finds the id of a WordPiece piece. It is a hash set of
// indexes into keys, open addressing with linear probing, built in a
// fraction of the time and memory of a map[string]int32 (a BERT
// vocabulary's map took a third of a load): the keys are not copied, a
// slot is 4 bytes. A slot holds an index plus one in its low bits, 0 when
// free, and 7 bits of the key's hash in its high bits.
type pieceTable struct {
	seed  maphash.Seed
	mask  uint64
	slots []uint32
	// keys holds the pieces by index, each after skip bytes of prefix (a
	// continuation piece is keyed without its "##").
	keys []string
	skip int
	// ids holds the id of each index; nil: the index is the id.
	ids []int32
	n   int
}

const (
	slotIndexBits = 25 // an index plus one: maxVocab fits
	slotIndex     = 1<<slotIndexBits - 1
)

// newPieceTable returns an empty table over keys sized for n entries.
func newPieceTable(n int, keys []string, skip int, ids []int32) *pieceTable {
	size := max(16, 1<<bits.Len(uint(2*n)))
	return &pieceTable{seed: maphash.MakeSeed(), mask: uint64(size - 1), slots: make([]uint32, size), keys: keys, skip: skip, ids: ids}
}

// tag returns the hash bits a slot keeps.
func tag(h uint64) uint32 { return uint32(h>>(64-(32-slotIndexBits))) << slotIndexBits }

// add inserts index i, whose key is key, and returns -1; if an equal key
// is there already, it inserts nothing and returns that key's index.
func (t *pieceTable) add(key string, i int) int {
	if 2*(t.n+1) > len(t.slots) {
		t.grow()
	}
	h := maphash.String(t.seed, key)
	tg := tag(h)
	for p := h & t.mask; ; p = (p + 1) & t.mask {
		e := t.slots[p]
		if e == 0 {
			t.slots[p] = tg | uint32(i+1)
			t.n++
			return -1
		}
		if e&^slotIndex == tg {
			if j := int(e&slotIndex) - 1; t.keys[j][t.skip:] == key {
				return j
			}
		}
	}
}

// grow doubles the table.
func (t *pieceTable) grow() {
	old := t.slots
	t.slots = make([]uint32, 2*len(old))
	t.mask = uint64(len(t.slots) - 1)
	for _, e := range old {
		if e == 0 {
			continue
		}
		h := maphash.String(t.seed, t.keys[int(e&slotIndex)-1][t.skip:])
		p := h & t.mask
		for t.slots[p] != 0 {
			p = (p + 1) & t.mask
		}
		t.slots[p] = e
	}
}

func (t *pieceTable) id(i int) int32 {
	if t.ids == nil {
		return int32(i)
	}
	return t.ids[i]
}

// find returns the id of the piece b.
func (t *pieceTable) find(b []byte) (int32, bool) {
	return lookup(t, maphash.Bytes(t.seed, b), b)
}

// findString returns the id of the piece s.
func (t *pieceTable) findString(s string) (int32, bool) {
	return lookup(t, maphash.String(t.seed, s), s)
}

// lookup is find and findString: h is the piece's hash (maphash gives a
// string and its bytes the same one).
func lookup[S string | []byte](t *pieceTable, h uint64, s S) (int32, bool) {
	tg := tag(h)
	for p := h & t.mask; ; p = (p + 1) & t.mask {
		e := t.slots[p]
		if e == 0 {
			return 0, false
		}
		if e&^slotIndex == tg {
			if j := int(e&slotIndex) - 1; t.keys[j][t.skip:] == string(s) {
				return t.id(j), true
			}
		}
	}
}

// all returns the table's content as a map (tests).
func (t *pieceTable) all() map[string]int32 {
	m := make(map[string]int32, t.n)
	for _, e := range t.slots {
		if e != 0 {
			j := int(e&slotIndex) - 1
			m[t.keys[j][t.skip:]] = t.id(j)
		}
	}
	return m
}
