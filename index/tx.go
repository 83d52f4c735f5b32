package index

import bolt "go.etcd.io/bbolt"

// Names of the buckets other packages keep in the store. The store
// creates them with its own when a writer opens it; an index written
// before one existed lacks it until then, and readers treat a missing
// bucket as empty.
const (
	// SessionsBucket holds package sessions' records, by name.
	SessionsBucket = "sessions"
	// MetaBucket holds the store's single values (its id, its
	// generation); package sessions keeps the current session's name
	// there.
	MetaBucket = "meta"
)

var bucketSessions = []byte(SessionsBucket)

// View runs fn in a read transaction of the store's bbolt file, guarded
// against a damaged file as the store's own reads are, for a package
// that keeps its own bucket in the store (sessions).
func (s *Store) View(fn func(*bolt.Tx) error) error { return s.view(fn) }

// Update runs fn in one write transaction of the store's bbolt file,
// guarded as View is.
func (s *Store) Update(fn func(*bolt.Tx) error) error { return s.update(fn) }
