package remote

import (
	"context"
	"math"
	rtmetrics "runtime/metrics"
	"time"
)

// lagTick is how often the lag monitor reads how long goroutines waited.
const lagTick = 10 * time.Millisecond

// schedLatencies is the Go runtime's histogram of the time goroutines
// spent runnable before they ran.
const schedLatencies = "/sched/latencies:seconds"

// watchLag measures, every lagTick until ctx ends, how long the goroutines
// that became runnable in that time waited for a core (the 90th
// percentile, from the runtime's own histogram). On a server whose CPU is
// the limit that is the wait of each request as it is read: connections
// the network poller finds ready queue behind the running searches, out of
// MaxInFlight's sight (on one core the handler rarely holds more than one
// request: each runs to its end once it starts). A timer's lateness would
// not show it: the runtime runs a woken timer's goroutine next.
func (s *Server) watchLag(ctx context.Context) {
	sample := []rtmetrics.Sample{{Name: schedLatencies}}
	rtmetrics.Read(sample)
	if sample[0].Value.Kind() != rtmetrics.KindFloat64Histogram {
		return // a runtime without the histogram: no bound
	}
	prev := append([]uint64(nil), sample[0].Value.Float64Histogram().Counts...)
	t := time.NewTicker(lagTick)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		rtmetrics.Read(sample)
		h := sample[0].Value.Float64Histogram()
		s.lastLag.Store(int64(percentileSince(h, prev, 0.9)))
		copy(prev, h.Counts)
	}
}

// percentileSince is the q-quantile of what histogram h counted since its
// counts were prev (the upper bound of its bucket), zero for nothing.
func percentileSince(h *rtmetrics.Float64Histogram, prev []uint64, q float64) time.Duration {
	var total uint64
	for i, c := range h.Counts {
		total += c - prev[i]
	}
	if total == 0 {
		return 0
	}
	want := uint64(math.Ceil(q * float64(total)))
	var seen uint64
	for i, c := range h.Counts {
		if seen += c - prev[i]; seen >= want {
			upper := h.Buckets[i+1]
			if math.IsInf(upper, 1) {
				upper = h.Buckets[i]
			}
			return time.Duration(upper * float64(time.Second))
		}
	}
	return 0
}

// lag is how far behind the server is: how long, at the 90th percentile,
// the goroutines that became runnable in the last lagTick waited.
func (s *Server) lag() time.Duration { return time.Duration(s.lastLag.Load()) }
