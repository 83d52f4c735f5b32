//go:build unix

package vector

import (
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestLogFIFO: a FIFO in the log's place is refused as damage, without
// blocking the Load that finds it.
func TestLogFIFO(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v.vec")
	logged(t, path)
	if err := syscall.Mkfifo(LogPath(path), 0o600); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	if _, err := Load(path, nil); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "FIFO") {
		t.Errorf("FIFO log: %v, want ErrFormat saying FIFO", err)
	}
}
