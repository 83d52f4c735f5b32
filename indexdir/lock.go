package indexdir

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"
)

// ErrLocked means another braid process holds the index.
var ErrLocked = errors.New("index: in use by another braid process")

// Lock is an advisory lock on an index directory: one writer, or any number
// of readers. The writer records who it is, so others can name it.
type Lock struct {
	f     *os.File
	write bool
}

// AcquireLock takes the lock file at path, exclusive for a writer and shared
// for a reader, without waiting: a conflict is reported at once, naming the
// writer when there is one.
func AcquireLock(path string, write bool, purpose string) (*Lock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, FileMode)
	if err != nil {
		return nil, fmt.Errorf("open lock file: %w", err)
	}
	how := syscall.LOCK_SH
	if write {
		how = syscall.LOCK_EX
	}
	if err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB); err != nil {
		holder, _ := os.ReadFile(path)
		f.Close()
		h := strings.TrimSpace(string(holder))
		if !write && h != "" {
			return nil, fmt.Errorf("%w: it is being written by %s; try again when that finishes", ErrLocked, h)
		}
		if h == "" {
			h = "a reader (braid search or braid serve)"
		}
		return nil, fmt.Errorf("%w: held by %s; wait for it to finish or stop it", ErrLocked, h)
	}
	if write {
		info := fmt.Sprintf("pid %d (%s, started %s)", os.Getpid(), purpose, time.Now().Format(time.RFC3339))
		if err := f.Truncate(0); err == nil {
			_, _ = f.WriteAt([]byte(info+"\n"), 0)
		}
	}
	return &Lock{f: f, write: write}, nil
}

// Release gives the lock up.
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	if l.write {
		_ = l.f.Truncate(0)
	}
	err := l.f.Close()
	l.f = nil
	return err
}
