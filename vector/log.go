package vector

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"math"
	"math/bits"
	"os"
	"path/filepath"

	"github.com/braidsearch/braid/internal/confine"
	"github.com/braidsearch/braid/internal/half"
)

// The change log, beside a graph file F at LogPath(F), little endian:
//
//	header  magic "BRAIDVLG", version u32, then F's identity: its size
//	        u64, two of the CRCs F holds, u32 each (of a version 3 or 4
//	        file: its trailer's own and its vectors'; of a version 2 file:
//	        its nodes' and its vectors'), then CRC-32C of the header so
//	        far, u32
//	records each: payload length u32, payload, CRC-32C of the length and
//	        the payload, u32
//	payload from u64 (nodes before it), nodes u64 (after it), live u64,
//	        gen u64, entry u32, top u32, seed u64;
//	        the count of changed old nodes (uvarint), then each, in slot
//	        order: slot (uvarint) and the node as a version 2 file kept it
//	        (node.go: flags, level, id, links);
//	        then the new nodes from..nodes-1, each so, followed by its
//	        vector, dim × f16 (its code is made from it as it is read)
//
// That is log version 2, written beside a version 4 file; version 1,
// beside files of versions 2 and 3, kept the new vectors as dim × f32,
// and is still replayed (the next Save then writes the graph whole).
//
// A record carries every node whose links or tombstone changed (an HNSW
// insert rewrites its neighbours' link lists), so replaying the records
// over F in order gives the graph as the last one was saved. Save writes
// the log's first record in a new file renamed into place, and appends
// the others, each synced before Save returns; Load replays the records up
// to the first one that is incomplete or fails its checksum (a crash, or a
// writer still appending: what follows is not yet saved) and ignores a log
// whose header does not name F (a crash between a full Save's rename and
// its removal of the log). So a reader sees F as some Save left it, never
// half of one. A record that passes its checksum and does not fit the
// graph is damage: ErrFormat. Replayed onto a version 3 file, a changed
// node's row of layer 0 goes to the overlay (graph.over), a new node's to
// memory, and a new node's id is not checked against the file's (that
// would need the map of ids at every open): Verify finds an id held
// twice. A version 2 file's log is replayed, and the next Save writes the
// graph whole in version 3.
//
// Once the log would pass an eighth of F (compactEvery), Save writes F
// afresh instead and removes the log, so a reader replays at most that.
const (
	logMagic      = "BRAIDVLG"
	logVersion    = 2 // beside a version 4 file
	logFloats     = 1 // beside a version 2 or 3 file: float32 vectors
	logHeaderSize = 8 + 4 + 8 + 4 + 4 + 4
	recordHead    = 8*4 + 4*2 + 8 // from, nodes, live, gen, entry, top, seed
	compactEvery  = 8
)

// LogPath is the change log of the graph file at path.
func LogPath(path string) string { return path + ".log" }

// fileSum identifies a graph file's content: its size and two checksums
// it holds (see the log's header).
type fileSum struct {
	size        int64
	nodes, vecs uint32
	log         uint32 // the version of the log that goes with the file
}

// onDisk is what the graph file at path and its log hold: the graph g as
// it was when last loaded or saved (g.saved nodes, the links of
// g.dirty's changed since).
type onDisk struct {
	path    string
	g       *graph
	sum     fileSum
	info    os.FileInfo // the graph file, to tell it from one put in its place
	log     int64       // the log's sound bytes; 0: no log belongs to the file
	logInfo os.FileInfo // the log file
}

func (s fileSum) header() []byte {
	b := append([]byte(logMagic), 0, 0, 0, 0)
	binary.LittleEndian.PutUint32(b[8:], s.log)
	b = binary.LittleEndian.AppendUint64(b, uint64(s.size))
	b = binary.LittleEndian.AppendUint32(b, s.nodes)
	b = binary.LittleEndian.AppendUint32(b, s.vecs)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

// saveLog appends what changed since the last save to path's log, when
// the index was loaded from path or last saved there, the file is still
// the one it wrote, and the log stays under an eighth of the file; done
// says it did, or that there was nothing to write. Otherwise Save writes
// the whole file.
func (x *Index) saveLog(path string) (done bool, err error) {
	d, g := x.disk, x.g
	if d == nil || d.path != path || d.g != g {
		return false, nil // never saved here, or rebuilt since: slots moved
	}
	if st, err := os.Stat(path); err != nil || !os.SameFile(st, d.info) || st.Size() != d.sum.size {
		return false, nil
	}
	if !x.changed.Load() {
		return true, nil
	}
	room := d.sum.size/compactEvery - max(d.log, logHeaderSize)
	if int64(g.size()-g.saved)*int64(g.dim)*2 > room {
		return false, nil // the new vectors alone pass it: build no record
	}
	rec := x.delta()
	if int64(len(rec)) > room || len(rec) > math.MaxUint32 {
		return false, nil
	}
	lp := LogPath(path)
	if d.log == 0 {
		info, err := writeAtomic(lp, func(w io.Writer) error {
			_, err := w.Write(append(d.sum.header(), rec...))
			return err
		})
		if err != nil {
			return false, err
		}
		d.log, d.logInfo = logHeaderSize+int64(len(rec)), info
	} else {
		f, err := openLog(lp)
		if err != nil {
			return false, nil // gone: the records it held with it
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil || !st.Mode().IsRegular() || !os.SameFile(st, d.logInfo) || st.Size() < d.log {
			return false, nil // not the log this index wrote
		}
		if st.Size() > d.log { // a torn record of a save that failed
			if err := f.Truncate(d.log); err != nil {
				return false, err
			}
		}
		if _, err := f.WriteAt(rec, d.log); err != nil {
			return false, err
		}
		if err := f.Sync(); err != nil {
			return false, err
		}
		d.log += int64(len(rec))
	}
	g.saved, g.dirty = g.size(), nil
	return true, nil
}

// delta is the log record of what changed since the last save: the old
// nodes touch marked and every node added since.
func (x *Index) delta() []byte {
	g := x.g
	le := binary.LittleEndian
	b := make([]byte, 4, 4+recordHead+(g.size()-g.saved)*(g.dim*2+64))
	b = le.AppendUint64(b, uint64(g.saved))
	b = le.AppendUint64(b, uint64(g.size()))
	b = le.AppendUint64(b, uint64(g.live))
	b = le.AppendUint64(b, x.gen)
	b = le.AppendUint32(b, g.entry)
	b = le.AppendUint32(b, uint32(g.top))
	b = le.AppendUint64(b, g.seed)
	n := 0
	for _, w := range g.dirty {
		n += bits.OnesCount64(w)
	}
	b = binary.AppendUvarint(b, uint64(n))
	for s := range g.saved {
		if g.isDirty(s) {
			b = binary.AppendUvarint(b, uint64(s))
			b = x.appendNode(b, s)
		}
	}
	for s := g.saved; s < g.size(); s++ {
		b = x.appendNode(b, s)
		if h := g.halfOf(uint32(s)); h != nil { // in memory: fp16 already
			for _, x := range h {
				b = le.AppendUint16(b, x)
			}
			continue
		}
		for _, f := range g.vec(uint32(s), nil) {
			b = le.AppendUint16(b, half.To(f))
		}
	}
	le.PutUint32(b, uint32(len(b)-4))
	return le.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

// replay applies the log at lp, when it belongs to the graph file just
// decoded, up to its last sound record, and notes where that ends for
// the next Save.
func (x *Index) replay(lp string) error {
	f, err := confine.Open("", lp) // never blocks on a FIFO put in its place
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("vector: load: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("vector: load: %w", err)
	}
	if !st.Mode().IsRegular() {
		return x.logError(lp, fmt.Errorf("it is %s, not a file", confine.Kind(st.Mode())))
	}
	d := x.disk
	if st.Size() > d.sum.size {
		return nil // Save keeps a log under an eighth of its file: not this file's
	}
	b := make([]byte, st.Size())
	n, err := io.ReadFull(f, b)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("vector: load %s: %w", lp, err)
	}
	off, err := x.replayBytes(b[:n]) // cut short since the Stat: what is there
	if err != nil {
		return x.logError(lp, err)
	}
	if off > 0 {
		d.log, d.logInfo = int64(off), st
	}
	return nil
}

// replayBytes applies the log b up to its last sound record and returns
// where that ends; 0 when b is not a log of the graph file decoded.
func (x *Index) replayBytes(b []byte) (int, error) {
	if len(b) < logHeaderSize || string(b[:logHeaderSize]) != string(x.disk.sum.header()) {
		return 0, nil // another file's log, or none
	}
	off := logHeaderSize
	for {
		p, next, ok := nextRecord(b, off)
		if !ok {
			return off, nil
		}
		if err := x.apply(&record{b: p}); err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				err = errors.New("record cut short")
			}
			return 0, fmt.Errorf("the record at byte %d: %w", off, err)
		}
		off = next
	}
}

// logError is Load's error for the damaged log at lp: the graph file's,
// since the two are one graph, removed and rebuilt together.
func (x *Index) logError(lp string, reason error) error {
	return &FormatError{Path: x.disk.path, Reason: fmt.Errorf("its change log %s: %w", filepath.Base(lp), reason)}
}

// nextRecord returns the payload of the record at off in b and the offset
// after it; ok is false when no whole record with a good checksum starts
// there.
func nextRecord(b []byte, off int) (p []byte, next int, ok bool) {
	if len(b)-off < 8 {
		return nil, 0, false
	}
	n := binary.LittleEndian.Uint32(b[off:])
	if uint64(n) > uint64(len(b)-off-8) {
		return nil, 0, false
	}
	end := off + 4 + int(n)
	if crc32.Checksum(b[off:end], castagnoli) != binary.LittleEndian.Uint32(b[end:]) {
		return nil, 0, false
	}
	return b[off+4 : end], end + 4, true
}

// record reads a log record's payload.
type record struct{ b []byte }

func (r *record) ReadByte() (byte, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c, nil
}

func (r *record) next(n int) ([]byte, error) {
	if n > len(r.b) {
		return nil, io.ErrUnexpectedEOF
	}
	b := r.b[:n]
	r.b = r.b[n:]
	return b, nil
}

// apply changes the graph as the record r says, checking that it fits:
// it must start where the graph ends, change only what a save can
// change, and leave every link pointing at a node that reaches its layer.
func (x *Index) apply(r *record) error {
	g := x.g
	le := binary.LittleEndian
	h, err := r.next(recordHead)
	if err != nil {
		return err
	}
	from, nodes, live, gen := le.Uint64(h), le.Uint64(h[8:]), le.Uint64(h[16:]), le.Uint64(h[24:])
	entry, top, seed := le.Uint32(h[32:]), int(le.Uint32(h[36:])), le.Uint64(h[40:])
	switch {
	case from != uint64(g.size()):
		return bad("it starts at node %d, the graph has %d", from, g.size())
	case nodes < from || nodes-from > uint64(len(r.b))/uint64(g.dim*2+3) || nodes >= none:
		return bad("%d nodes after %d cannot fit in %d bytes", nodes, from, len(r.b))
	case live > nodes:
		return bad("%d live nodes of %d", live, nodes)
	case nodes == 0 && entry != none, nodes > 0 && uint64(entry) >= nodes, top > maxLevel, top < g.top:
		return bad("entry point %d (layer %d) out of range", entry, top)
	}
	changed, err := binary.ReadUvarint(r)
	if err != nil {
		return err
	}
	if changed > from {
		return bad("%d changed nodes of %d", changed, from)
	}
	touched := make([]int, 0, int(changed)+int(nodes-from))
	var rd *reads // a graph loaded with Pread reads the ids it checks (idVia)
	if g.pread != nil {
		rd = &reads{fileReads: g.pread}
	}
	v, buf := make([]float32, g.dim), make([]float32, g.dim)
	for i := range int(changed) {
		u, err := binary.ReadUvarint(r)
		if err != nil {
			return err
		}
		s := int(u)
		if u >= from || i > 0 && s <= touched[i-1] {
			return bad("changed node %d out of order or range", u)
		}
		b, err := r.next(2)
		if err != nil {
			return err
		}
		flags, level := b[0], int(b[1])
		if flags > 1 || level != g.level(uint32(s)) {
			return bad("node %d: flags %d, layer %d, was on layer %d", s, flags, level, g.level(uint32(s)))
		}
		id, err := readID(r, s, uint64(len(r.b)))
		if err != nil {
			return err
		}
		switch {
		case flags == 1 && id != "":
			return bad("node %d: tombstone with id %q", s, id)
		case flags == 0 && (g.isDead(uint32(s)) || id != x.idVia(rd, uint32(s))):
			if rd != nil && rd.err != nil {
				return fmt.Errorf("read node %d's id from the graph file: %w", s, rd.err)
			}
			return bad("node %d: live with id %q, was %q", s, id, x.idVia(rd, uint32(s)))
		}
		ls, err := readLinks(r, g, s, level)
		if err != nil {
			return err
		}
		for l, ns := range ls {
			g.setLinks(uint32(s), l, ns) // a mapped row's change goes to the overlay
		}
		if flags == 1 && !g.isDead(uint32(s)) {
			x.kill(uint32(s))
		}
		touched = append(touched, s)
	}
	for s := int(from); s < int(nodes); s++ {
		dead, level, id, err := x.readHead(r, s, top, uint64(len(r.b)))
		if err != nil {
			return err
		}
		ls, err := readLinks(r, g, s, level)
		if err != nil {
			return err
		}
		if err := readVector(r, v, x.disk.sum.log == logFloats); err != nil {
			return err
		}
		g.appendVec(v, buf)
		x.place(dead, id, ls)
		touched = append(touched, s)
	}
	if len(r.b) != 0 {
		return bad("%d bytes after the nodes", len(r.b))
	}
	for _, s := range touched {
		if err := g.checkLinks(uint32(s)); err != nil {
			return err
		}
	}
	if nodes > 0 && g.level(entry) != top {
		return bad("entry point %d is not on layer %d", entry, top)
	}
	if uint64(g.live) != live {
		return bad("%d live vectors, the record says %d", g.live, live)
	}
	g.entry, g.top, g.seed, x.gen = entry, top, seed, gen
	return nil
}
