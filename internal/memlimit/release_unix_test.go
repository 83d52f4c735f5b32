//go:build unix

package memlimit

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

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
