//go:build unix

package memlimit

import "syscall"

// dontNeed is madvise(MADV_DONTNEED) on n bytes at addr.
func dontNeed(addr, n uint64) error {
	if _, _, e := syscall.Syscall(syscall.SYS_MADVISE, uintptr(addr), uintptr(n), syscall.MADV_DONTNEED); e != 0 {
		return e
	}
	return nil
}
