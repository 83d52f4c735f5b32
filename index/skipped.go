package index

import (
	"bytes"

	bolt "go.etcd.io/bbolt"
)

// bucketS3Skipped remembers the S3 objects a run downloaded and skipped
// (binary, not UTF-8) with their ETag, so the next run does not download
// them again: sourceID \x00 rel -> ETag \x00 reason. An index written
// before it existed has none; a writer creates it when it opens the store.
var bucketS3Skipped = []byte("s3.skipped")

// SkippedObject is an S3 object a run skipped after downloading it.
type SkippedObject struct{ ETag, Reason string }

// SkippedObjects returns what the last complete run of an S3 source
// skipped, by path.
func (s *Store) SkippedObjects(sourceID string) (map[string]SkippedObject, error) {
	out := map[string]SkippedObject{}
	prefix := []byte(sourceID + "\x00")
	err := s.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketS3Skipped)
		if b == nil {
			return nil
		}
		c := b.Cursor()
		for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
			etag, reason, _ := bytes.Cut(v, []byte{0})
			out[string(k[len(prefix):])] = SkippedObject{string(etag), string(reason)}
		}
		return nil
	})
	return out, err
}

// PutSkippedObjects replaces what is remembered of an S3 source's skipped
// objects, in one transaction; nil forgets them all.
func (s *Store) PutSkippedObjects(sourceID string, m map[string]SkippedObject) error {
	prefix := []byte(sourceID + "\x00")
	return s.update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketS3Skipped)
		var dead [][]byte // deleting while a cursor walks can skip keys
		c := b.Cursor()
		for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
			dead = append(dead, append([]byte(nil), k...))
		}
		for _, k := range dead {
			if err := b.Delete(k); err != nil {
				return err
			}
		}
		for rel, o := range m {
			if err := b.Put([]byte(sourceID+"\x00"+rel), []byte(o.ETag+"\x00"+o.Reason)); err != nil {
				return err
			}
		}
		return nil
	})
}
