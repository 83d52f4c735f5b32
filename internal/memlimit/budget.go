package memlimit

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
)

// Budget is the memory this process aims to stay within, in bytes: the
// soft memory limit (Apply, GOMEMLIMIT), or Share of Available() when the
// limit is off; 0 when neither is known.
func Budget() int64 {
	if n := debug.SetMemoryLimit(-1); n > 0 && n < math.MaxInt64 {
		return n
	}
	return int64(float64(Available()) * Share)
}

// Resident is this process's resident memory in bytes: anonymous pages
// (the Go heap, stacks, ONNX Runtime's allocations) and the pages of
// files it maps (bbolt's meta.db, bleve's segments, the graph's file, the
// binary); zeros where /proc/self/status cannot be read.
func Resident() (anon, file int64) {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, 0
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 2 {
			continue
		}
		kb, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			continue
		}
		switch f[0] {
		case "RssAnon:":
			anon = kb << 10
		case "RssFile:":
			file = kb << 10
		}
	}
	return anon, file
}

// Release takes the pages of this process's shared, read-only mappings of
// the file at path out of its resident set (madvise MADV_DONTNEED). They
// stay in the page cache, and a later read faults them in again, so what
// the process reads is unchanged; only what it holds mapped goes. bbolt
// reads meta.db through such a mapping, and an index run's random-key
// inserts touch pages all over it that it will not read again soon. It
// returns how many mappings it released; writable or private mappings are
// never touched.
//
// The caller must keep the file mapped where it is until Release returns
// (for bbolt: call it inside a read transaction, which holds off a remap):
// DONTNEED on an address that anonymous memory took over in between would
// zero that memory.
func Release(path string) (int, error) {
	data, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return 0, err
	}
	n := 0
	for line := range strings.Lines(string(data)) {
		// start-end perms offset dev inode path
		f := strings.Fields(line)
		if len(f) != 6 || f[1] != "r--s" || f[5] != path {
			continue
		}
		lo, hi, ok := strings.Cut(f[0], "-")
		if !ok {
			continue
		}
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		if err1 != nil || err2 != nil || end <= start {
			continue
		}
		if err := dontNeed(start, end-start); err != nil {
			return n, fmt.Errorf("release %s: madvise: %w", path, err)
		}
		n++
	}
	return n, nil
}

// pacing is the process's GC percent as it was before the first Pacer
// started, and how many Pacers run.
var pacing struct {
	sync.Mutex
	n   int
	old int
}

// Pacer keeps the heap's growth between two collections near a fixed
// headroom instead of the Go default of the live heap's size (GOGC 100),
// which over a long index run doubles a heap that is mostly the graph's
// vectors: those hold no pointers, so collecting more often costs little
// marking. Start one per run, Step it as the live heap grows, Stop it at
// the end; while any Pacer runs the GC percent is theirs.
type Pacer struct {
	headroom int64
	stopped  bool
}

// StartPacer starts pacing the collector to headroom bytes of growth.
func StartPacer(headroom int64) *Pacer {
	pacing.Lock()
	defer pacing.Unlock()
	if pacing.n == 0 {
		pacing.old = debug.SetGCPercent(100)
		debug.SetGCPercent(pacing.old)
	}
	pacing.n++
	p := &Pacer{headroom: headroom}
	p.step()
	return p
}

// Headroom is the heap growth between collections a run with budget
// bytes allows: a 128th of it, from 16 MiB to 64 MiB (an index's heap
// that is not vectors is a few tens of MiB, so a collection every 64 MiB
// allocated costs a few percent of the run's CPU).
func Headroom(budget int64) int64 {
	return min(max(budget/128, 16<<20), 64<<20)
}

// Step sets the GC percent so that the next collection comes after
// headroom bytes more than the live heap: never above the percent the
// process had (GOGC), never under 5.
func (p *Pacer) Step() {
	pacing.Lock()
	defer pacing.Unlock()
	if !p.stopped {
		p.step()
	}
}

func (p *Pacer) step() {
	if pacing.old < 0 { // GOGC=off: the soft limit alone paces
		return
	}
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	live := int64(0)
	if s[0].Value.Kind() == metrics.KindUint64 {
		live = int64(s[0].Value.Uint64())
	}
	pct := pacing.old
	if live > 0 {
		pct = min(max(int(100*p.headroom/live), 5), pacing.old)
	}
	debug.SetGCPercent(pct)
}

// Stop ends the pacer; the last one to stop gives back the GC percent
// the process had.
func (p *Pacer) Stop() {
	pacing.Lock()
	defer pacing.Unlock()
	if p.stopped {
		return
	}
	p.stopped = true
	pacing.n--
	if pacing.n == 0 {
		debug.SetGCPercent(pacing.old)
	}
}
