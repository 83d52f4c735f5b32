package index

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync/atomic"

	bolt "go.etcd.io/bbolt"
)

// ErrCorrupt is what every error about a damaged index file matches
// (errors.Is): the file is named in the error, with the command that fixes
// it.
var ErrCorrupt = errors.New("index file is damaged")

// CorruptError is a damaged index file: which file, what is wrong with it,
// and what the user runs to fix it.
type CorruptError struct {
	Path, Detail, Fix string
}

func (e *CorruptError) Error() string {
	if e.Detail == "missing" {
		return fmt.Sprintf("%s is missing; %s", e.Path, e.Fix)
	}
	return fmt.Sprintf("%s is damaged (%s); %s", e.Path, e.Detail, e.Fix)
}

// Is makes a CorruptError match ErrCorrupt.
func (e *CorruptError) Is(target error) bool { return target == ErrCorrupt }

// StoreFix is what to do about a damaged metadata store at path: nothing
// else holds what it holds, so the index is rebuilt from its sources.
func StoreFix(path string) string {
	dir := filepath.Dir(path)
	return fmt.Sprintf("meta.db cannot be repaired: delete %s and run braid --index %s index PATH for each source", dir, dir)
}

func storeDamaged(path string, detail any) error {
	return &CorruptError{Path: path, Detail: fmt.Sprint(detail), Fix: StoreFix(path)}
}

// guard runs f, which reads the memory-mapped store at path, so that a
// damaged file is an error rather than a crash: bbolt panics on a page
// that is not what it expects, and a page number past the end of a
// truncated file faults, which SetPanicOnFault turns into a panic that can
// be recovered (for this goroutine, which is the one bbolt runs f on).
func guard(path string, f func() error) error {
	return guardWith(func(r any) error { return storeDamaged(path, r) }, f)
}

// guardWith runs f and turns a panic, or a fault reading mapped memory,
// into the error damaged makes of it.
func guardWith(damaged func(any) error, f func() error) (err error) {
	old := debug.SetPanicOnFault(true)
	defer func() {
		debug.SetPanicOnFault(old)
		if r := recover(); r != nil {
			err = damaged(r)
		}
	}()
	return f()
}

// view is db.View, guarded against a damaged file.
func (s *Store) view(fn func(*bolt.Tx) error) error {
	return s.damaged(guard(s.db.Path(), func() error { return s.db.View(fn) }))
}

// update is db.Update, guarded against a damaged file.
func (s *Store) update(fn func(*bolt.Tx) error) error {
	return s.damaged(guard(s.db.Path(), func() error { return s.db.Update(fn) }))
}

// damaged turns a record that does not decode into an error naming the
// store as damaged: braid wrote every record it reads, so one it cannot
// read was changed under it.
func (s *Store) damaged(err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	if err != nil && !errors.Is(err, ErrCorrupt) && (errors.As(err, &se) || errors.As(err, &te)) {
		return storeDamaged(s.db.Path(), err)
	}
	return err
}

// Verify is CheckStore for a store this process holds open (a second open
// of the file would wait on the lock this one holds): every page, key and
// value read (checkTx) and every document and chunk record decoded. A
// writer runs it before it changes the index, so that it never reports
// success on an index doctor calls damaged.
func (s *Store) Verify() error {
	return s.view(verifyTx)
}

// verifyTx is checkTx and verifyRecords: pages that are sound can still
// hold records that were altered, and those fail to decode.
func verifyTx(tx *bolt.Tx) error {
	if err := checkTx(tx); err != nil {
		return err
	}
	return verifyRecords(tx)
}

// verifyRecords decodes every document and chunk record of tx.
func verifyRecords(tx *bolt.Tx) error {
	var d Document
	if err := tx.Bucket(bucketDocs).ForEach(func(k, v []byte) error {
		if err := json.Unmarshal(v, &d); err != nil {
			return fmt.Errorf("document %s: %w", k, err)
		}
		return nil
	}); err != nil {
		return err
	}
	var c Chunk
	return tx.Bucket(bucketChunks).ForEach(func(k, v []byte) error {
		if err := json.Unmarshal(v, &c); err != nil {
			return fmt.Errorf("chunk %s: %w", k, err)
		}
		return nil
	})
}

// checkTx walks every bucket, key and value of tx on this goroutine,
// reading every byte and checking that each bucket's keys are in order:
// guard turns a fault on a page past the end of the mapped file, and bbolt's
// panics on a page it does not expect, into an error. (bbolt's own
// consistency check, tx.Check, reads the pages on a goroutine of its own,
// where such a fault crashes the process, so it is not used.)
func checkTx(tx *bolt.Tx) error {
	n := 0
	var walk func(name string, b *bolt.Bucket) error
	walk = func(name string, b *bolt.Bucket) error {
		var prev []byte
		if err := b.ForEach(func(k, v []byte) error {
			if prev != nil && bytes.Compare(prev, k) >= 0 {
				return storeDamaged(tx.DB().Path(), fmt.Sprintf("bucket %s: keys out of order at %q", name, k))
			}
			prev = k
			n += touch(k) + touch(v)
			return nil
		}); err != nil {
			return err
		}
		return b.ForEachBucket(func(k []byte) error {
			if c := b.Bucket(k); c != nil {
				return walk(name+"/"+string(k), c)
			}
			return nil
		})
	}
	if err := tx.ForEach(func(k []byte, b *bolt.Bucket) error { return walk(string(k), b) }); err != nil {
		return err
	}
	touched.Store(int64(n))
	return nil
}

// touched keeps checkTx's reads from being optimised away.
var touched atomic.Int64

// touch reads every byte of b.
func touch(b []byte) int {
	n := 0
	for _, c := range b {
		n += int(c)
	}
	return n
}

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

// checkHeader checks what bbolt trusts without checking before it maps
// the store file: a valid meta page, whose page numbers lie inside the
// file. A truncated file passes bbolt's own open and then faults when a
// page past its end is read; this refuses it first.
func checkHeader(path string) error {
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
		return storeDamaged(path, fmt.Errorf("no valid meta page: %v; %v", err0, err1))
	}
	// bbolt uses the valid copy with the higher transaction id.
	m := metas[0]
	if len(metas) == 2 && metas[1].txid > m.txid {
		m = metas[1]
	}
	switch {
	case m.pageSize < 512 || m.pageSize&(m.pageSize-1) != 0:
		return storeDamaged(path, fmt.Sprintf("page size %d", m.pageSize))
	case m.pages < 2 || m.root >= m.pages || (m.freelist >= m.pages && m.freelist != noFreelistPage):
		return storeDamaged(path, fmt.Sprintf("meta page names pages past its high-water mark %d", m.pages))
	case uint64(st.Size()) < m.pages*uint64(m.pageSize):
		return storeDamaged(path, fmt.Sprintf("truncated: %d bytes, but its pages reach byte %d", st.Size(), m.pages*uint64(m.pageSize)))
	}
	return nil
}
