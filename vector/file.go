package vector

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"

	"github.com/braidsearch/braid/internal/confine"
)

// File format, version 2, little endian:
//
//	header  magic "BRAIDVEC", version u32, dim u32, M u32, efConstruction u32,
//	        gen u64, count u64 (live vectors), nodes u64 (with tombstones),
//	        entry u32 (MaxUint32: none), top u32, seed u64
//	nodes   per slot: flags u8 (1: tombstone), level u8, id (uvarint length,
//	        bytes; empty for a tombstone), then for each layer 0..level:
//	        link count (uvarint) and that many u32 slots
//	        CRC-32C of the header and nodes, u32
//	        zero bytes up to the next multiple of 64 from the file's start
//	vectors nodes × dim × f32, slot by slot
//	        CRC-32C of the vectors, u32
//
// Load reads the header and nodes and maps the vectors into memory
// instead of reading them (where the system can map files and is little
// endian), so opening costs the nodes' size, not the vectors', and a
// search touches only the pages of the vectors it compares. The vectors'
// checksum is checked by Verify (braid doctor), not at every open: a
// damaged vector can only misrank, while every link is checked at load.
//
// Version 1 (still read; the next Save writes version 2) kept each node's
// vector inline, before its links, under one trailing checksum.
//
// A change log beside the file (LogPath, log.go) may hold what changed
// since it was written; it has a format version of its own.
//
// Bump formatVersion on any change; Load reports other versions as
// ErrFormat so the engine rebuilds the graph.
const (
	magic         = "BRAIDVEC"
	formatVersion = 2
	formatInline  = 1 // version 1: vectors inline with their nodes
	headerSize    = 8 + 4*4 + 8*3 + 4*2 + 8
	maxDim        = 1 << 16
	vectorAlign   = 64
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Save writes the index to path. An index loaded from path, or last saved
// there, that changed little since appends its changes to path's log
// (LogPath), synced, and leaves the graph file alone; otherwise, or once
// the log would pass an eighth of the file, Save writes the whole file
// atomically (a temporary file in the same directory, synced, renamed over
// path) and removes the log. A failed Save leaves what Load reads as it
// was. Searches may run during Save; mutations wait.
func (x *Index) Save(path string) error {
	x.saveMu.Lock()
	defer x.saveMu.Unlock()
	x.mu.RLock()
	defer x.mu.RUnlock()
	done, err := x.saveLog(path)
	if err == nil && !done {
		err = x.saveFull(path)
	}
	if err != nil {
		return fmt.Errorf("vector: save %s: %w", path, err)
	}
	x.changed.Store(false) // no mutation ran: they wait for the read lock
	return nil
}

// saveFull writes the whole graph file at path and removes its log,
// which no longer belongs to it.
func (x *Index) saveFull(path string) error {
	var sum fileSum
	info, err := writeAtomic(path, func(w io.Writer) (err error) {
		sum, err = x.encode(w)
		return err
	})
	if err != nil {
		return err
	}
	// A log left behind (a crash, or a failed removal) names the file it
	// was written beside, not this one, so Load ignores it and the next
	// append replaces it.
	os.Remove(LogPath(path))
	x.g.saved, x.g.dirty = x.g.size(), nil
	x.disk = &onDisk{path: path, g: x.g, sum: sum, info: info}
	return nil
}

// writeAtomic runs write into a temporary file beside path and renames it
// over path once it is written and synced; info describes the file.
func writeAtomic(path string, write func(io.Writer) error) (info os.FileInfo, err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if err = write(f); err != nil {
		return nil, err
	}
	if err = f.Sync(); err != nil {
		return nil, err
	}
	if info, err = f.Stat(); err != nil {
		return nil, err
	}
	if err = f.Close(); err != nil {
		return nil, err
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return nil, err
	}
	// Make the rename durable; some file systems cannot sync a directory,
	// and the data is safe either way.
	if d, derr := os.Open(dir); derr == nil {
		d.Sync()
		d.Close()
	}
	return info, nil
}

// encode writes the graph file; sum is its size and checksums, the
// identity a log names.
func (x *Index) encode(w io.Writer) (sum fileSum, err error) {
	g := x.g
	h := crc32.New(castagnoli)
	cw := &counter{w: w}
	bw := bufio.NewWriterSize(io.MultiWriter(cw, h), 1<<16)
	var b []byte
	b = append(b, magic...)
	b = binary.LittleEndian.AppendUint32(b, formatVersion)
	b = binary.LittleEndian.AppendUint32(b, uint32(g.dim))
	b = binary.LittleEndian.AppendUint32(b, uint32(g.m))
	b = binary.LittleEndian.AppendUint32(b, uint32(g.efc))
	b = binary.LittleEndian.AppendUint64(b, x.gen)
	b = binary.LittleEndian.AppendUint64(b, uint64(g.live))
	b = binary.LittleEndian.AppendUint64(b, uint64(g.size()))
	b = binary.LittleEndian.AppendUint32(b, g.entry)
	b = binary.LittleEndian.AppendUint32(b, uint32(g.top))
	b = binary.LittleEndian.AppendUint64(b, g.seed)
	if _, err := bw.Write(b); err != nil {
		return sum, err
	}
	for s := range g.size() {
		b = x.appendNode(b[:0], s)
		if _, err := bw.Write(b); err != nil {
			return sum, err
		}
	}
	if err := bw.Flush(); err != nil {
		return sum, err
	}
	sum.nodes = h.Sum32()
	b = binary.LittleEndian.AppendUint32(b[:0], sum.nodes)
	b = append(b, make([]byte, pad(cw.n+4))...)
	if _, err := cw.Write(b); err != nil {
		return sum, err
	}
	h.Reset()
	bw.Reset(io.MultiWriter(cw, h))
	for s := range g.size() {
		b = b[:0]
		for _, f := range g.vec(uint32(s)) {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(f))
		}
		if _, err := bw.Write(b); err != nil {
			return sum, err
		}
	}
	if err := bw.Flush(); err != nil {
		return sum, err
	}
	sum.vecs = h.Sum32()
	_, err = cw.Write(binary.LittleEndian.AppendUint32(nil, sum.vecs))
	sum.size = cw.n
	return sum, err
}

// appendNode appends slot s as the file keeps it: flags (1: tombstone),
// level, the id's length and bytes, then each layer's link count and
// links.
func (x *Index) appendNode(b []byte, s int) []byte {
	var flags byte
	if x.g.dead[s] {
		flags = 1
	}
	ls := x.g.links[s]
	b = append(b, flags, byte(len(ls)-1))
	b = binary.AppendUvarint(b, uint64(len(x.ids[s])))
	b = append(b, x.ids[s]...)
	for _, l := range ls {
		b = binary.AppendUvarint(b, uint64(len(l)))
		for _, n := range l {
			b = binary.LittleEndian.AppendUint32(b, n)
		}
	}
	return b
}

// pad is the number of zero bytes that bring offset n to a multiple of
// vectorAlign.
func pad(n int64) int64 { return (vectorAlign - n%vectorAlign) % vectorAlign }

// counter counts the bytes written through it.
type counter struct {
	w io.Writer
	n int64
}

func (c *counter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// Load reads an index written by Save. A missing file gives an error
// satisfying errors.Is(err, os.ErrNotExist); a file that is not a braid
// vector file, is damaged, has another format version, or was built with
// another M than a non-zero opt.M gives ErrFormat. Dim and M come from the
// file; EfSearch from opt, which may be nil.
func Load(path string, opt *Options) (*Index, error) {
	f, err := confine.Open("", path) // never blocks on a FIFO put in its place
	if err != nil {
		return nil, fmt.Errorf("vector: load: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("vector: load: %w", err)
	}
	if !st.Mode().IsRegular() {
		return nil, &FormatError{Path: path, Reason: fmt.Errorf("it is %s, not a file", confine.Kind(st.Mode()))}
	}
	x, err := decode(f, st.Size(), opt)
	if err != nil {
		return nil, loadError(path, err)
	}
	if x.disk != nil {
		x.disk.path, x.disk.info = path, st
		if err := x.replay(LogPath(path)); err != nil {
			return nil, err
		}
	}
	x.g.saved = x.g.size()
	return x, nil
}

// loadError is Load's error for err: a read error from the file system is
// not the file's fault; any other failure means the bytes are not a valid
// graph.
func loadError(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("vector: load %s: %w", path, err)
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		err = errors.New("file is truncated")
	}
	return &FormatError{Path: path, Reason: err}
}

// Verify checks the graph file at path whole: what Load checks (the log's
// records included), and the vectors' checksum, which Load leaves to it.
// Its errors are Load's. A log Load ignores (another file's, or cut short
// by a crash) is no error: the graph is then as its last sound save.
func Verify(path string) error {
	x, err := Load(path, nil)
	if err != nil {
		return err
	}
	g := x.g
	if g.vecOff == 0 {
		return nil // version 1: Load read and checked every byte
	}
	f, err := confine.Open("", path)
	if err != nil {
		return fmt.Errorf("vector: verify: %w", err)
	}
	defer f.Close()
	n := x.disk.sum.size - g.vecOff - 4
	h := crc32.New(castagnoli)
	if _, err := io.Copy(h, io.NewSectionReader(f, g.vecOff, n)); err != nil {
		return loadError(path, err)
	}
	var sum [4]byte
	if _, err := f.ReadAt(sum[:], g.vecOff+n); err != nil {
		return loadError(path, err)
	}
	if binary.LittleEndian.Uint32(sum[:]) != h.Sum32() {
		return loadError(path, errors.New("checksum mismatch in the vectors"))
	}
	return nil
}

// FormatError is Load's error for a file that is not a valid graph of this
// format: it matches ErrFormat, and ErrMismatch when the file is sound but
// of another format version or M.
type FormatError struct {
	Path   string
	Reason error // what is wrong with the file
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("%v: %s: %v; re-run `braid index` to rebuild it", ErrFormat, e.Path, e.Reason)
}

func (e *FormatError) Is(target error) bool { return target == ErrFormat }

func (e *FormatError) Unwrap() error { return e.Reason }

func bad(format string, a ...any) error { return fmt.Errorf(format, a...) }

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
// top, a tombstone without an id, a live node's id not already held.
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
	if _, dup := x.slot[id]; dead && id != "" {
		return false, 0, "", bad("node %d: tombstone with id %q", s, id)
	} else if !dead && dup {
		return false, 0, "", bad("node %d: id %q twice", s, id)
	}
	return dead, level, id, nil
}

// readVector reads len(v) little-endian float32s into v.
func readVector(r source, v []float32) error {
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
func (g *graph) checkLinks(s int) error {
	for l, ns := range g.links[s] {
		for _, t := range ns {
			if int(t) >= g.size() || len(g.links[t]) <= l {
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
		ls[l] = make([]uint32, c, g.maxLinks(l)+1)
		for i := range ls[l] {
			ls[l][i] = binary.LittleEndian.Uint32(b[i*4:])
		}
	}
	return ls, nil
}

// decode reads a graph file of size bytes from f; an *os.File has its
// vectors mapped into memory where it can.
func decode(f io.ReaderAt, size int64, opt *Options) (*Index, error) {
	br := bufio.NewReaderSize(io.NewSectionReader(f, 0, size), 1<<16)
	r := &reader{r: br, h: crc32.New(castagnoli)}
	b, err := r.next(headerSize)
	if err != nil {
		return nil, bad("not a braid vector file (%d bytes)", size)
	}
	if string(b[:8]) != magic {
		return nil, bad("not a braid vector file")
	}
	le := binary.LittleEndian
	version := le.Uint32(b[8:])
	if version != formatVersion && version != formatInline {
		return nil, fmt.Errorf("%w: format version %d, want %d", ErrMismatch, version, formatVersion)
	}
	inline := version == formatInline
	dim, m, efc := int(le.Uint32(b[12:])), int(le.Uint32(b[16:])), int(le.Uint32(b[20:]))
	gen, count, nodes := le.Uint64(b[24:]), le.Uint64(b[32:]), le.Uint64(b[40:])
	entry, top, seed := le.Uint32(b[48:]), int(le.Uint32(b[52:])), le.Uint64(b[56:])
	switch {
	case dim <= 0 || dim > maxDim:
		return nil, bad("dimension %d out of range", dim)
	case m < 2 || m > 1<<12:
		return nil, bad("M %d out of range", m)
	case nodes > uint64(size)/uint64(dim*4+3) || count > nodes:
		return nil, bad("%d vectors (%d live) cannot fit in %d bytes", nodes, count, size)
	case nodes == 0 && entry != none, nodes > 0 && uint64(entry) >= nodes, top > maxLevel:
		return nil, bad("entry point %d (layer %d) out of range", entry, top)
	}
	if opt != nil && opt.M > 0 && opt.M != m {
		return nil, fmt.Errorf("%w: graph built with M=%d, want %d", ErrMismatch, m, opt.M)
	}
	o := opt.withDefaults()
	o.M = m
	if opt == nil || opt.EfConstruction <= 0 {
		o.EfConstruction = max(efc, m)
	}
	g := newGraph(dim, m, o.EfConstruction)
	g.entry, g.top, g.seed = entry, top, seed
	n := int(nodes)
	if inline {
		g.vecs = make([]float32, n*dim)
	}
	g.dead = make([]bool, n)
	g.links = make([][][]uint32, n)
	x := &Index{dim: dim, opt: o, g: g, slot: make(map[string]uint32, count), ids: make([]string, n), gen: gen}
	for s := range n {
		dead, level, id, err := x.readHead(r, s, top, uint64(size))
		if err != nil {
			return nil, err
		}
		if g.dead[s] = dead; !dead {
			x.slot[id] = uint32(s)
			x.ids[s] = id
			g.live++
		}
		if inline {
			if err := readVector(r, g.vecs[s*dim:(s+1)*dim]); err != nil {
				return nil, err
			}
		}
		ls, err := readLinks(r, g, s, level)
		if err != nil {
			return nil, err
		}
		g.links[s] = ls
	}
	sum := r.h.Sum32()
	b, err = r.next(4)
	if err != nil {
		return nil, err
	}
	if le.Uint32(b) != sum {
		return nil, bad("checksum mismatch")
	}
	if inline {
		if _, err := br.ReadByte(); err != io.EOF {
			return nil, bad("trailing data")
		}
		x.changed.Store(true) // the next Save writes the current format
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
		var vs [4]byte
		if _, err := f.ReadAt(vs[:], size-4); err != nil {
			return nil, err
		}
		x.disk = &onDisk{g: g, sum: fileSum{size: size, nodes: sum, vecs: le.Uint32(vs[:])}}
	}
	if uint64(g.live) != count {
		return nil, bad("%d live vectors, header says %d", g.live, count)
	}
	// Every link must name a node that reaches its layer, or a search
	// would index out of range.
	for s := range g.links {
		if err := g.checkLinks(s); err != nil {
			return nil, err
		}
	}
	if n > 0 && len(g.links[entry]) != top+1 {
		return nil, bad("entry point %d is not on layer %d", entry, top)
	}
	return x, nil
}
