package index

import (
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
