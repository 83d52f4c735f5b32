//go:build !unix

package vector

import "time"

// processCPU is 0 here: the benchmarks report no CPU time.
func processCPU() time.Duration { return 0 }
