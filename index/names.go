package index

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	bolt "go.etcd.io/bbolt"
)

// HashPrefix returns the documents whose content hash starts with prefix
// (lowercase hex), in source and path order. It reads the paths bucket,
// which keeps each document's hash beside its id, so no document is
// decoded: about 10 ms for 100k documents.
func (s *Store) HashPrefix(prefix string) ([]Entry, error) {
	var out []Entry
	err := s.view(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketPaths).ForEach(func(k, v []byte) error {
			id, hash, etag := parsePathValue(v)
			if strings.HasPrefix(hash, prefix) {
				_, path, _ := bytes.Cut(k, []byte{0})
				out = append(out, Entry{Path: string(path), DocID: id, Hash: hash, ETag: etag})
			}
			return nil
		})
	})
	return out, err
}

// Name is what names a document: enough to find it by name or path
// without its headings, links and chunks.
type Name struct {
	ID       string   `json:"id"`
	SourceID string   `json:"source_id"`
	Path     string   `json:"path"`
	Title    string   `json:"title"`
	Aliases  []string `json:"aliases,omitempty"`
}

// ForEachName calls fn with the name of every document until fn returns
// an error, inside one read transaction: fn must not use the store. Only
// the naming fields are decoded (encoding/json still scans each record),
// so it is about twice as fast as ForEachDoc: some 10 µs a document.
func (s *Store) ForEachName(fn func(*Name) error) error {
	return s.view(func(tx *bolt.Tx) error {
		var n Name
		return tx.Bucket(bucketDocs).ForEach(func(k, v []byte) error {
			n = Name{}
			if err := json.Unmarshal(v, &n); err != nil {
				return fmt.Errorf("decode document %s: %w", k, err)
			}
			return fn(&n)
		})
	})
}
