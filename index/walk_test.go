package index

import "testing"

func TestWalkerReleasesEveryWalkRelease(t *testing.T) {
	n := 0
	w := &walker{release: func() { n++ }}
	for range 3*walkRelease/1000 + 10 {
		w.step(1000)
	}
	if n != 3 {
		t.Errorf("released %d times over 3×walkRelease bytes, want 3", n)
	}
}
