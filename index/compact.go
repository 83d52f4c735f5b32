package index

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/braidsearch/braid/indexdir"
	"github.com/braidsearch/braid/internal/memlimit"
)

// CompactSuffix names the file a compaction writes beside meta.db
// (meta.db.compact) before renaming it over meta.db. One left by a crash
// is incomplete or unused: a writer's open removes it.
const CompactSuffix = ".compact"

// A compaction runs when the store's file holds at least CompactMinSlack
// bytes and a fifth of its size that no record uses (free pages, and the
// tail bbolt grew the file by). bbolt reuses free pages but never gives
// them back, so a run that freed much (embeddings dropped once the graph
// holding them was saved, a source removed) leaves the file that big for
// good. Rewriting costs about one sequential write of what is in use; a
// fifth keeps that within five times what the runs since the last
// compaction freed, so an index that changes a little at a time is not
// rewritten run after run, and the floor keeps a small index, where a
// few megabytes do not matter, from being rewritten at all.
const (
	CompactMinSlack = 16 << 20
	compactFraction = 5
)

// compactTxBytes is how many bytes of keys and values one transaction of
// the copy takes. bbolt keeps a transaction's dirty pages on the heap
// until it commits, and its values where they lie in the file copied, so
// a commit reads them there, mapping their pages and, by the kernel's
// fault-around, their neighbours: about 10 bytes of the file resident a
// byte committed. A MiB a commit keeps the copy's peak some 35 MB over
// what the process held before, at 100k chunks as at any size (8 MiB:
// 140 MB, bolt.Compact with 64 MiB: 410 MB), in the same time.
const compactTxBytes = 1 << 20

// Compaction says what Store.Compact did.
type Compaction struct {
	Before int64 `json:"before_bytes"` // meta.db's size before
	After  int64 `json:"after_bytes"`  // and after
	TookMS int64 `json:"took_ms"`
}

// Saved is how many bytes the compaction gave back.
func (c *Compaction) Saved() int64 { return c.Before - c.After }

// Slack is how many bytes of the store's file no record uses: its free
// pages as the last write transaction of this process left them, and the
// tail bbolt grew the file by ahead of use; and the file's size. A store
// this process has not written reports no free pages.
func (s *Store) Slack() (slack, size int64) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.slack()
}

func (s *Store) slack() (slack, size int64) {
	st, ok := s.described()
	if !ok {
		return 0, 0
	}
	var high int64
	if err := s.db.View(func(tx *bolt.Tx) error { high = tx.Size(); return nil }); err != nil {
		return 0, st.Size
	}
	used := high - int64(s.db.Stats().FreeAlloc)
	return max(st.Size-used, 0), st.Size
}

// CompactWorth says whether slack bytes unused of a file of size bytes
// are worth a compaction: at least minSlack, and a fifth of the file.
func CompactWorth(slack, size, minSlack int64) bool {
	return slack >= minSlack && slack*compactFraction >= size
}

// compactHook, when set (by tests), is called at each step of Compact
// with the step's name; an error it returns stops Compact there, as a
// crash would.
var compactHook func(step string) error

func hook(step string) error {
	if compactHook == nil {
		return nil
	}
	return compactHook(step)
}

// Compact rewrites the store into a fresh file holding only what is in
// use, its pages full, when the file's Slack is worth it (CompactWorth
// with minSlack), and returns what it did; nil when it did nothing. The
// caller holds the index's write lock (no other process has the file
// open: readers take the lock shared, so they wait or are refused while
// a writer holds it); within this process, reads and writes of the store
// wait while it runs.
//
// Crash safety: the copy goes to meta.db.compact (0600) beside the
// store, which is synced, then renamed over meta.db, and the folder
// synced: a crash at any point leaves the old file or the new complete
// one under the name. A store whose stamp said it was checked
// (VerifyChanged) is stamped again: braid wrote the new file from it.
func (s *Store) Compact(minSlack int64) (*Compaction, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.db.IsReadOnly() {
		return nil, ErrReadOnly
	}
	slack, size := s.slack()
	if !CompactWorth(slack, size, minSlack) {
		return nil, nil
	}
	start := time.Now()
	path := s.db.Path()
	stamped := s.stamped()
	tmp := path + CompactSuffix
	if err := s.copyTo(tmp); err != nil {
		os.Remove(tmp)
		return nil, fmt.Errorf("compact %s (the index is whole as it is; the copy needs %s free beside it): %w", path, FormatBytes(size-slack), err)
	}
	if err := hook("written"); err != nil {
		return nil, err
	}
	// bbolt holds a lock on the file it opens: close before the rename,
	// then open the new file under the old name.
	if err := s.db.Close(); err != nil {
		os.Remove(tmp)
		return nil, fmt.Errorf("compact %s: close the store: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return nil, errors.Join(fmt.Errorf("compact %s: %w", path, err), s.open(path, false))
	}
	syncDir(filepath.Dir(path))
	if err := hook("renamed"); err != nil {
		return nil, err
	}
	if err := s.open(path, false); err != nil {
		return nil, fmt.Errorf("compact %s: open the compacted store: %w", path, err)
	}
	if stamped {
		s.stamp()
	}
	c := &Compaction{Before: size, TookMS: time.Since(start).Milliseconds()}
	if st, ok := s.described(); ok {
		c.After = st.Size
	}
	return c, nil
}

// copyTo writes every bucket, key and sequence of the store into a new
// bbolt file at tmp, pages split full (bolt.Compact), trimmed to the
// pages in use and synced.
func (s *Store) copyTo(tmp string) error {
	if err := os.Remove(tmp); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	// The copy's own commits need no sync, nor its growth: the file is
	// synced once whole, and a crash before that leaves it unused.
	dst, err := bolt.Open(tmp, indexdir.FileMode, &bolt.Options{Timeout: 5 * time.Second, NoSync: true, NoGrowSync: true, NoFreelistSync: false})
	if err != nil {
		return err
	}
	err = guard(s.db.Path(), func() error { return copyStore(dst, s.db, compactTxBytes) })
	var high int64
	if err == nil {
		err = dst.View(func(tx *bolt.Tx) error { high = tx.Size(); return nil })
	}
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	f, err := os.OpenFile(tmp, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	// Every page bbolt uses lies below its high-water mark.
	if fi, err := f.Stat(); err == nil && fi.Size() > high {
		err = f.Truncate(high)
		if err != nil {
			f.Close()
			return err
		}
	}
	if err := f.Chmod(indexdir.FileMode); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// removeStaleCompaction removes the meta.db.compact a crashed compaction
// left beside the store at path (a writer's open: the writer's lock says
// no compaction is running).
func removeStaleCompaction(path string) {
	_ = os.Remove(path + CompactSuffix)
}

// syncDir makes a rename in dir durable; best effort (a file system that
// cannot sync a folder gives no more than the rename's own ordering).
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

// copyStore is bolt.Compact (every bucket, nested bucket, key, value and
// sequence of src into dst in key order, pages split full, a commit every
// txBytes of keys and values) that also lets go of the pages of src it has
// read after each commit: they are the file's pages mapped into this
// process, so a copy of a 2 GB store would otherwise leave 2 GB more
// resident at its end (clean pages the kernel can drop, but counted in
// the process's memory all the same).
func copyStore(dst, src *bolt.DB, txBytes int64) error {
	release := releaser(src.Path())
	tx, err := dst.Begin(true)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	var size int64
	put := func(path [][]byte, k, v []byte, seq uint64) error {
		if size += int64(len(k) + len(v)); size > txBytes {
			if err := tx.Commit(); err != nil {
				return err
			}
			release()
			if tx, err = dst.Begin(true); err != nil {
				return err
			}
			size = 0
		}
		if len(path) == 0 { // a bucket of the root
			b, err := tx.CreateBucket(k)
			if err != nil {
				return err
			}
			return b.SetSequence(seq)
		}
		b := tx.Bucket(path[0])
		for _, name := range path[1:] {
			b = b.Bucket(name)
		}
		b.FillPercent = 1.0
		if v == nil {
			c, err := b.CreateBucket(k)
			if err != nil {
				return err
			}
			return c.SetSequence(seq)
		}
		return b.Put(k, v)
	}
	var walk func(path [][]byte, b *bolt.Bucket) error
	walk = func(path [][]byte, b *bolt.Bucket) error {
		return b.ForEach(func(k, v []byte) error {
			if v != nil {
				return put(path, k, v, 0)
			}
			c := b.Bucket(k)
			if err := put(path, k, nil, c.Sequence()); err != nil {
				return err
			}
			return walk(append(path[:len(path):len(path)], k), c)
		})
	}
	if err := src.View(func(stx *bolt.Tx) error {
		return stx.ForEach(func(name []byte, b *bolt.Bucket) error {
			if err := put(nil, name, nil, b.Sequence()); err != nil {
				return err
			}
			return walk([][]byte{name}, b)
		})
	}); err != nil {
		return err
	}
	return tx.Commit()
}

// releaser returns what drops the pages of the file at path that this
// process maps out of its resident set (memlimit.Release: the kernel's
// own extents of the mapping, never a length taken from the file, which
// bbolt grows up to 16 MiB past its map: DONTNEED on those bytes would
// zero whatever memory follows the map). The caller keeps the mapping
// where it is meanwhile (Compact holds the store's lock: nothing writes,
// so bbolt does not remap).
func releaser(path string) func() {
	abs, err := filepath.Abs(path)
	if err != nil {
		return func() {}
	}
	return func() { _, _ = memlimit.Release(abs) }
}
