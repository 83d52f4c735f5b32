//go:build unix

package vector

import (
	"os"
	"syscall"
)

// openLog opens the log at path for writing without following a link or
// waiting on a FIFO put in its place (no reader: ENXIO).
func openLog(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_WRONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
}
