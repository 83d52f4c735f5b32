package cluster

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/braidsearch/braid/internal/testenv"
	"golang.org/x/sys/unix"
)

// TestPrune removes the kept copies no process opened for keptFor and
// none holds, and keeps the others.
func TestPrune(t *testing.T) {
	keep := t.TempDir()
	now := time.Now()
	old := now.Add(-keptFor - time.Hour)
	mk := func(name string, at time.Time) string {
		dir := filepath.Join(keep, name)
		testenv.Must(t, os.MkdirAll(dir, 0o700))
		lock := filepath.Join(dir, "lock")
		testenv.Must(t, os.WriteFile(lock, nil, 0o600))
		testenv.Must(t, os.Chtimes(lock, at, at))
		return dir
	}
	stale := mk("stale", old)
	recent := mk("recent", now.Add(-time.Hour))
	self := mk("self", old)
	held := mk("held", old)
	f := testenv.Must1(os.OpenFile(filepath.Join(held, "lock"), os.O_RDWR, 0))(t)
	defer f.Close()
	testenv.Must(t, unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB))

	prune(keep, "self", now)
	for dir, want := range map[string]bool{stale: false, recent: true, self: true, held: true} {
		_, err := os.Stat(dir)
		if got := err == nil; got != want {
			t.Errorf("%s kept = %v, want %v", filepath.Base(dir), got, want)
		}
	}
}
