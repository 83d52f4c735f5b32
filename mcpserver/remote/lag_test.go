package remote

import (
	"math"
	rtmetrics "runtime/metrics"
	"testing"
	"time"
)

// The lag is a quantile of what the histogram counted since the last
// read, by its buckets' upper bounds; nothing counted is no lag.
func TestPercentileSince(t *testing.T) {
	h := &rtmetrics.Float64Histogram{
		Buckets: []float64{0, 0.001, 0.01, 0.1, math.Inf(1)},
		Counts:  []uint64{100, 10, 5, 3},
	}
	prev := []uint64{100, 2, 1, 0} // since then: 8 of 1-10 ms, 4 of 10-100 ms, 3 over 100 ms
	for _, c := range []struct {
		q    float64
		want time.Duration
	}{{0.5, 10 * time.Millisecond}, {0.7, 100 * time.Millisecond}, {0.9, 100 * time.Millisecond}, {0.1, 10 * time.Millisecond}} {
		if got := percentileSince(h, prev, c.q); got != c.want {
			t.Errorf("q %g: %v, want %v", c.q, got, c.want)
		}
	}
	if got := percentileSince(h, h.Counts, 0.9); got != 0 {
		t.Errorf("nothing counted since: %v, want 0", got)
	}
}
