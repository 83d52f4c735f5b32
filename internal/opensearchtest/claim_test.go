package opensearchtest

import (
	"os"
	"testing"
)

// A claimed port range is refused to every other claim, this process's
// included, until the claim is closed.
func TestClaim(t *testing.T) {
	// The highest range no running test holds.
	base, a := httpHigh-10, (*os.File)(nil)
	for ; base >= httpLow; base -= 10 {
		var ok bool
		if a, ok = claim(base); ok {
			break
		}
	}
	if a == nil {
		t.Fatal("every port range is claimed")
	}
	if b, ok := claim(base); ok {
		b.Close()
		t.Fatal("a claimed range was claimed again")
	}
	a.Close()
	b, ok := claim(base)
	if !ok {
		t.Fatal("a released range could not be claimed")
	}
	b.Close()
}
