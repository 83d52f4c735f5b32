package vector

import (
	"bufio"
	"encoding/binary"
	"io"
	"math"
	"os"
	"runtime"
	"unsafe"
)

// mapping is a graph file mapped into memory, unmapped once no graph
// holds it; or, where it cannot be mapped, read into memory (mmapped
// false).
type mapping struct {
	b       []byte
	mmapped bool
}

// littleEndian: the file's floats can be used in place.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// mapVectors points g.vecs at the count floats at g.vecOff of f (size
// bytes): mapped read-only where f is a file the system can map, else
// read into memory.
func (g *graph) mapVectors(f io.ReaderAt, size int64, count int) error {
	if count == 0 {
		return nil
	}
	if file, ok := f.(*os.File); ok && littleEndian {
		if b, err := mapFile(file, size); err == nil {
			mp := &mapping{b: b, mmapped: true}
			runtime.AddCleanup(mp, unmapFile, b)
			g.vecs = unsafe.Slice((*float32)(unsafe.Pointer(&b[g.vecOff])), count)
			g.mapped = mp
			return nil
		}
	}
	g.vecs = make([]float32, count)
	r := bufio.NewReaderSize(io.NewSectionReader(f, g.vecOff, int64(count)*4), 1<<16)
	var buf [4]byte
	for i := range g.vecs {
		if _, err := io.ReadFull(r, buf[:]); err != nil {
			return err
		}
		g.vecs[i] = math.Float32frombits(binary.LittleEndian.Uint32(buf[:]))
	}
	return nil
}
