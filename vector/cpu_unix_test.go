//go:build unix

package vector

import (
	"syscall"
	"time"
)

// processCPU is the CPU time this process has spent, user and system.
func processCPU() time.Duration {
	var u syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &u) != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
