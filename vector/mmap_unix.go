//go:build unix

package vector

import (
	"os"
	"syscall"
)

func mapFile(f *os.File, size int64) ([]byte, error) {
	return syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
}

func unmapFile(b []byte) { syscall.Munmap(b) }

// mapFileWorks: this system maps files (the tests' expectation).
const mapFileWorks = true
