//go:build !linux

package extract

import "github.com/tetratelabs/wazero/experimental"

// wasmMemory is nil here: wazero's own memory, a Go slice.
func wasmMemory() experimental.MemoryAllocator { return nil }
