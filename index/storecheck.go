package index

import (
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// Check runs bbolt's page consistency check on the open store: what
// CheckStore does for a store file, for a store this process holds open
// (a second open of the file would wait on the lock this one holds).
func (s *Store) Check() (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%s is corrupt: %v", s.db.Path(), r)
		}
	}()
	return s.db.View(func(tx *bolt.Tx) error {
		for cerr := range tx.Check() {
			return fmt.Errorf("%s is corrupt: %w", s.db.Path(), cerr)
		}
		return nil
	})
}
