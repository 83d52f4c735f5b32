package memlimit

import (
	"os"
	"runtime"
	"runtime/debug"
	"testing"
)

func TestBudget(t *testing.T) {
	old := debug.SetMemoryLimit(1 << 30)
	t.Cleanup(func() { debug.SetMemoryLimit(old) })
	if got := Budget(); got != 1<<30 {
		t.Errorf("Budget() under a 1GiB limit = %d, want %d", got, 1<<30)
	}
	debug.SetMemoryLimit(1<<63 - 1) // off
	if avail := Available(); avail > 0 && Budget() != int64(float64(avail)*Share) {
		t.Errorf("Budget() with the limit off = %d, want half of %d", Budget(), avail)
	}
	for budget, want := range map[int64]int64{1 << 30: 16 << 20, 4 << 30: 32 << 20, 64 << 30: 64 << 20} {
		if got := Headroom(budget); got != want {
			t.Errorf("Headroom(%d) = %d, want %d", budget, got, want)
		}
	}
}

func TestResident(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc on this system")
	}
	anon, file := Resident()
	if anon <= 0 || file <= 0 {
		t.Errorf("Resident() = %d anonymous, %d file bytes; want both > 0 (the heap, the test binary)", anon, file)
	}
}

// gcPercent is the collector's percent, left as it was.
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// TestPacer: over a live heap of 256 MiB, a pacer with 32 MiB of headroom
// sets the GC percent to about an eighth of the live heap, and the last
// pacer to stop gives back the percent the process had.
func TestPacer(t *testing.T) {
	old := debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetGCPercent(old) })
	live := make([]float32, 64<<20) // 256 MiB, no pointers: the graph's vectors
	runtime.GC()
	a := StartPacer(32 << 20)
	b := StartPacer(32 << 20)
	if p := gcPercent(); p < 5 || p > 13 {
		t.Errorf("GC percent over 256 MiB live with 32 MiB headroom = %d, want about 12", p)
	}
	runtime.KeepAlive(live)
	a.Stop()
	a.Stop() // twice is once
	if p := gcPercent(); p == 100 {
		t.Error("the GC percent went back while a pacer still runs")
	}
	b.Stop()
	if p := gcPercent(); p != 100 {
		t.Errorf("GC percent after the pacers stopped = %d, want 100", p)
	}
	// Never above what the process had.
	debug.SetGCPercent(50)
	live = nil
	runtime.GC()
	c := StartPacer(1 << 40)
	if p := gcPercent(); p != 50 {
		t.Errorf("GC percent with more headroom than heap = %d, want the process's 50", p)
	}
	c.Stop()
}
