package vector

import (
	"bufio"
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
	"runtime"
	"unsafe"

	"github.com/braidsearch/braid/internal/confine"
	"github.com/braidsearch/braid/internal/half"
)

// File format, version 4, little endian: a header, then sections each
// starting at a multiple of 64 bytes from the file's start (zero bytes
// between), then a trailer.
//
//	header     magic "BRAIDVEC", version u32, dim u32, M u32,
//	           efConstruction u32, gen u64, count u64 (live vectors),
//	           nodes u64 (with tombstones), entry u32 (MaxUint32: none),
//	           top u32, seed u64, id bytes u64, upper bytes u64
//	tombstones ceil(nodes/64) × u64, bit s%64 of word s/64 set for a
//	           tombstone
//	upper      the layers above 0 of each node that has any, in slot
//	           order: slot (uvarint), level u8, then for each layer
//	           1..level its link count (uvarint) and that many u32 slots;
//	           upper bytes long
//	links      layer 0: nodes rows of 2M+1 u32, the link count then the
//	           links, zeros after them
//	id offsets nodes+1 × u64: slot s's id is ids[off[s]:off[s+1]] (empty
//	           for a tombstone)
//	ids        the ids, slot by slot, id bytes long
//	codes      nodes × (dim × i8, scale f32), slot by slot: each vector's
//	           code, what a search's walk reads (quant.go)
//	halfs      nodes × dim × f16 (IEEE 754 half precision), slot by
//	           slot: the vectors, read to rescore a search's finalists,
//	           by Vector, and to link new nodes
//	trailer    CRC-32C of the header, then of each section in order (8 ×
//	           u32), then CRC-32C of those 32 bytes, u32
//
// Load maps the file into memory (where the system can map files and is
// little endian; else it reads it) and decodes only the header, trailer,
// tombstones and upper layers, about one node in M, checking their
// checksums: the links of layer 0, the ids, the codes and the vectors are
// used where they lie, so opening costs nothing in proportion to the
// graph, and a search touches only the pages of the nodes it visits: the
// codes of each (388 bytes at 384-d), and the vectors (768) of its few
// finalists. Since Load does not check them, the graph reads them with
// care: a row's count is clamped to the row, a link past the graph is
// skipped, an id offset is checked before it slices, a scale that is not
// finite counts as 0. Their checksums, every link, and that each code is
// its vector's are checked by Verify (braid doctor): damage there can
// misrank, never crash.
//
// Version 3 (still read; the next Save writes version 4) had the same
// header and sections up to the ids, then the vectors as nodes × dim ×
// f32 and a trailer of 7 checksums: its vectors are mapped, rounded to
// fp16 as they are read, and their codes made on the heap at Load.
// Version 2 kept the nodes,
// each as a log record keeps it (node.go), under one checksum, then the
// vectors at the next multiple of 64, then their checksum; version 1 kept
// each node's vector inline, before its links, under one checksum. Both
// are decoded onto the heap, every link checked (a version 2 file's
// vectors mapped), and the codes of all made.
//
// A change log beside the file (LogPath, log.go) may hold what changed
// since it was written; it has a format version of its own.
//
// Bump formatVersion on any change; Load reports other versions as
// ErrFormat so the engine rebuilds the graph.
const (
	magic         = "BRAIDVEC"
	formatVersion = 4
	formatFloats  = 3 // version 3: sections, the vectors as float32s
	formatNodes   = 2 // version 2: nodes decoded, vectors mapped
	formatInline  = 1 // version 1: vectors inline with their nodes
	headerSize    = 8 + 4*4 + 8*3 + 4*2 + 8
	headerSize3   = headerSize + 8*2
	trailerSize   = 4 * (sections + 2)
	trailerSize3  = 4 * (sections3 + 2)
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

// header is a graph file's header, the same in every version up to seed;
// version 3 adds the sizes of its two sections of variable length.
type header struct {
	version           uint32
	dim, m, efc, top  int
	gen, count, nodes uint64
	entry             uint32
	seed              uint64
	idBytes, upBytes  uint64 // version 3
}

// parseHeader reads and checks the first headerSize bytes of a graph file
// of size bytes.
func parseHeader(b []byte, size int64) (header, error) {
	le := binary.LittleEndian
	if string(b[:8]) != magic {
		return header{}, bad("not a braid vector file")
	}
	h := header{version: le.Uint32(b[8:])}
	if h.version < formatInline || h.version > formatVersion {
		return h, fmt.Errorf("%w: format version %d, want %d", ErrMismatch, h.version, formatVersion)
	}
	h.dim, h.m, h.efc = int(le.Uint32(b[12:])), int(le.Uint32(b[16:])), int(le.Uint32(b[20:]))
	h.gen, h.count, h.nodes = le.Uint64(b[24:]), le.Uint64(b[32:]), le.Uint64(b[40:])
	h.entry, h.top, h.seed = le.Uint32(b[48:]), int(le.Uint32(b[52:])), le.Uint64(b[56:])
	switch {
	case h.dim <= 0 || h.dim > maxDim:
		return h, bad("dimension %d out of range", h.dim)
	case h.m < 2 || h.m > 1<<12:
		return h, bad("M %d out of range", h.m)
	case h.nodes > uint64(size)/uint64(h.dim*2+3) || h.count > h.nodes:
		return h, bad("%d vectors (%d live) cannot fit in %d bytes", h.nodes, h.count, size)
	case h.nodes == 0 && h.entry != none, h.nodes > 0 && uint64(h.entry) >= h.nodes, h.top > maxLevel:
		return h, bad("entry point %d (layer %d) out of range", h.entry, h.top)
	}
	return h, nil
}

// index is an empty index for the graph h describes, with its options
// from h and opt; a non-zero opt.M other than the file's is ErrMismatch.
func (h header) index(opt *Options) (*Index, error) {
	if opt != nil && opt.M > 0 && opt.M != h.m {
		return nil, fmt.Errorf("%w: graph built with M=%d, want %d", ErrMismatch, h.m, opt.M)
	}
	o := opt.withDefaults()
	o.M = h.m
	if opt == nil || opt.EfConstruction <= 0 {
		o.EfConstruction = max(h.efc, h.m)
	}
	g := newGraph(h.dim, h.m, o.EfConstruction)
	g.entry, g.top, g.seed = h.entry, h.top, h.seed
	return &Index{dim: h.dim, opt: o, g: g, gen: h.gen}, nil
}

// layout is where a version 3 or 4 file's sections lie: each starts at
// a multiple of vectorAlign and runs for its length; the trailer, of
// trailer bytes, follows the last.
type layout struct {
	off, len [sections]int64
	n        int   // sections: sections, or sections3
	end      int64 // the trailer's offset
	trailer  int64
}

// The sections of a version 4 file, in file order; a version 3 file's
// are the same up to the ids, then its float32 vectors (secVectors).
const (
	secDead = iota
	secUpper
	secLinks
	secIDOffsets
	secIDs
	secCodes
	secHalfs
	sections
	secVectors = secCodes
	sections3  = secVectors + 1
)

var sectionNames = [sections]string{"tombstones", "upper layers", "links", "id offsets", "ids", "codes", "vectors"}

// sectionName is the name of section i of a file of the given version.
func sectionName(version uint32, i int) string {
	if version == formatFloats && i == secVectors {
		return "vectors"
	}
	return sectionNames[i]
}

// layout places h's sections, and checks the file of size bytes can hold
// them; the lengths are bounded by size before they are multiplied, so
// nothing overflows.
func (h header) layout(size int64) (layout, error) {
	var lay layout
	n := int64(h.nodes)
	perVector := int64(h.dim)*3 + 4 // a code and a vector in fp16
	lay.n, lay.trailer = sections, trailerSize
	if h.version == formatFloats {
		perVector = int64(h.dim) * 4
		lay.n, lay.trailer = sections3, trailerSize3
	}
	perNode := perVector + int64(2*h.m+1)*4 + 8
	if h.nodes > uint64(size)/uint64(perNode) || h.idBytes > uint64(size) || h.upBytes > uint64(size) {
		return lay, bad("file is truncated: %d bytes cannot hold %d vectors with %d bytes of ids and %d of upper layers", size, h.nodes, h.idBytes, h.upBytes)
	}
	lay.len = [sections]int64{
		secDead:      (n + 63) / 64 * 8,
		secUpper:     int64(h.upBytes),
		secLinks:     n * int64(2*h.m+1) * 4,
		secIDOffsets: (n + 1) * 8,
		secIDs:       int64(h.idBytes),
		secCodes:     n * int64(codeBytes(h.dim)),
		secHalfs:     n * int64(h.dim) * 2,
	}
	if h.version == formatFloats {
		lay.len[secVectors], lay.len[secHalfs] = n*int64(h.dim)*4, 0
	}
	at := int64(headerSize3)
	for i := range lay.n {
		at += pad(at)
		lay.off[i] = at
		at += lay.len[i]
	}
	lay.end = at
	switch want := at + lay.trailer; {
	case size < want:
		return lay, bad("file is truncated: %d bytes, its sections need %d", size, want)
	case size > want:
		return lay, bad("trailing data")
	}
	return lay, nil
}

// encode writes the graph file, version 4; sum is its size and the
// checksums a log names it by.
func (x *Index) encode(w io.Writer) (sum fileSum, err error) {
	g := x.g
	le := binary.LittleEndian
	n := g.size()
	// The upper layers and the ids' length go in the header: gather them
	// first (the upper layers are about one node in m).
	var upper []byte
	for s := range uint32(n) {
		if level := g.level(s); level > 0 {
			upper = binary.AppendUvarint(upper, uint64(s))
			upper = append(upper, byte(level))
			for l := 1; l <= level; l++ {
				ls := g.links(s, l)
				upper = binary.AppendUvarint(upper, uint64(len(ls)))
				for _, t := range ls {
					upper = le.AppendUint32(upper, t)
				}
			}
		}
	}
	var idBytes uint64
	for s := range uint32(n) {
		idBytes += uint64(len(x.id(s)))
	}
	fw := &fileWriter{w: bufio.NewWriterSize(w, 1<<16)}
	var b []byte
	b = append(b, magic...)
	b = le.AppendUint32(b, formatVersion)
	b = le.AppendUint32(b, uint32(g.dim))
	b = le.AppendUint32(b, uint32(g.m))
	b = le.AppendUint32(b, uint32(g.efc))
	b = le.AppendUint64(b, x.gen)
	b = le.AppendUint64(b, uint64(g.live))
	b = le.AppendUint64(b, uint64(n))
	b = le.AppendUint32(b, g.entry)
	b = le.AppendUint32(b, uint32(g.top))
	b = le.AppendUint64(b, g.seed)
	b = le.AppendUint64(b, idBytes)
	b = le.AppendUint64(b, uint64(len(upper)))
	var sums [sections + 1]uint32
	fw.write(b)
	sums[0] = fw.end()

	fw.start()
	for _, w := range g.dead {
		fw.write(le.AppendUint64(b[:0], w))
	}
	sums[1+secDead] = fw.end()

	fw.start()
	fw.write(upper)
	sums[1+secUpper] = fw.end()

	fw.start()
	for s := range uint32(n) {
		b = le.AppendUint32(b[:0], 0)
		c := 0
		for _, t := range g.links(s, 0) {
			if int(t) < n { // a damaged mapped row's others are dropped
				b = le.AppendUint32(b, t)
				c++
			}
		}
		le.PutUint32(b, uint32(c))
		b = append(b, make([]byte, (g.stride()-1-c)*4)...)
		fw.write(b)
	}
	sums[1+secLinks] = fw.end()

	fw.start()
	var off uint64
	fw.write(le.AppendUint64(b[:0], 0))
	for s := range uint32(n) {
		off += uint64(len(x.id(s)))
		fw.write(le.AppendUint64(b[:0], off))
	}
	sums[1+secIDOffsets] = fw.end()

	fw.start()
	for s := range uint32(n) {
		fw.write(append(b[:0], x.id(s)...))
	}
	sums[1+secIDs] = fw.end()

	fw.start()
	for s := range uint32(n) {
		fw.write(g.codeOf(s))
	}
	sums[1+secCodes] = fw.end()

	fw.start()
	buf := make([]float32, g.dim)
	for s := range uint32(n) {
		b = b[:0]
		if h := g.halfOf(s); h != nil {
			for _, x := range h {
				b = le.AppendUint16(b, x)
			}
		} else {
			for _, f := range g.vec(s, buf) {
				b = le.AppendUint16(b, half.To(f))
			}
		}
		fw.write(b)
	}
	sums[1+secHalfs] = fw.end()

	b = b[:0]
	for _, c := range sums {
		b = le.AppendUint32(b, c)
	}
	b = le.AppendUint32(b, crc32.Checksum(b, castagnoli))
	fw.write(b)
	if fw.err == nil {
		fw.err = fw.w.Flush()
	}
	return fileSum{size: fw.n, nodes: le.Uint32(b[len(b)-4:]), vecs: sums[1+secHalfs], log: logVersion}, fw.err
}

// fileWriter writes a version 4 file, keeping the checksum of the section
// being written.
type fileWriter struct {
	w   *bufio.Writer
	n   int64
	crc uint32
	err error
}

func (f *fileWriter) write(b []byte) {
	if f.err != nil {
		return
	}
	_, f.err = f.w.Write(b)
	f.n += int64(len(b))
	f.crc = crc32.Update(f.crc, castagnoli, b)
}

// start pads the file to the next section's offset.
func (f *fileWriter) start() {
	f.write(make([]byte, pad(f.n)))
	f.crc = 0
}

// end returns the checksum of what was written since start.
func (f *fileWriter) end() uint32 { return f.crc }

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
	return LoadTrusting(path, opt, Trust{})
}

// Trust lets Load skip reading the checksums of a version 3 file's
// mapped sections (layer 0's links and the ids; at a million nodes some
// 165 MB) when the file is known to have passed them before: Checked is
// asked about the opened file, and Verified told of one whose sections
// Load read and found whole. The caller keeps that knowledge where
// another user or a copied index cannot forge it (indexdir.Stamps). A
// nil function trusts nothing and records nothing.
type Trust struct {
	Checked  func(f *os.File) bool
	Verified func(f *os.File)
}

// LoadTrusting is Load, the checksums of a file t says was checked before
// not read again.
func LoadTrusting(path string, opt *Options, t Trust) (x *Index, err error) {
	f, err := confine.Open("", path) // never blocks on a FIFO put in its place
	if err != nil {
		return nil, fmt.Errorf("vector: load: %w", err)
	}
	defer func() {
		if x == nil || x.g.pread == nil || x.g.pread.f != io.ReaderAt(f) {
			f.Close() // else kept open for the graph's searches to read
		}
	}()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("vector: load: %w", err)
	}
	if !st.Mode().IsRegular() {
		return nil, &FormatError{Path: path, Reason: fmt.Errorf("it is %s, not a file", confine.Kind(st.Mode()))}
	}
	trusted := t.Checked != nil && t.Checked(f)
	x, read, err := decodeTrusting(f, st.Size(), opt, trusted)
	if err != nil {
		return nil, loadError(path, err)
	}
	if x.disk != nil {
		x.disk.path, x.disk.info = path, st
		if err := x.replay(LogPath(path)); err != nil {
			return nil, err
		}
		if x.g.format != formatVersion {
			// Version 2 or 3: the next Save writes version 4 whole,
			// and removes the log.
			x.disk = nil
			x.changed.Store(true)
		}
	}
	if read && t.Verified != nil {
		t.Verified(f)
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
// records included), and what Load leaves to it: in a version 3 or 4
// file every section's checksum, every link, the ids' offsets, that no
// live id is held twice and (version 4) that every code is its vector's;
// in a version 2 file the vectors' checksum. Its errors
// are Load's. A log Load ignores (another file's, or cut short by a
// crash) is no error: the graph is then as its last sound save.
func Verify(path string) error {
	x, err := Load(path, nil)
	if err != nil {
		return err
	}
	g := x.g
	if g.format == formatInline {
		return nil // Load read and checked every byte
	}
	f, err := confine.Open("", path)
	if err != nil {
		return fmt.Errorf("vector: verify: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("vector: verify: %w", err)
	}
	if g.format != formatNodes {
		if err := verify3(f, st.Size(), x); err != nil {
			return loadError(path, err)
		}
		return nil
	}
	n := st.Size() - g.vecOff - 4
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

// decode reads a graph file of size bytes from f: a version 3 file's
// sections mapped (an *os.File, where the system maps files and is little
// endian) or read whole into memory, an older one's nodes decoded onto
// the heap.
func decode(f io.ReaderAt, size int64, opt *Options) (*Index, error) {
	x, _, err := decodeTrusting(f, size, opt, false)
	return x, err
}

// decodeTrusting is decode, a version 3 file's mapped sections not
// checked when trusted; read says it checked them.
func decodeTrusting(f io.ReaderAt, size int64, opt *Options, trusted bool) (x *Index, read bool, err error) {
	br := bufio.NewReaderSize(io.NewSectionReader(f, 0, size), 1<<16)
	r := &reader{r: br, h: crc32.New(castagnoli)}
	b, err := r.next(headerSize)
	if err != nil {
		return nil, false, bad("not a braid vector file (%d bytes)", size)
	}
	h, err := parseHeader(b, size)
	if err != nil {
		return nil, false, err
	}
	if h.version < formatFloats {
		x, err = decode2(f, size, r, br, h, opt)
		return x, false, err
	}
	x, err = decode3(f, size, h, opt, trusted)
	return x, err == nil && !trusted, err
}

// decode3 reads a version 3 or 4 file after its header h. It reads and
// checks the header, the trailer, the tombstones and the upper layers,
// which are small; the links of layer 0, the ids, the codes and the
// vectors stay in the file, checked by Verify: walks skip a link past the
// graph and clamp a row's count (graph.links), a damaged id offset reads
// as "" (idTable.at), a damaged scale as 0 (codeScale). A version 3
// file's codes are made at Load, on the heap.
func decode3(f io.ReaderAt, size int64, h header, opt *Options, trusted bool) (*Index, error) {
	le := binary.LittleEndian
	var head [headerSize3]byte
	if _, err := f.ReadAt(head[:], 0); err != nil {
		return nil, err
	}
	h.idBytes, h.upBytes = le.Uint64(head[headerSize:]), le.Uint64(head[headerSize+8:])
	lay, err := h.layout(size)
	if err != nil {
		return nil, err
	}
	tr := make([]byte, lay.trailer)
	if _, err := f.ReadAt(tr, lay.end); err != nil {
		return nil, err
	}
	if crc32.Checksum(tr[:len(tr)-4], castagnoli) != le.Uint32(tr[len(tr)-4:]) {
		return nil, bad("checksum mismatch in the trailer")
	}
	if crc32.Checksum(head[:], castagnoli) != le.Uint32(tr[:]) {
		return nil, bad("checksum mismatch in the header")
	}
	x, err := h.index(opt)
	if err != nil {
		return nil, err
	}
	mp, err := mapFileOrRead(f, size)
	if err != nil {
		return nil, err
	}
	sec := func(i int) []byte { return mp.b[lay.off[i] : lay.off[i]+lay.len[i]] }
	// Every section but the codes and vectors is checked, as a version 2
	// file's nodes were: a damaged link or id is said at every open, with
	// the fix, and not only by braid doctor (at a million nodes, some 165
	// MB read through CRC-32C). The codes' and vectors' checksums are
	// Verify's: a damaged one can only misrank. The mapped sections are
	// still read with care (g.links, idTable, codeScale), for a file whose
	// checksums were made to fit. A trusted file (Trust) had its links and
	// ids checked before.
	for _, i := range []int{secDead, secUpper, secLinks, secIDOffsets, secIDs} {
		if trusted && (i == secLinks || i == secIDOffsets || i == secIDs) {
			continue
		}
		if crc32.Checksum(sec(i), castagnoli) != le.Uint32(tr[4+4*i:]) {
			return nil, bad("checksum mismatch in the %s", sectionNames[i])
		}
	}
	g, n := x.g, int(h.nodes)
	g.nodes, g.nbase = n, n
	g.dead = decodeU64s(sec(secDead))
	dead := 0
	for _, w := range g.dead {
		dead += bits.OnesCount64(w)
	}
	if n%64 != 0 && g.dead[n/64]>>(n%64) != 0 {
		return nil, bad("tombstones past the last node")
	}
	if g.live = n - dead; uint64(g.live) != h.count {
		return nil, bad("%d live vectors, header says %d", g.live, h.count)
	}
	if err := g.decodeUpper(sec(secUpper)); err != nil {
		return nil, err
	}
	g.base = u32s(sec(secLinks))
	g.mapped, g.format, g.filed = mp, h.version, n
	x.ids = idTable{off: u64s(sec(secIDOffsets)), blob: sec(secIDs), keep: mp}
	if x.ids.off[0] != 0 || x.ids.off[n] != h.idBytes {
		return nil, bad("id offsets %d..%d, want 0..%d", x.ids.off[0], x.ids.off[n], h.idBytes)
	}
	sum := fileSum{size: size, nodes: le.Uint32(tr[len(tr)-4:]), vecs: le.Uint32(tr[4+4*secHalfs:]), log: logVersion}
	if h.version == formatFloats {
		g.vecs = f32s(sec(secVectors))
		g.quantizeFiled()
		sum.vecs, sum.log = le.Uint32(tr[4+4*secVectors:]), logFloats
	} else {
		g.half, g.code, g.ncode = u16s(sec(secHalfs)), sec(secCodes), n
		if opt != nil && opt.Pread && mp.mmapped {
			g.pread = &fileReads{f: f, links: lay.off[secLinks], codes: lay.off[secCodes], halfs: lay.off[secHalfs],
				idOffs: lay.off[secIDOffsets], ids: lay.off[secIDs]}
		}
	}
	x.disk = &onDisk{g: g, sum: sum}
	return x, nil
}

// decodeUpper reads a version 3 file's upper layers, b, into g.up and
// checks them: nodes in slot order, levels up to the top, counts up to M,
// every link to a node that reaches its layer, the entry point on the
// top layer.
func (g *graph) decodeUpper(b []byte) error {
	le := binary.LittleEndian
	// A first pass checks the records' shape and counts the nodes, links
	// and layers, so that the map is made at its size and the lists are
	// cut from two blocks: a few allocations instead of two a node. It
	// marks the nodes above layer 0 (above) and keeps the level of those
	// above layer 1 (high, about one node in m²), so that the second
	// pass checks each link as it reads it, without a lookup in the map.
	// (At a million nodes this is most of a fresh search's Load: 25 ms
	// instead of 68 when the links were checked by ranging over the map.)
	above := make([]uint64, (g.nodes+63)/64)
	high := map[uint32]int{}
	nodes, links, layers := 0, 0, 0
	prev := -1
	for o := 0; o < len(b); nodes++ {
		u, n := binary.Uvarint(b[o:])
		if n <= 0 || u >= uint64(g.nodes) || int(u) <= prev {
			return bad("upper layers: node %d out of order or range", u)
		}
		o += n
		prev = int(u)
		if o == len(b) {
			return bad("upper layers: node %d cut short", u)
		}
		level := int(b[o])
		o++
		if level == 0 || level > g.top {
			return bad("upper layers: node %d on layer %d of %d", u, level, g.top)
		}
		for l := range level {
			c, n := binary.Uvarint(b[o:])
			if n <= 0 || c > uint64(g.m) {
				return bad("upper layers: node %d has %d links on layer %d", u, c, l+1)
			}
			o += n
			if uint64(len(b)-o) < c*4 {
				return bad("upper layers: node %d cut short", u)
			}
			o += int(c) * 4
			links += int(c)
		}
		layers += level
		above[u/64] |= 1 << (u % 64)
		if level > 1 {
			high[uint32(u)] = level
		}
	}
	g.up = make(map[uint32][][]uint32, nodes)
	arena := make([]uint32, 0, links)
	heads := make([][]uint32, 0, layers)
	for o := 0; o < len(b); {
		u, n := binary.Uvarint(b[o:])
		o += n
		level := int(b[o])
		o++
		ls := heads[len(heads) : len(heads)+level : len(heads)+level]
		heads = heads[:len(heads)+level]
		for l := range ls {
			c, n := binary.Uvarint(b[o:])
			o += n
			at := len(arena)
			for range int(c) {
				t := le.Uint32(b[o:])
				o += 4
				// Layer l+1: t must reach it.
				if int(t) >= g.nodes || above[t/64]&(1<<(t%64)) == 0 || l > 0 && high[t] <= l {
					return bad("node %d: link to %d on layer %d", u, t, l+1)
				}
				arena = append(arena, t)
			}
			// Capped, so that a link added later copies the list out.
			ls[l] = arena[at:len(arena):len(arena)]
		}
		g.up[uint32(u)] = ls
	}
	if g.nodes > 0 && g.level(g.entry) != g.top {
		return bad("entry point %d is not on layer %d", g.entry, g.top)
	}
	return nil
}

// verify3 checks what decode3 left to it in the version 3 or 4 file f
// (size bytes) that x was loaded from: every section's checksum, every
// link of layer 0 (a count up to 2M, each to a node of the file), the id
// offsets in order, no id for a tombstone, no live id twice, and in
// version 4 that each code is the one its vector makes.
func verify3(f *os.File, size int64, x *Index) error {
	g := x.g
	le := binary.LittleEndian
	var head [headerSize3]byte
	if _, err := f.ReadAt(head[:], 0); err != nil {
		return err
	}
	h, err := parseHeader(head[:], size)
	if err != nil {
		return err
	}
	h.idBytes, h.upBytes = le.Uint64(head[headerSize:]), le.Uint64(head[headerSize+8:])
	lay, err := h.layout(size)
	if err != nil {
		return err
	}
	tr := make([]byte, lay.trailer)
	if _, err := f.ReadAt(tr, lay.end); err != nil {
		return err
	}
	for i := range lay.n {
		c := crc32.New(castagnoli)
		if _, err := io.Copy(c, io.NewSectionReader(f, lay.off[i], lay.len[i])); err != nil {
			return err
		}
		if c.Sum32() != le.Uint32(tr[4+4*i:]) {
			return bad("checksum mismatch in the %s", sectionName(h.version, i))
		}
	}
	if h.version == formatVersion {
		buf, want := make([]float32, g.dim), make([]byte, g.cbytes)
		for s := range uint32(g.ncode) {
			quantize(want, g.vec(s, buf))
			if string(want) != string(g.codeOf(s)) {
				return bad("node %d: its code is not its vector's", s)
			}
		}
	}
	st := g.stride()
	for s := range g.nbase {
		row := g.base[s*st : (s+1)*st]
		if int(row[0]) > st-1 {
			return bad("node %d: %d links on layer 0", s, row[0])
		}
		for _, t := range row[1 : 1+row[0]] {
			if int(t) >= g.nbase {
				return bad("node %d: link to %d on layer 0", s, t)
			}
		}
	}
	// The file's tombstones (the log may have made more since) have no id.
	b := make([]byte, lay.len[secDead])
	if _, err := f.ReadAt(b, lay.off[secDead]); err != nil {
		return err
	}
	dead := decodeU64s(b)
	off := x.ids.off
	for s := range x.ids.filed() {
		if off[s] > off[s+1] {
			return bad("node %d: id offsets %d, %d out of order", s, off[s], off[s+1])
		}
		if dead[s/64]&(1<<(s%64)) != 0 && off[s] != off[s+1] {
			return bad("node %d: tombstone with id %q", s, x.ids.at(uint32(s)))
		}
	}
	seen := make(map[string]bool, g.live)
	for s := range uint32(g.size()) {
		if g.isDead(s) {
			continue
		}
		id := x.ids.at(s)
		if seen[id] {
			return bad("node %d: id %q twice", s, id)
		}
		seen[id] = true
	}
	return nil
}

// mapFileOrRead maps f (size bytes) read-only where f is a file the
// system maps and is little endian, and reads it into memory otherwise,
// aligned for the version 3 sections.
func mapFileOrRead(f io.ReaderAt, size int64) (*mapping, error) {
	if file, ok := f.(*os.File); ok && littleEndian {
		if b, err := mapFile(file, size); err == nil {
			mp := &mapping{b: b, mmapped: true}
			runtime.AddCleanup(mp, unmapFile, b)
			return mp, nil
		}
	}
	words := make([]uint64, (size+7)/8)
	b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(words))), len(words)*8)[:size]
	if _, err := f.ReadAt(b, 0); err != nil {
		return nil, err
	}
	return &mapping{b: b}, nil
}

// u32s, u64s and f32s view a section of little-endian values as a slice
// in place where the system is little endian (a section starts at a
// multiple of vectorAlign), and decode a copy otherwise.
func u32s(b []byte) []uint32 {
	if len(b) == 0 {
		return nil
	}
	if littleEndian {
		return unsafe.Slice((*uint32)(unsafe.Pointer(&b[0])), len(b)/4)
	}
	out := make([]uint32, len(b)/4)
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(b[i*4:])
	}
	return out
}

func u64s(b []byte) []uint64 {
	if len(b) == 0 {
		return nil
	}
	if littleEndian {
		return unsafe.Slice((*uint64)(unsafe.Pointer(&b[0])), len(b)/8)
	}
	return decodeU64s(b)
}

func f32s(b []byte) []float32 {
	if len(b) == 0 {
		return nil
	}
	if littleEndian {
		return unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), len(b)/4)
	}
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[i*4:]))
	}
	return out
}

// decodeU64s decodes a copy of b's little-endian uint64s, one the graph
// can change.
func decodeU64s(b []byte) []uint64 {
	out := make([]uint64, len(b)/8)
	for i := range out {
		out[i] = binary.LittleEndian.Uint64(b[i*8:])
	}
	return out
}
