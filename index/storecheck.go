package index

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/braidsearch/braid/indexdir"
	bolt "go.etcd.io/bbolt"
)

func storeDamaged(path string, detail any) error {
	return &indexdir.CorruptError{Path: path, Detail: fmt.Sprint(detail), Fix: indexdir.StoreFix(path)}
}

// guard runs f, which reads the memory-mapped store at path, so that a
// damaged file is an error rather than a crash: bbolt panics on a page
// that is not what it expects, and a page number past the end of a
// truncated file faults, which SetPanicOnFault turns into a panic that can
// be recovered (for this goroutine, which is the one bbolt runs f on).
func guard(path string, f func() error) error {
	return indexdir.Guard(func(r any) error { return storeDamaged(path, r) }, f)
}

// view is db.View, guarded against a damaged file. fn must not call
// view or update again (a Compact waiting between the two would block
// both for ever, as bbolt's own remapping can).
func (s *Store) view(fn func(*bolt.Tx) error) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.viewDB(fn)
}

// update is db.Update, guarded against a damaged file.
func (s *Store) update(fn func(*bolt.Tx) error) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.updateDB(fn)
}

// viewDB and updateDB are view and update for a caller that holds mu.
func (s *Store) viewDB(fn func(*bolt.Tx) error) error {
	return s.damaged(guard(s.db.Path(), func() error { return s.db.View(fn) }))
}

func (s *Store) updateDB(fn func(*bolt.Tx) error) error {
	return s.damaged(guard(s.db.Path(), func() error { return s.db.Update(fn) }))
}

// damaged turns a record that does not decode into an error naming the
// store as damaged: braid wrote every record it reads, so one it cannot
// read was changed under it.
func (s *Store) damaged(err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	var pe *time.ParseError // a time field, a byte of it changed
	var be base64.CorruptInputError
	if err != nil && !errors.Is(err, indexdir.ErrCorrupt) && (errors.As(err, &se) || errors.As(err, &te) || errors.As(err, &pe) || errors.As(err, &be)) {
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
