package index

import (
	"time"

	"github.com/braidsearch/braid/internal/memlimit"
	bolt "go.etcd.io/bbolt"
)

// walkRelease is how many bytes of keys and values a walk over a whole
// bucket reads between two releases of meta.db's mapped pages.
const walkRelease = 8 << 20

// walker lets go of meta.db's mapped pages as a walk over a whole bucket
// reads them (releaser: they stay in the page cache): the walks an index
// run ends with (Fill's over every chunk id, the embeddings' count and
// deletion after the graph's save) read every page of a bucket in a few
// tens of milliseconds, and at 100k chunks their pages added some 150 MB
// to the process's resident set, its peak, between two of ingest.Guard's
// releases. Call step within the walk's transaction, which keeps the
// mapping where it is (a write transaction remaps only as it commits).
type walker struct {
	release func()
	n       int
}

func newWalker(tx *bolt.Tx) *walker {
	return &walker{release: releaser(tx.DB().Path())}
}

// step counts n bytes read, releasing the pages after every walkRelease.
func (w *walker) step(n int) {
	w.n += n
	if w.n >= walkRelease {
		w.release()
		w.n = 0
	}
}

// deleteBytes is what step counts for a deletion by key: about an
// embedding's record (half precision at 384 dimensions) of the leaf it
// reads.
const deleteBytes = 1 << 10

// releaseEvery is how often updateReleasing looks at the process's
// mapped file pages, and releaseGrown how many more than at its last
// look let go of meta.db's (a release costs the faults that map again
// what the write still reads).
const (
	releaseEvery = 5 * time.Millisecond
	releaseGrown = 16 << 20
)

// updateReleasing is update for a write that touches leaves all over
// meta.db, the embeddings' deletions: until the write has committed, it
// lets go of the file's mapped pages whenever the process's file pages
// grew by releaseGrown. A walker
// cannot bound those: the commit itself reads every leaf the deletions
// changed (to free it, and to write out what is left in it), and each
// read of a mapped page maps the kernel's fault-around window of pages
// about it too (64 KiB; madvise(MADV_RANDOM), which bbolt sets, does not
// turn it off) wherever those are in the page cache, as a store just
// written is. At 100k chunks the deletion after the graph's last save
// brought the whole file, some 190 MB, into the resident set in a
// fraction of a second: the ingest's peak. The releases run in read
// transactions, which hold off a remap of the file while they last.
func (s *Store) updateReleasing(fn func(*bolt.Tx) error) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	release := releaser(s.db.Path())
	releaseNow := func() { _ = s.db.View(func(*bolt.Tx) error { release(); return nil }) }
	stop, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(releaseEvery)
		defer t.Stop()
		_, last := memlimit.Resident()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				if _, file := memlimit.Resident(); file-last >= releaseGrown {
					releaseNow()
					_, last = memlimit.Resident()
				}
			}
		}
	}()
	err := s.updateDB(fn)
	close(stop)
	<-stopped
	releaseNow()
	return err
}
