package index

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/braidsearch/braid/indexdir"
	bolt "go.etcd.io/bbolt"
)

// A document record with a byte of its time or of its JSON changed under
// the store is an error naming meta.db as damaged, with the fix, whatever
// the decoder stumbles on.
func TestChangedRecordIsDamage(t *testing.T) {
	for _, c := range []struct{ name, from, to string }{
		{"time", `"indexed_at":"2026-11-30T02:46:19.13`, "\"indexed_at\":\"2026-11-30T02:46:19.13\xca"},
		{"syntax", `"indexed_at":"`, `"indexed_at":`},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "meta.db")
			s, err := OpenStore(path, false)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			err = s.db.Update(func(tx *bolt.Tx) error {
				return tx.Bucket(bucketDocs).Put([]byte("d1"), []byte(`{"id":"d1","indexed_at":"2026-11-30T02:46:19.13822191Z"}`))
			})
			if err != nil {
				t.Fatal(err)
			}
			if err := s.ForEachDoc(func(*Document) error { return nil }); err != nil {
				t.Fatalf("the record as written: %v", err)
			}
			err = s.db.Update(func(tx *bolt.Tx) error {
				b := tx.Bucket(bucketDocs)
				v := bytes.Replace(b.Get([]byte("d1")), []byte(c.from), []byte(c.to), 1)
				return b.Put([]byte("d1"), v)
			})
			if err != nil {
				t.Fatal(err)
			}
			err = s.ForEachDoc(func(*Document) error { return nil })
			if !errors.Is(err, indexdir.ErrCorrupt) || !strings.Contains(err.Error(), "meta.db") {
				t.Fatalf("a changed record: %v; want meta.db named as damaged", err)
			}
		})
	}
}
