package indexdir

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"io"
	"os"
)

// bbolt's on-disk meta page (go.etcd.io/bbolt/internal/common): a 16-byte
// page header, then magic, version, page size, flags (uint32 each), the
// root bucket (root page, sequence), the freelist page, the high-water
// page number, the transaction id, and an FNV-64a checksum of what precedes
// it. Pages 0 and 1 hold the two alternating copies.
const (
	boltMagic      = 0xED0CDAED
	boltVersion    = 2
	metaOffset     = 16
	metaSummed     = 56 // bytes of the meta before its checksum
	metaLen        = metaSummed + 8
	noFreelistPage = ^uint64(0)
)

type boltMeta struct {
	pageSize              uint32
	root, freelist, pages uint64
	txid                  uint64
}

// readMeta reads the meta page at off, or reports why it is not one.
func readMeta(f io.ReaderAt, off int64) (boltMeta, error) {
	var b [metaLen]byte
	if _, err := f.ReadAt(b[:], off+metaOffset); err != nil {
		return boltMeta{}, fmt.Errorf("meta page at byte %d: %w", off, err)
	}
	le := binary.LittleEndian
	if le.Uint32(b[0:]) != boltMagic {
		return boltMeta{}, fmt.Errorf("meta page at byte %d: not a bbolt page", off)
	}
	if v := le.Uint32(b[4:]); v != boltVersion {
		return boltMeta{}, fmt.Errorf("meta page at byte %d: bbolt format %d, not %d", off, v, boltVersion)
	}
	h := fnv.New64a()
	h.Write(b[:metaSummed])
	if h.Sum64() != le.Uint64(b[metaSummed:]) {
		return boltMeta{}, fmt.Errorf("meta page at byte %d: checksum mismatch", off)
	}
	return boltMeta{
		pageSize: le.Uint32(b[8:]),
		root:     le.Uint64(b[16:]),
		freelist: le.Uint64(b[32:]),
		pages:    le.Uint64(b[40:]),
		txid:     le.Uint64(b[48:]),
	}, nil
}

// CheckBolt checks what bbolt trusts without checking before it maps
// the bbolt file at path (meta.db, a lexical index's root.bolt): a valid
// meta page, whose page numbers lie inside the file. A truncated file
// passes bbolt's own open and then faults when a page past its end is
// read; this refuses it first, with the error damaged makes of what is
// wrong. An error opening or describing the file is returned as it is.
func CheckBolt(path string, damaged func(path string, detail any) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if st.Size() == 0 {
		return nil // a new store, which bbolt initialises
	}
	m0, err0 := readMeta(f, 0)
	var metas []boltMeta
	if err0 == nil {
		metas = append(metas, m0)
	}
	// The second copy sits one page in; without the first, try the page
	// sizes bbolt uses.
	sizes := []int64{int64(m0.pageSize)}
	if err0 != nil {
		sizes = []int64{int64(os.Getpagesize()), 4096, 8192, 16384, 65536}
	}
	var err1 error
	for _, ps := range sizes {
		var m1 boltMeta
		if m1, err1 = readMeta(f, ps); err1 == nil && int64(m1.pageSize) == ps {
			metas = append(metas, m1)
			break
		}
	}
	if len(metas) == 0 {
		return damaged(path, fmt.Errorf("no valid meta page: %v; %v", err0, err1))
	}
	// bbolt uses the valid copy with the higher transaction id.
	m := metas[0]
	if len(metas) == 2 && metas[1].txid > m.txid {
		m = metas[1]
	}
	switch {
	case m.pageSize < 512 || m.pageSize&(m.pageSize-1) != 0:
		return damaged(path, fmt.Sprintf("page size %d", m.pageSize))
	case m.pages < 2 || m.root >= m.pages || (m.freelist >= m.pages && m.freelist != noFreelistPage):
		return damaged(path, fmt.Sprintf("meta page names pages past its high-water mark %d", m.pages))
	case uint64(st.Size()) < m.pages*uint64(m.pageSize):
		return damaged(path, fmt.Sprintf("truncated: %d bytes, but its pages reach byte %d", st.Size(), m.pages*uint64(m.pageSize)))
	}
	return nil
}
