package memlimit

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
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

// mappedRss is the resident size of this process's mappings of path with
// permissions perms, from /proc/self/smaps.
func mappedRss(t *testing.T, path, perms string) int64 {
	t.Helper()
	data, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	var rss int64
	in := false
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) >= 5 && strings.Contains(f[0], "-") && len(f[1]) == 4:
			in = len(f) == 6 && f[5] == path && f[1] == perms
		case in && len(f) >= 2 && f[0] == "Rss:":
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			rss += kb << 10
		}
	}
	return rss
}

// TestRelease: a shared read-only mapping's pages leave the resident set
// and read the same afterwards; a private mapping of the same file keeps
// its pages, one of another file is not named.
func TestRelease(t *testing.T) {
	if _, err := os.Stat("/proc/self/smaps"); err != nil {
		t.Skip("no /proc on this system")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "meta.db")
	want := bytes.Repeat([]byte("braid 45"), 1<<20) // 8 MiB
	if err := os.WriteFile(path, want, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	shared, err := syscall.Mmap(int(f.Fd()), 0, len(want), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(shared)
	private, err := syscall.Mmap(int(f.Fd()), 0, len(want), syscall.PROT_READ, syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(private)
	sum := 0
	for i := 0; i < len(want); i += 4096 { // fault every page in
		sum += int(shared[i]) + int(private[i])
	}
	runtime.KeepAlive(sum)
	if got := mappedRss(t, path, "r--s"); got < int64(len(want))/2 {
		t.Fatalf("the shared mapping holds %d bytes resident after a read of every page, want about %d", got, len(want))
	}
	if n, err := Release(filepath.Join(dir, "other.db")); err != nil || n != 0 {
		t.Errorf("Release of a file not mapped = %d, %v; want 0, nil", n, err)
	}
	n, err := Release(path)
	if err != nil || n != 1 {
		t.Fatalf("Release = %d, %v; want 1 mapping released", n, err)
	}
	if got := mappedRss(t, path, "r--s"); got != 0 {
		t.Errorf("the shared mapping holds %d bytes resident after Release, want 0", got)
	}
	if got := mappedRss(t, path, "r--p"); got < int64(len(want))/2 {
		t.Errorf("the private mapping holds %d bytes after Release, want its pages kept", got)
	}
	if !bytes.Equal(shared, want) {
		t.Error("the shared mapping reads differently after Release")
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
