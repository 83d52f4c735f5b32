package extract

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
