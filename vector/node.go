package vector

import (
	"bufio"
	"encoding/binary"
	"hash"
	"io"
	"math"

	"github.com/braidsearch/braid/internal/half"
)

// A node as a version 1 or 2 file and a change log's record keep it:
// flags u8 (1: tombstone), level u8, id (uvarint length, bytes; empty for
// a tombstone), then for each layer 0..level its link count (uvarint) and
// that many u32 slots. decode2 reads the files of those versions into the
// graph in memory; the log (log.go) writes and reads its records' nodes
// through the same pieces.

// appendNode appends slot s as a node record.
func (x *Index) appendNode(b []byte, s int) []byte {
	n := uint32(s)
	var flags byte
	if x.g.isDead(n) {
		flags = 1
	}
	level := x.g.level(n)
	id := x.id(n)
	b = append(b, flags, byte(level))
	b = binary.AppendUvarint(b, uint64(len(id)))
	b = append(b, id...)
	for l := range level + 1 {
		ls := x.g.links(n, l)
		b = binary.AppendUvarint(b, uint64(len(ls)))
		for _, t := range ls {
			b = binary.LittleEndian.AppendUint32(b, t)
		}
	}
	return b
}

// reader hashes every byte it hands out, for the trailer check.
type reader struct {
	r   *bufio.Reader
	h   hash.Hash32
	buf []byte
	n   int64 // bytes read
}

func (r *reader) ReadByte() (byte, error) {
	c, err := r.r.ReadByte()
	if err == nil {
		r.h.Write([]byte{c})
		r.n++
	}
	return c, err
}

func (r *reader) next(n int) ([]byte, error) {
	if cap(r.buf) < n {
		r.buf = make([]byte, n)
	}
	b := r.buf[:n]
	if _, err := io.ReadFull(r.r, b); err != nil {
		return nil, err
	}
	r.h.Write(b)
	r.n += int64(n)
	return b, nil
}

// source is what a node is read from: the graph file (reader) or a log
// record (record).
type source interface {
	io.ByteReader
	next(n int) ([]byte, error)
}

// readID reads slot s's id, of at most limit bytes.
func readID(r source, s int, limit uint64) (string, error) {
	n, err := binary.ReadUvarint(r)
	if err != nil {
		return "", err
	}
	if n > limit {
		return "", bad("node %d: id of %d bytes", s, n)
	}
	b, err := r.next(int(n))
	return string(b), err
}

// readHead reads the start of slot s as the file keeps it, its flags,
// level and id (of at most limit bytes), and checks them: a level up to
// top, a tombstone without an id, and, when the index has its map of ids
// (not a version 3 file's, which makes it only when needed), a live
// node's id not already held.
func (x *Index) readHead(r source, s, top int, limit uint64) (dead bool, level int, id string, err error) {
	b, err := r.next(2)
	if err != nil {
		return false, 0, "", err
	}
	flags, level := b[0], int(b[1])
	if flags > 1 || level > top {
		return false, 0, "", bad("node %d: flags %d, layer %d of %d", s, flags, level, top)
	}
	if id, err = readID(r, s, limit); err != nil {
		return false, 0, "", err
	}
	dead = flags == 1
	if dead && id != "" {
		return false, 0, "", bad("node %d: tombstone with id %q", s, id)
	}
	if _, dup := x.slot[id]; !dead && dup {
		return false, 0, "", bad("node %d: id %q twice", s, id)
	}
	return dead, level, id, nil
}

// readVector reads len(v) little-endian fp16 values, or float32s, into v.
func readVector(r source, v []float32, floats bool) error {
	if !floats {
		b, err := r.next(len(v) * 2)
		if err != nil {
			return err
		}
		for i := range v {
			v[i] = half.From(binary.LittleEndian.Uint16(b[i*2:]))
		}
		return nil
	}
	b, err := r.next(len(v) * 4)
	if err != nil {
		return err
	}
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[i*4:]))
	}
	return nil
}

// checkLinks says whether every link of slot s names a node that reaches
// its layer.
func (g *graph) checkLinks(s uint32) error {
	for l := range g.level(s) + 1 {
		for _, t := range g.links(s, l) {
			if int(t) >= g.size() || g.level(t) < l {
				return bad("node %d: link to %d on layer %d", s, t, l)
			}
		}
	}
	return nil
}

// readLinks reads slot s's link lists, layers 0 to level; their targets
// are for the caller to check once every node is read.
func readLinks(r source, g *graph, s, level int) ([][]uint32, error) {
	ls := make([][]uint32, level+1)
	for l := range ls {
		c, err := binary.ReadUvarint(r)
		if err != nil {
			return nil, err
		}
		if c > uint64(g.maxLinks(l)) {
			return nil, bad("node %d: %d links on layer %d", s, c, l)
		}
		b, err := r.next(int(c) * 4)
		if err != nil {
			return nil, err
		}
		ls[l] = make([]uint32, c)
		for i := range ls[l] {
			ls[l][i] = binary.LittleEndian.Uint32(b[i*4:])
		}
	}
	return ls, nil
}

// place appends a node with the given tombstone flag, id and link lists
// (layers 0..len(ls)-1), as decode2 and a log's replay read it.
func (x *Index) place(dead bool, id string, ls [][]uint32) {
	g := x.g
	s := uint32(g.size())
	g.grow(len(ls) - 1)
	for l, ns := range ls {
		g.setLinks(s, l, ns)
	}
	x.ids.add(id)
	if dead {
		g.setDead(s)
		return
	}
	if x.slot != nil {
		x.slot[id] = s
	}
	g.live++
}

// decode2 reads the rest of a version 1 or 2 graph file of size bytes
// from f after its header h (read through r): every node onto the heap,
// with its links checked; an *os.File has a version 2 file's vectors
// mapped into memory where it can. The index it returns is changed, so
// that the next Save writes version 3.
func decode2(f io.ReaderAt, size int64, r *reader, br *bufio.Reader, h header, opt *Options) (*Index, error) {
	inline := h.version == formatInline
	x, err := h.index(opt)
	if err != nil {
		return nil, err
	}
	g := x.g
	g.format = h.version
	n, dim := int(h.nodes), h.dim
	var v, buf []float32
	if inline {
		v, buf = make([]float32, dim), make([]float32, dim)
	}
	x.slot = make(map[string]uint32, h.count)
	x.ids.more = make([]string, 0, n)
	g.dead = make([]uint64, 0, (n+63)/64)
	for s := range n {
		dead, level, id, err := x.readHead(r, s, h.top, uint64(size))
		if err != nil {
			return nil, err
		}
		if inline {
			if err := readVector(r, v, true); err != nil {
				return nil, err
			}
		}
		ls, err := readLinks(r, g, s, level)
		if err != nil {
			return nil, err
		}
		if inline {
			g.appendVec(v, buf) // before place: into the slot place makes
		}
		x.place(dead, id, ls)
	}
	sum := r.h.Sum32()
	b, err := r.next(4)
	if err != nil {
		return nil, err
	}
	le := binary.LittleEndian
	if le.Uint32(b) != sum {
		return nil, bad("checksum mismatch")
	}
	if inline {
		if _, err := br.ReadByte(); err != io.EOF {
			return nil, bad("trailing data")
		}
	} else {
		g.vecOff = r.n + pad(r.n)
		want := g.vecOff + int64(n)*int64(dim)*4 + 4
		switch {
		case size < want:
			return nil, bad("file is truncated: %d bytes, the vectors need %d", size, want)
		case size > want:
			return nil, bad("trailing data")
		}
		if err := g.mapVectors(f, size, n*dim); err != nil {
			return nil, err
		}
		g.filed = n
		g.quantizeFiled()
		var vs [4]byte
		if _, err := f.ReadAt(vs[:], size-4); err != nil {
			return nil, err
		}
		x.disk = &onDisk{g: g, sum: fileSum{size: size, nodes: sum, vecs: le.Uint32(vs[:]), log: logFloats}}
	}
	if uint64(g.live) != h.count {
		return nil, bad("%d live vectors, header says %d", g.live, h.count)
	}
	// Every link must name a node that reaches its layer, or a search
	// would index out of range.
	for s := range uint32(n) {
		if err := g.checkLinks(s); err != nil {
			return nil, err
		}
	}
	if n > 0 && g.level(h.entry) != h.top {
		return nil, bad("entry point %d is not on layer %d", h.entry, h.top)
	}
	x.changed.Store(true) // the next Save writes the current format
	return x, nil
}
