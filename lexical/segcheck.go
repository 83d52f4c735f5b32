package lexical

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/blevesearch/vellum"
)

// checkZap checks that the zap segment data (a whole .zap file, CRC
// included) is laid out as zap v16 writes it, as far as anything zap or
// braid reads from it sizes an allocation, a loop or a seek, or indexes a
// slice in one of bleve's goroutines (where a panic is fatal): a CRC
// catches damage, not crafting, and zap trusts every count and offset in
// the file (a doc-value chunk count of 2^40, CRC fixed, made zap ask for
// 8 TiB at open: a fatal error, which nothing recovers). It mirrors zap's
// reads (zapx/v16 v16.2.8: segment.go Open, loadConfig, loadFieldsNew,
// loadDvReaders, visitStoredFields, DocNumbers; docvalues.go; read.go;
// posting.go; intDecoder.go; merge.go and section_inverted_text_index.go
// for a merge) with a bound on each:
//
//   - the footer: version 16, a chunk mode zap knows, every offset inside
//     the file, and as many documents as the stored index has room for;
//   - the sections index and each field: a name of its own and sections
//     inside the file, one inverted-text section (zap numbers dictionaries
//     by it), no vector or synonym section (braid writes neither), and the
//     ids as field 0 with a dictionary;
//   - each field's doc values: one chunk per 1,024 documents, the chunk
//     offsets within the doc values and in order, and in each chunk as many
//     documents as it has bytes for, each a document of the segment, and a
//     snappy length its bytes could decode to;
//   - each document's stored fields: in order, inside the stored section,
//     and a snappy length, values and array positions their bytes could
//     hold;
//   - each field's dictionary: a vellum FST whose every transition leads
//     to a lower address (zap writes children first; a cycle would make an
//     iterator's key grow without end), in order, and whose every state
//     leads to a term; all dictionaries together holding no more terms
//     than the doc values and ids could (termsPerByte);
//   - each term's postings: a roaring bitmap of documents of the segment,
//     in order and as many as it claims, frequencies for each and locations
//     in chunks zap's chunk size gives, each inside the file, a frequency
//     no larger than the term's locations (zap allocates that many), and
//     array positions their bytes could hold.
//
// Everything read in postings is counted, and a segment whose postings
// overlap so that reading them all costs more than a few times its size
// is refused: zap writes each once. A panic of vellum's, decoding a
// dictionary state, is an error too. readAll (zapread_test.go) reads
// whatever this accepts through zap, merges included, in the tests and
// in FuzzSegmentOpen.
func checkZap(data []byte) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = errZap("a dictionary vellum cannot read (%v)", r)
		}
	}()
	if len(data) < zapFooterSize {
		return fmt.Errorf("%d bytes, shorter than a zap footer", len(data))
	}
	z := &zapCheck{mem: data[:len(data)-zapFooterSize]}
	z.budget = 4*int64(len(z.mem)) + 1<<20
	z.terms = termsPerByte*int64(len(z.mem)) + 1<<20
	sections, err := z.footer(data[len(data)-zapFooterSize:])
	if err != nil {
		return err
	}
	if err := z.sections(sections); err != nil {
		return err
	}
	if err := z.stored(); err != nil {
		return err
	}
	for i := range z.fieldList {
		f := &z.fieldList[i]
		if err := z.docValues(f); err != nil {
			return fmt.Errorf("field %q: doc values: %w", f.name, err)
		}
		if err := z.dictionary(f); err != nil {
			return fmt.Errorf("field %q: %w", f.name, err)
		}
	}
	return nil
}

// The zap v16 format's constants (zapx/v16: build.go, write.go, chunk.go,
// section.go, posting.go, docvalues.go).
const (
	zapVersion     = 16
	zapFooterSize  = 4 + 4 + 4 + 8 + 8 + 8 + 8 + 8 // crc, version, chunk mode, five offsets
	zapMaxChunk    = 1026                          // the newest chunk mode; 1..1024 are fixed sizes
	zapMaxFields   = math.MaxUint16                // a field's id is a uint16 in zap
	zapNoDocValues = math.MaxUint64                // fieldNotUninverted

	sectionInvertedText = 0
	sectionVector       = 1
	sectionSynonym      = 2

	fstVal1Hit     = uint64(0x8000000000000000)
	fstValMask     = uint64(0xc000000000000000)
	fstVal1HitDocs = uint64(0x7fffffff)

	// snappyMaxRatio bounds what a snappy block decodes to by its size: the
	// longest copy (64 bytes) takes 3 bytes to say.
	snappyMaxRatio = 22
	// termsPerByte bounds the length of all the terms of a segment's
	// dictionaries (each counted one byte longer) by the segment's size.
	// An FST may say exponentially many terms in few bytes, and reading
	// them (this check, a merge, a prefix query) takes time by their
	// number, but each term of a braid field is in some document's doc
	// values (every field but _id has them, the term and a separator),
	// snappy-compressed at most 22 to 1, or is a document's stored id.
	termsPerByte = 32
)

// zapCheck is one segment's check under way.
type zapCheck struct {
	mem       []byte // the file less its footer, as zap sees it
	numDocs   uint64
	stIndex   uint64 // the stored index: numDocs offsets, 8 bytes each
	chunkMode uint32
	fieldList []zapField
	budget    int64           // bytes the postings may still cost to read
	terms     int64           // bytes of terms the dictionaries may still hold
	bm        *roaring.Bitmap // reused for each term's postings
}

// zapField is one field as the sections index gives it.
type zapField struct {
	name                 string
	dvStart, dvEnd, dict uint64
	hasText              bool // an inverted-text section
}

// errZap is the form of every refusal: what was found, and where.
func errZap(format string, a ...any) error { return fmt.Errorf(format, a...) }

// inside says whether n bytes at at lie within the first limit bytes.
func inside(at, n, limit uint64) bool { return at <= limit && n <= limit-at }

// uvarint reads a varint that lies wholly before limit, at at; it returns
// it and where the next value starts.
func (z *zapCheck) uvarint(at, limit uint64, what string) (uint64, uint64, error) {
	limit = min(limit, uint64(len(z.mem)))
	if at >= limit {
		return 0, 0, errZap("%s at %d is past its end (%d)", what, at, limit)
	}
	v, n := binary.Uvarint(z.mem[at:min(limit, at+binary.MaxVarintLen64)])
	if n <= 0 {
		return 0, 0, errZap("%s at %d is not a varint", what, at)
	}
	return v, at + uint64(n), nil
}

// u64 reads a big-endian uint64 at at, which must lie within mem.
func (z *zapCheck) u64(at uint64, what string) (uint64, error) {
	if !inside(at, 8, uint64(len(z.mem))) {
		return 0, errZap("%s at %d is past the end (%d)", what, at, len(z.mem))
	}
	return binary.BigEndian.Uint64(z.mem[at:]), nil
}

// footer checks what loadConfig reads, and returns where the sections
// index is.
func (z *zapCheck) footer(f []byte) (uint64, error) {
	size := uint64(len(z.mem))
	z.numDocs = binary.BigEndian.Uint64(f[0:])
	z.stIndex = binary.BigEndian.Uint64(f[8:])
	fieldsIndex := binary.BigEndian.Uint64(f[16:])
	sections := binary.BigEndian.Uint64(f[24:])
	dv := binary.BigEndian.Uint64(f[32:])
	z.chunkMode = binary.BigEndian.Uint32(f[40:])
	version := binary.BigEndian.Uint32(f[44:])
	switch {
	case version != zapVersion:
		return 0, errZap("zap version %d, want %d (the only one braid writes)", version, zapVersion)
	case z.chunkMode == 0 || z.chunkMode > zapMaxChunk:
		return 0, errZap("chunk mode %d, which zap does not know", z.chunkMode)
	case z.numDocs > size/8 || !inside(z.stIndex, 8*z.numDocs, size):
		return 0, errZap("%d documents, whose stored index at %d does not fit in %d bytes", z.numDocs, z.stIndex, size)
	case sections == 0 || sections >= size:
		return 0, errZap("sections index at %d, outside its %d bytes", sections, size)
	case fieldsIndex > size:
		return 0, errZap("fields index at %d, outside its %d bytes", fieldsIndex, size)
	case dv != zapNoDocValues && dv > size:
		return 0, errZap("doc values at %d, outside its %d bytes", dv, size)
	}
	return sections, nil
}

// sections checks the sections index at pos and each field it names, as
// loadFieldsNew and loadFieldNew read them.
func (z *zapCheck) sections(pos uint64) error {
	size := uint64(len(z.mem))
	n, pos, err := z.uvarint(pos, size, "field count")
	if err != nil {
		return err
	}
	if n > zapMaxFields || n > (size-pos)/8 {
		return errZap("%d fields, with room for %d", n, (size-pos)/8)
	}
	names := map[string]bool{}
	for id := range n {
		addr, err := z.u64(pos+8*id, "field address")
		if err != nil {
			return err
		}
		f, err := z.field(addr)
		if err != nil {
			return fmt.Errorf("field %d: %w", id, err)
		}
		if names[f.name] {
			return errZap("field %q twice", f.name)
		}
		names[f.name] = true
		z.fieldList = append(z.fieldList, f)
	}
	// zap writes the documents' ids as field 0, with a dictionary: a merge
	// takes each document's first stored value of field 0 as its id, and
	// a lookup by id reads that dictionary (in bleve's goroutines, where a
	// panic is fatal).
	if z.numDocs > 0 && (len(z.fieldList) == 0 || z.fieldList[0].name != "_id" || z.fieldList[0].dict == 0) {
		return errZap("no dictionary of ids as field 0")
	}
	return nil
}

// field checks the field at addr: its name and its sections.
func (z *zapCheck) field(addr uint64) (zapField, error) {
	var f zapField
	size := uint64(len(z.mem))
	if addr == 0 {
		return f, errZap("no address") // zap would number the fields after it wrong
	}
	nameLen, at, err := z.uvarint(addr, size, "name length")
	if err != nil {
		return f, err
	}
	if !inside(at, nameLen, size) {
		return f, errZap("a name of %d bytes at %d, past the end (%d)", nameLen, at, size)
	}
	f.name = string(z.mem[at : at+nameLen])
	count, at, err := z.uvarint(at+nameLen, size, "section count")
	if err != nil {
		return f, err
	}
	if count > (size-at)/10 {
		return f, errZap("%d sections, with room for %d", count, (size-at)/10)
	}
	seen := map[uint16]bool{}
	for range count {
		typ := binary.BigEndian.Uint16(z.mem[at:])
		sec := binary.BigEndian.Uint64(z.mem[at+2:])
		at += 10
		switch {
		case seen[typ]:
			return f, errZap("section %d twice", typ)
		case typ > sectionSynonym:
			return f, errZap("section type %d, which zap does not know", typ)
		case sec == 0:
		case typ != sectionInvertedText:
			return f, errZap("a vector or synonym section (type %d), which braid does not write", typ)
		case sec >= size:
			return f, errZap("section at %d, past the end (%d)", sec, size)
		default:
			f.hasText = true
			if f.dvStart, sec, err = z.uvarint(sec, size, "doc values start"); err != nil {
				return f, err
			}
			if f.dvEnd, sec, err = z.uvarint(sec, size, "doc values end"); err != nil {
				return f, err
			}
			if f.dict, _, err = z.uvarint(sec, size, "dictionary offset"); err != nil {
				return f, err
			}
		}
		seen[typ] = true
	}
	if !seen[sectionInvertedText] {
		// zap keeps a dictionary offset per inverted-text section and
		// looks one up per field: without one, every later field's is off
		// by one, past the end at the last (a panic in bleve's goroutines).
		return f, errZap("no inverted-text section")
	}
	return f, nil
}

// docValues checks field f's doc values, which loadFieldDocValueReader
// reads at open (the chunk count and offsets) and loadDvChunk when a
// document's values are read (each chunk's header and snappy length).
func (z *zapCheck) docValues(f *zapField) error {
	if !f.hasText || z.numDocs == 0 || f.dvStart == zapNoDocValues {
		return nil // zap reads none
	}
	start, end := f.dvStart, f.dvEnd
	if start >= end || end > uint64(len(z.mem)) || end-start <= 16 {
		return errZap("at %d to %d, not a range of more than 16 bytes inside %d", start, end, len(z.mem))
	}
	numChunks := binary.BigEndian.Uint64(z.mem[end-8:])
	offsetsLen := binary.BigEndian.Uint64(z.mem[end-16:])
	if offsetsLen > end-16-start {
		return errZap("%d bytes of chunk offsets in %d bytes", offsetsLen, end-16-start)
	}
	offsetsAt := end - 16 - offsetsLen
	// Doc values are chunked by 1,024 documents (LegacyChunkMode), and zap
	// looks a document's chunk up without asking whether it is there.
	if want := (z.numDocs-1)/1024 + 1; numChunks != want || numChunks > offsetsLen {
		return errZap("%d chunks, for %d documents (want %d) in %d bytes of offsets", numChunks, z.numDocs, want, offsetsLen)
	}
	data := offsetsAt - start // the chunks lie before their offsets
	var prev uint64
	at := offsetsAt
	for i := range numChunks {
		off, next, err := z.uvarint(at, end-16, "chunk offset")
		if err != nil {
			return err
		}
		at = next
		if off < prev || off > data {
			return errZap("chunk %d ends at %d, outside %d to %d", i, off, prev, data)
		}
		if off > prev {
			if err := z.dvChunk(start+prev, start+off); err != nil {
				return fmt.Errorf("chunk %d: %w", i, err)
			}
		}
		prev = off
	}
	return nil
}

// dvChunk checks the doc-value chunk at from to to: a count of documents,
// a document number and end offset for each, and a snappy block.
func (z *zapCheck) dvChunk(from, to uint64) error {
	docs, at, err := z.uvarint(from, to, "document count")
	if err != nil {
		return err
	}
	if docs > (to-at)/2 {
		return errZap("%d documents in %d bytes", docs, to-at)
	}
	var ends []uint64
	for range docs {
		var doc, end uint64
		if doc, at, err = z.uvarint(at, to, "document number"); err != nil {
			return err
		}
		if end, at, err = z.uvarint(at, to, "value offset"); err != nil {
			return err
		}
		if doc >= z.numDocs {
			return errZap("document %d of %d", doc, z.numDocs)
		}
		ends = append(ends, end)
	}
	n, err := snappyLen(z.mem[at:to])
	if err != nil {
		return err
	}
	var prev uint64
	for _, e := range ends {
		if e < prev || e > n {
			return errZap("values ending at %d, outside %d to %d", e, prev, n)
		}
		prev = e
	}
	return nil
}

// snappyLen is the length the snappy block b says it decodes to, which
// snappy.Decode allocates, bounded by what b's bytes could say.
func snappyLen(b []byte) (uint64, error) {
	n, k := binary.Uvarint(b)
	switch {
	case k <= 0:
		return 0, errZap("a snappy block of %d bytes without a length", len(b))
	case n > snappyMaxRatio*uint64(len(b)):
		return 0, errZap("a snappy block of %d bytes decoding to %d", len(b), n)
	}
	return n, nil
}

// stored checks each document's stored fields as visitStoredFields and
// DocID read them: offsets, lengths, the snappy length of what is
// compressed, and each field's array positions.
func (z *zapCheck) stored() error {
	var end uint64 // of the document before: a merge copies them as one run
	for doc := range z.numDocs {
		off := binary.BigEndian.Uint64(z.mem[z.stIndex+8*doc:])
		if off < end {
			return errZap("document %d stored at %d, before the end of the one before (%d)", doc, off, end)
		}
		metaLen, at, err := z.uvarint(off, z.stIndex, "stored meta length")
		if err != nil {
			return fmt.Errorf("document %d: %w", doc, err)
		}
		dataLen, at, err := z.uvarint(at, z.stIndex, "stored data length")
		if err != nil {
			return fmt.Errorf("document %d: %w", doc, err)
		}
		if !inside(at, metaLen, z.stIndex) || !inside(at+metaLen, dataLen, z.stIndex) {
			return errZap("document %d: %d and %d bytes at %d, past the stored fields (%d)", doc, metaLen, dataLen, at, z.stIndex)
		}
		meta, data := at, at+metaLen
		end = data + dataLen
		idLen, m, err := z.uvarint(meta, data, "id length")
		if err != nil {
			return fmt.Errorf("document %d: %w", doc, err)
		}
		if idLen > dataLen {
			return errZap("document %d: an id of %d bytes in %d", doc, idLen, dataLen)
		}
		n, err := snappyLen(z.mem[data+idLen : data+dataLen])
		if err != nil {
			return fmt.Errorf("document %d: %w", doc, err)
		}
		for m < data {
			var v [5]uint64 // field, type, offset, length, array positions
			for i := range v {
				if v[i], m, err = z.uvarint(m, data, "stored field"); err != nil {
					return fmt.Errorf("document %d: %w", doc, err)
				}
			}
			switch {
			case v[0] >= uint64(len(z.fieldList)):
				return errZap("document %d: stored field %d of %d", doc, v[0], len(z.fieldList))
			case !inside(v[2], v[3], n):
				return errZap("document %d: a value of %d bytes at %d in %d", doc, v[3], v[2], n)
			case v[4] > data-m:
				return errZap("document %d: %d array positions in %d bytes", doc, v[4], data-m)
			}
			for range v[4] {
				if _, m, err = z.uvarint(m, data, "array position"); err != nil {
					return fmt.Errorf("document %d: %w", doc, err)
				}
			}
		}
	}
	return nil
}

// fstState is what vellum's decoder says of one state (its fstStateV1):
// the methods FST.Debug's callback is given.
type fstState interface {
	Address() int
	Final() bool
	FinalOutput() uint64
	NumTransitions() int
	TransitionAt(i int) byte
	TransitionFor(b byte) (int, int, uint64)
}

// fstEmpty is vellum's address of the empty final state (common.go's
// emptyAddr); its other reserved address, none (1), is where a term is
// not, never a transition's end.
const fstEmpty = 0

// dictionary checks field f's term dictionary, as Dictionary and
// PostingsList.read find it, and each term's postings.
func (z *zapCheck) dictionary(f *zapField) error {
	if !f.hasText || f.dict == 0 {
		return nil
	}
	size := uint64(len(z.mem))
	n, at, err := z.uvarint(f.dict, size, "dictionary length")
	if err != nil {
		return err
	}
	if n == 0 || !inside(at, n, size) {
		return errZap("a dictionary of %d bytes at %d, past the end (%d)", n, at, size)
	}
	b := z.mem[at : at+n]
	if len(b) < 32 {
		return errZap("a dictionary of %d bytes, short of vellum's header and footer", len(b))
	}
	if root := binary.LittleEndian.Uint64(b[len(b)-8:]); root >= uint64(len(b)) {
		return errZap("a dictionary whose root %d is past its %d bytes", root, len(b))
	}
	fst, err := vellum.Load(b)
	if err != nil {
		return fmt.Errorf("dictionary: %w", err)
	}
	// As vellum's builder writes them: every transition leads to a lower
	// address (children are written first), so the terms are finite and
	// an iterator's key no longer than there are states; a state's
	// transitions are in order, so an iterator gives each term once and in
	// order; and every state without transitions is final, so each step
	// of an iterator leads to a term. Debug visits each state once and
	// calls this before it follows any transition.
	err = fst.Debug(func(i int, s any) error {
		st, ok := s.(fstState)
		if !ok {
			return errZap("a dictionary state of type %T", s)
		}
		addr, n := st.Address(), st.NumTransitions()
		st.FinalOutput()                    // read as an iterator reads it: a panic here is Guard's
		if n == 0 && !st.Final() && i > 0 { // the root of an empty dictionary leads nowhere
			return errZap("a dictionary state at %d that leads nowhere", addr)
		}
		for i := range n {
			t := st.TransitionAt(i)
			if i > 0 && t <= st.TransitionAt(i-1) {
				return errZap("a dictionary state at %d with transitions out of order", addr)
			}
			if _, dest, _ := st.TransitionFor(t); dest != fstEmpty && (dest < 16 || dest >= addr) {
				return errZap("a dictionary transition from %d to %d", addr, dest)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	it, err := fst.Iterator(nil, nil)
	for err == nil {
		k, v := it.Current()
		if z.terms -= int64(len(k)) + 1; z.terms < 0 {
			return errZap("dictionaries holding more terms than the segment's doc values and ids could (over %d bytes of them in %d)", termsPerByte*len(z.mem)+1<<20, len(z.mem))
		}
		if perr := z.postings(v); perr != nil {
			return fmt.Errorf("term %q: %w", k, perr)
		}
		err = it.Next()
	}
	if !errors.Is(err, vellum.ErrIteratorDone) {
		return fmt.Errorf("dictionary: %w", err)
	}
	return nil
}

// charge counts n bytes of postings read against the segment's budget.
func (z *zapCheck) charge(n uint64) error {
	z.budget -= int64(min(n, math.MaxInt32))
	if z.budget < 0 {
		return errZap("postings that overlap: reading them costs more than four times the segment's %d bytes", len(z.mem))
	}
	return nil
}

// postings checks the postings the dictionary value v names.
func (z *zapCheck) postings(v uint64) error {
	if v&fstValMask == fstVal1Hit {
		if doc := v & fstVal1HitDocs; doc >= z.numDocs {
			return errZap("its one document is %d of %d", doc, z.numDocs)
		}
		return nil
	}
	size := uint64(len(z.mem))
	if v >= size {
		return errZap("postings at %d, past the end (%d)", v, size)
	}
	freqAt, at, err := z.uvarint(v, size, "frequencies offset")
	if err != nil {
		return err
	}
	locAt, at, err := z.uvarint(at, size, "locations offset")
	if err != nil {
		return err
	}
	n, at, err := z.uvarint(at, size, "postings length")
	if err != nil {
		return err
	}
	if !inside(at, n, size) {
		return errZap("postings of %d bytes at %d, past the end (%d)", n, at, size)
	}
	if err := z.charge(n); err != nil {
		return err
	}
	docs, err := z.bitmap(z.mem[at : at+n])
	if err != nil {
		return err
	}
	locs, err := z.locations(locAt, docs)
	if err != nil {
		return fmt.Errorf("locations: %w", err)
	}
	hits, err := z.frequencies(freqAt, docs, locs)
	if err != nil {
		return fmt.Errorf("frequencies: %w", err)
	}
	if hits != docs {
		return errZap("%d documents with %d frequencies", docs, hits)
	}
	return nil
}

// bitmap checks a term's roaring bitmap of documents (checkDocs), one at
// least, and returns how many there are.
func (z *zapCheck) bitmap(b []byte) (uint64, error) {
	if z.bm == nil {
		z.bm = roaring.New()
	}
	n, err := docsIn(z.bm, b, z.numDocs, false)
	if err != nil {
		return 0, fmt.Errorf("postings: %w", err)
	}
	return n, z.charge(n)
}

// checkDocs checks a roaring bitmap of documents of a segment of docs
// documents (docsIn); empty says whether it may hold none.
func checkDocs(b []byte, docs uint64, empty bool) error {
	_, err := docsIn(roaring.New(), b, docs, empty)
	return err
}

// docsIn reads the roaring bitmap b into bm and checks it holds documents
// of a segment of docs: roaring bounds what it allocates itself, but a
// container may claim a cardinality its contents do not hold, and zap
// believes it (braid's block bounds allocate by a postings list's Count, a
// merge by a segment's documents less its deleted ones). The documents
// must be in order, fewer than the segment's, and as many as claimed; it
// returns how many.
func docsIn(bm *roaring.Bitmap, b []byte, docs uint64, empty bool) (uint64, error) {
	if _, err := bm.FromBuffer(b); err != nil {
		return 0, err
	}
	claimed := bm.GetCardinality()
	if claimed == 0 && !empty || claimed > docs {
		return 0, errZap("%d documents, in a segment of %d", claimed, docs)
	}
	var count uint64
	prev, bad := int64(-1), int64(-1)
	bm.Iterate(func(x uint32) bool {
		if int64(x) <= prev || uint64(x) >= docs || count >= claimed {
			bad = int64(x)
			return false
		}
		prev = int64(x)
		count++
		return true
	})
	if bad >= 0 {
		return 0, errZap("document %d after %d (of %d claimed), in a segment of %d", bad, prev, claimed, docs)
	}
	if count != claimed {
		return 0, errZap("claiming %d documents and holding %d", claimed, count)
	}
	return count, nil
}

// intChunks checks the chunked integers at offset of a term of docs
// documents (intDecoder.go's newChunkedIntDecoder and loadChunk, which
// allocates by the chunk count) and calls each for each chunk's bytes.
// zap writes one chunk for every chunk size's worth of documents, the
// size getChunkSize gives.
func (z *zapCheck) intChunks(offset, docs uint64, each func(from, to uint64) error) error {
	size := uint64(len(z.mem))
	numChunks, first, err := z.uvarint(offset, size, "chunk count")
	if err != nil {
		return err
	}
	if limit := z.numDocs/z.chunkSize(docs) + 1; numChunks > limit {
		return errZap("%d chunks, for %d documents", numChunks, z.numDocs)
	}
	data := first // the chunks follow their offsets
	for range numChunks {
		if _, data, err = z.uvarint(data, size, "chunk offset"); err != nil {
			return err
		}
	}
	if err := z.charge(data - offset); err != nil {
		return err
	}
	var prev uint64
	for i, at := 0, first; at < data; i++ {
		var end uint64
		end, at, _ = z.uvarint(at, data, "chunk offset")
		if end < prev || !inside(data, end, size) {
			return errZap("chunk %d ends at %d, outside %d to %d", i, end, prev, size-data)
		}
		if err := z.charge(end - prev); err != nil {
			return err
		}
		if err := each(data+prev, data+end); err != nil {
			return fmt.Errorf("chunk %d: %w", i, err)
		}
		prev = end
	}
	return nil
}

// chunkSize is zap's getChunkSize for a term of docs documents in this
// segment; at least 1 (zap refuses a term it makes 0, at a search).
func (z *zapCheck) chunkSize(docs uint64) uint64 {
	switch {
	case z.chunkMode <= 1024:
		return uint64(z.chunkMode)
	case z.chunkMode == 1025 && docs > 1024:
		return 1024
	case z.chunkMode == 1025:
		return max(z.numDocs, 1)
	}
	return max(z.numDocs/(docs/1024+1), 1)
}

// locations checks a term's locations at offset (readLocation): each
// hit's byte count, and each location's field, position, start, end and
// array positions, which zap allocates by their count. It returns how
// many locations there are: no hit can claim more.
func (z *zapCheck) locations(offset, docs uint64) (uint64, error) {
	if offset == 0 {
		return 0, nil // termNotEncoded
	}
	var count uint64
	fields := uint64(len(z.fieldList))
	err := z.intChunks(offset, docs, func(from, to uint64) error {
		c := z.mem[from:to]
		for i := 0; i < len(c); {
			n, next := uvarintAt(c, i)
			if next < 0 || n > uint64(len(c)-next) {
				return errZap("a hit at %d whose length is not in its chunk", from+uint64(i))
			}
			hit := c[:next+int(n)]
			for i = next; i < len(hit); count++ {
				var v [5]uint64 // field, position, start, end, array positions
				for k := range v {
					if v[k], i = uvarintAt(hit, i); i < 0 {
						return errZap("a location cut short in a hit at %d", from+uint64(next))
					}
				}
				if v[0] >= fields {
					return errZap("a location in field %d of %d", v[0], fields)
				}
				if v[4] > uint64(len(hit)-i) {
					return errZap("%d array positions in %d bytes", v[4], len(hit)-i)
				}
				for range v[4] {
					if _, i = uvarintAt(hit, i); i < 0 {
						return errZap("array positions cut short in a hit at %d", from+uint64(next))
					}
				}
			}
		}
		return nil
	})
	return count, err
}

// frequencies checks a term's frequencies at offset: each hit's frequency
// (and whether it has locations) and norm. A hit with locations may claim
// no more of them than the term has: zap allocates that many. It returns
// the number of hits.
func (z *zapCheck) frequencies(offset, docs, locs uint64) (uint64, error) {
	if offset == 0 {
		return 0, nil // termNotEncoded
	}
	var hits uint64
	err := z.intChunks(offset, docs, func(from, to uint64) error {
		c := z.mem[from:to]
		for i := 0; i < len(c); hits++ {
			var fl uint64
			if fl, i = uvarintAt(c, i); i < 0 {
				return errZap("a frequency cut short in a chunk at %d", from)
			}
			freq, hasLocs := fl>>1, fl&1 != 0
			if hasLocs && freq > locs {
				return errZap("a hit of frequency %d, with %d locations in all", freq, locs)
			}
			if freq > 0 {
				if _, i = uvarintAt(c, i); i < 0 {
					return errZap("a norm cut short in a chunk at %d", from)
				}
			}
		}
		return nil
	})
	return hits, err
}

// uvarintAt reads the varint at b[i:], which must end within b; it
// returns the value and where the next starts, or -1 for none.
func uvarintAt(b []byte, i int) (uint64, int) {
	if i < len(b) && b[i] < 0x80 {
		return uint64(b[i]), i + 1
	}
	if i >= len(b) {
		return 0, -1
	}
	v, n := binary.Uvarint(b[i:])
	if n <= 0 {
		return 0, -1
	}
	return v, i + n
}
