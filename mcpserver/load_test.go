package mcpserver_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/braidsearch/braid/internal/testenv"
	"github.com/braidsearch/braid/mcpserver"
)

// openFDs counts this process's open file descriptors.
func openFDs(tb testing.TB) int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		tb.Skipf("cannot count file descriptors here: %v", err)
	}
	return len(ents)
}

// settle waits until count() is at most want (for up to testenv.Guard)
// and returns the last count: goroutines and descriptors take a moment to
// go, and a busy machine a longer one.
func settle(want int, count func() int) int {
	n := count()
	for deadline := time.Now().Add(testenv.Guard); n > want && time.Now().Before(deadline); n = count() {
		runtime.GC()
		time.Sleep(20 * time.Millisecond)
	}
	return n
}

// TestLoadSearchDuringReindex is the load test: many concurrent MCP tool
// calls (search, search_keyword, grep, read_node_content) while index_path
// re-indexes a source again and again with changed and new files. Every
// call must succeed; afterwards no goroutine or file descriptor may be
// left over. It reports throughput, latency percentiles and peak memory
// (run it with -v; BRAID_LOAD_CALLS scales it). Times are reported, never
// asserted.
func TestLoadSearchDuringReindex(t *testing.T) {
	calls := 800
	if v, err := strconv.Atoi(os.Getenv("BRAID_LOAD_CALLS")); err == nil && v > 0 {
		calls = v
	}
	const workers = 16
	vault, idx := indexed(t, 300, nil)

	runtime.GC()
	goroutines, fds := runtime.NumGoroutine(), openFDs(t)

	srv := mcpserver.New(opener(idx, nil), &mcpserver.Options{Tools: "all"})
	c, stop := serve(t, srv)
	cl := &clientT{c, t}
	if _, err := c.Initialize(t.Context(), initRequest()); err != nil {
		t.Fatal(err)
	}

	var peakHeap atomic.Uint64
	sampling := make(chan struct{})
	var sampler sync.WaitGroup
	sampler.Go(func() {
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			if m.HeapInuse > peakHeap.Load() {
				peakHeap.Store(m.HeapInuse)
			}
			select {
			case <-sampling:
				return
			case <-time.After(25 * time.Millisecond):
			}
		}
	})

	// The writer: rewrite a third of the notes, add new ones, re-index;
	// again until the readers are done.
	var reindexing atomic.Bool
	var rounds, duringReindex atomic.Int64
	readersDone := make(chan struct{})
	var writer sync.WaitGroup
	writer.Go(func() {
		for round := 1; ; round++ {
			select {
			case <-readersDone:
				return
			default:
			}
			for i := range 100 {
				n := (round*100 + i) % 300
				body := fmt.Sprintf("# Note %d\n\nRewritten in round %d with gamma%d.\n\n%s\n", n, round, round, "more words about valleys. ")
				// t.Error, not t.Fatal: this is not the test's goroutine.
				if err := errors.Join(
					os.WriteFile(filepath.Join(vault, fmt.Sprintf("note-%04d.md", n)), []byte(body), 0o644),
					os.WriteFile(filepath.Join(vault, fmt.Sprintf("new-%d-%03d.md", round, i)), []byte(body+" fresh note."), 0o644),
				); err != nil {
					t.Errorf("round %d: %v", round, err)
					return
				}
			}
			reindexing.Store(true)
			r := cl.call("index_path", map[string]any{"path": vault})
			reindexing.Store(false)
			if r.IsError {
				t.Errorf("index_path round %d: %s", round, r.Text)
				return
			}
			rounds.Add(1)
		}
	})

	requests := []struct {
		tool string
		args func(i int) map[string]any
	}{
		{"search", func(i int) map[string]any { return map[string]any{"query": fmt.Sprintf("note number %d alpha", i%300)} }},
		{"search_keyword", func(i int) map[string]any { return map[string]any{"query": "gardens rivers", "limit": 5} }},
		{"grep", func(i int) map[string]any { return map[string]any{"pattern": fmt.Sprintf("number %d ", i%300)} }},
		{"read_node_content", func(i int) map[string]any { return map[string]any{"id": fmt.Sprintf("note-%04d", i%300)} }},
	}
	latencies := make([]time.Duration, calls)
	var failures atomic.Int64
	var next atomic.Int64
	var readers sync.WaitGroup
	start := time.Now()
	for range workers {
		readers.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= calls {
					return
				}
				rq := requests[i%len(requests)]
				t0 := time.Now()
				during := reindexing.Load()
				r, err := callErr(c, rq.tool, rq.args(i), nil)
				latencies[i] = time.Since(t0)
				if err != nil || r.IsError {
					failures.Add(1)
					t.Errorf("%s %d: %v %.200s", rq.tool, i, err, r.Text)
				}
				if during && reindexing.Load() {
					duringReindex.Add(1)
				}
			}
		})
	}
	readers.Wait()
	elapsed := time.Since(start)
	close(readersDone)
	writer.Wait()
	close(sampling)
	sampler.Wait()
	stop()

	if failures.Load() > 0 {
		t.Fatalf("%d of %d calls failed", failures.Load(), calls)
	}
	if rounds.Load() == 0 || duringReindex.Load() == 0 {
		t.Errorf("the load did not overlap a re-index: %d rounds, %d calls answered during one", rounds.Load(), duringReindex.Load())
	}
	// Everything the server started has ended and every file it opened is
	// closed: the engine, the bleve index, bbolt, the pipes.
	if n := settle(goroutines, runtime.NumGoroutine); n > goroutines {
		buf := make([]byte, 1<<20)
		t.Errorf("%d goroutines after the server closed, %d before:\n%s", n, goroutines, buf[:runtime.Stack(buf, true)])
	}
	if n := settle(fds, func() int { return openFDs(t) }); n > fds {
		t.Errorf("%d file descriptors open after the server closed, %d before", n, fds)
	}

	slices.Sort(latencies)
	pct := func(p float64) time.Duration { return latencies[min(len(latencies)-1, int(p*float64(len(latencies))))] }
	t.Logf("load: %d calls by %d clients in %v = %.0f calls/s; latency p50 %v, p95 %v, p99 %v, max %v; %d re-index rounds, %d calls answered during one; peak heap in use %.1f MiB; goroutines %d→%d, fds %d→%d",
		calls, workers, elapsed.Round(time.Millisecond), float64(calls)/elapsed.Seconds(),
		pct(0.50).Round(time.Microsecond), pct(0.95).Round(time.Microsecond), pct(0.99).Round(time.Microsecond), latencies[len(latencies)-1].Round(time.Microsecond),
		rounds.Load(), duringReindex.Load(), float64(peakHeap.Load())/(1<<20), goroutines, runtime.NumGoroutine(), fds, openFDs(t))
}
