package remote

import (
	"context"
	"time"
)

// lagTick is how often the lag monitor measures how late its timer fires.
const lagTick = 10 * time.Millisecond

// watchLag measures, until ctx ends, how late a timer set for lagTick
// fires: the time a goroutine that could run waits for a core, which on a
// server whose CPU is the limit is the wait of every request not yet
// read, out of sight of MaxInFlight (on one core, the handler rarely
// holds more than one request: each runs to its end once it starts).
func (s *Server) watchLag(ctx context.Context) {
	t := time.NewTimer(lagTick)
	defer t.Stop()
	for {
		start := time.Now()
		s.lagDue.Store(start.Add(lagTick).UnixNano())
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			s.lastLag.Store(int64(max(0, time.Since(start)-lagTick)))
			t.Reset(lagTick)
		}
	}
}

// lag is how far behind the server is now: the monitor's last measure, or
// how late its timer is already, when it has not run since it was due.
func (s *Server) lag(now time.Time) time.Duration {
	late := time.Duration(now.UnixNano() - s.lagDue.Load())
	return max(time.Duration(s.lastLag.Load()), late)
}
