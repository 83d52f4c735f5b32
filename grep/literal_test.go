package grep

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// naiveIndex is the obvious search the finder must agree with.
func naiveIndex(h []byte, lit literal, from int) int {
	for i := from; i+len(lit.s) <= len(h); i++ {
		w := h[i : i+len(lit.s)]
		if lit.fold && equalFoldASCII(w, lit.s) || !lit.fold && bytes.Equal(w, lit.s) {
			return i
		}
	}
	return -1
}

func TestFinder(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	const alphabet = "aAbB\nxk"
	randBytes := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return b
	}
	for range 2000 {
		h := randBytes(rng.IntN(60))
		lit := literal{s: randBytes(1 + rng.IntN(3)), fold: rng.IntN(2) == 0}
		if lit.fold {
			lit.s = bytes.ToLower(lit.s)
		}
		f := newFinder(lit)
		f.reset(h)
		// next, from increasing starts, as the searcher calls it.
		for from := 0; from <= len(h); from += 1 + rng.IntN(4) {
			if got, want := f.next(from), naiveIndex(h, lit, from); got != want {
				t.Fatalf("next(%d) of %q (fold %v) in %q = %d, want %d", from, lit.s, lit.fold, h, got, want)
			}
		}
		if got, want := f.index(h), naiveIndex(h, lit, 0); got != want {
			t.Fatalf("index of %q (fold %v) in %q = %d, want %d", lit.s, lit.fold, h, got, want)
		}
	}
}
