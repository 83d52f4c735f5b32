package vector

import (
	"encoding/binary"
	"io"
	"unsafe"
)

// fileReads is where a search of a graph loaded with Options.Pread reads
// its file's nodes from: the file itself, kept open, and where its
// layer-0 links, codes, fp16 vectors, id offsets and ids start. The
// mapping stays, for everything else (Vector, IDs, a mutation's links,
// exact).
//
// Why: a read through the mapping of a page the system has cached maps
// not that page alone but its neighbourhood (fault-around: 64 KiB on
// Linux, whatever madvise says), so the first search of a fresh process
// at a million nodes, reading some 8,000 scattered codes and 1,500 rows,
// left ~430 MB of the file mapped: resident, and counted in the
// process's peak. A pread copies the bytes asked for and maps nothing;
// one a code or a row (reading the few KiB around each, to catch
// neighbours of nearby slots, saved no reads on the bench's corpus).
type fileReads struct {
	f                   io.ReaderAt
	links, codes, halfs int64
	idOffs, ids         int64
}

// reads is one search's reader of the graph file (probe.rd): room for a
// row, a code and a vector, and the first read that failed.
type reads struct {
	*fileReads
	row  []uint32
	buf  []byte
	half []uint16
	err  error
}

func (g *graph) newReads() *reads {
	return &reads{fileReads: g.pread, row: make([]uint32, g.stride()), buf: make([]byte, g.cbytes), half: make([]uint16, g.dim)}
}

// bytesOf views u as bytes, in place (the file is little endian, as is
// the system: Load sets Pread's reader only then).
func bytesOf[T uint16 | uint32](u []T) []byte {
	var z T
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(u))), len(u)*int(unsafe.Sizeof(z)))
}

// read fills b from the file at off, keeping the first error; false when
// it could not.
func (r *reads) read(b []byte, off int64) bool {
	if r.err != nil {
		return false
	}
	if _, err := r.f.ReadAt(b, off); err != nil {
		r.err = err
		return false
	}
	return true
}

// code is slot i's code (a slot of the file), read into r's buffer;
// nil when it could not be read.
func (r *reads) code(g *graph, i uint32) []byte {
	if !r.read(r.buf, r.codes+int64(i)*int64(g.cbytes)) {
		return nil
	}
	return r.buf
}

// neighboursOf is neighbours, for probe p: a search of a graph loaded
// with Pread reads a layer-0 row of the file's (one that did not change
// since: an overlay's is in memory) into p's buffer, where it stays
// until the next. A row that cannot be read has no links.
func (g *graph) neighboursOf(p *probe, n uint32, l int, buf []uint32) []uint32 {
	if p.rd == nil || l != 0 || int(n) >= g.nbase {
		return g.neighbours(n, l, buf)
	}
	if g.over != nil {
		if _, ok := g.over[n%nstripes][n]; ok {
			return g.neighbours(n, l, buf)
		}
	}
	r, st := p.rd.row, g.stride()
	if !p.rd.read(bytesOf(r), p.rd.links+int64(n)*int64(st)*4) {
		return nil
	}
	return r[1 : 1+min(int(r[0]), st-1)]
}

// idVia is slot s's id, as x.id gives it, read from the file when rd is
// set (a graph loaded with Pread): the ids a search returns and those a
// log's replay checks, point lookups that through the mapping would map
// 64 KiB around each of their two pages. "" when a read failed (rd.err
// says why) or the offsets are damaged (as idTable.at).
func (x *Index) idVia(rd *reads, s uint32) string {
	if rd == nil || int(s) >= x.ids.filed() || x.g.isDead(s) {
		return x.id(s)
	}
	var b [16]byte
	if !rd.read(b[:], rd.idOffs+int64(s)*8) {
		return ""
	}
	a, e := binary.LittleEndian.Uint64(b[:]), binary.LittleEndian.Uint64(b[8:])
	if a > e || e > uint64(len(x.ids.blob)) {
		return ""
	}
	id := make([]byte, e-a)
	if !rd.read(id, rd.ids+int64(a)) {
		return ""
	}
	return string(id)
}

// vecOf is vec, slot i's vector read from the file by a search of a
// graph loaded with Pread; nil when that read failed.
func (g *graph) vecOf(p *probe, i uint32, buf []float32) []float32 {
	if p.rd == nil || int(i) >= g.filed || g.half == nil {
		return g.vec(i, buf)
	}
	if !p.rd.read(bytesOf(p.rd.half), p.rd.halfs+int64(i)*int64(g.dim)*2) {
		return nil
	}
	if len(buf) < g.dim {
		buf = make([]float32, g.dim)
	}
	buf = buf[:g.dim]
	fromHalfs(buf, p.rd.half)
	return buf
}
