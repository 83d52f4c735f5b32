//go:build linux

package extract

import (
	"runtime"
	"sync"
	"syscall"

	"github.com/tetratelabs/wazero/experimental"
)

// mappedMemory is a PDF engine instance's WebAssembly memory: a mapping
// of its whole bound made once, of which the pages the engine touches
// are the only ones in memory. Growing it moves nothing, where wazero's
// own memory is a Go slice that a growth copies into one 25% larger
// (reading a PDF to a 512 MiB bound cost 1.2 to 1.6 GiB of the process's
// memory, its old copies waiting for the collector); and closing an
// instance hands its pages back at once.
type mappedMemory struct {
	mu   sync.Mutex
	buf  []byte // the mapping; nil once freed
	size uint64 // bytes the engine has grown it to
}

// wasmMemory is the allocator the engine's instances are made with, or
// nil where the mapping cannot be made (wazero's own then).
func wasmMemory() experimental.MemoryAllocator {
	return experimental.MemoryAllocatorFunc(func(_, max uint64) experimental.LinearMemory {
		b, err := syscall.Mmap(-1, 0, int(max), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON|syscall.MAP_NORESERVE)
		if err != nil {
			return &heapMemory{max: max}
		}
		m := &mappedMemory{buf: b}
		// The mapping goes once nothing can reach the memory: wazero
		// may free it (Free) while a killed call still runs on it, so
		// Free only drops its pages, and the unmapping waits for this.
		runtime.AddCleanup(m, func(b []byte) { syscall.Munmap(b) }, b)
		return m
	})
}

// Reallocate grows the memory to size bytes in place; nil past its
// bound (the engine's malloc then fails, as at wazero's own limit).
func (m *mappedMemory) Reallocate(size uint64) []byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.buf == nil || size > uint64(len(m.buf)) {
		return nil
	}
	m.size = size
	return m.buf[:size:size]
}

// Free hands the memory's pages back to the system; the mapping stays
// (reading it gives zeros) until the cleanup unmaps it.
func (m *mappedMemory) Free() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.buf != nil && m.size > 0 {
		syscall.Madvise(m.buf[:m.size], syscall.MADV_DONTNEED)
	}
	m.size = 0
}

// heapMemory is a WebAssembly memory in the Go heap, for when a mapping
// cannot be made: it grows as wazero's own does.
type heapMemory struct {
	buf []byte
	max uint64
}

func (m *heapMemory) Reallocate(size uint64) []byte {
	if size > m.max {
		return nil
	}
	if size > uint64(cap(m.buf)) {
		b := make([]byte, size, min(max(size, uint64(cap(m.buf))*5/4), m.max))
		copy(b, m.buf)
		m.buf = b
	}
	m.buf = m.buf[:size]
	return m.buf
}

func (m *heapMemory) Free() { m.buf = nil }
