package index

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	bolt "go.etcd.io/bbolt"
)

// SourceStore is the kind of the internal source whose documents were added
// to the index directly (braid add) rather than found under a path: their
// content lives in the index's blob store and their path is the name they
// were stored under.
const SourceStore SourceKind = "store"

// The document store's buckets. An index written before they existed has
// none of them: readers treat a missing bucket as empty, and a writer
// creates them when it opens the store.
var (
	bucketStored    = []byte("store.names")     // stored name -> Stored
	bucketVersions  = []byte("store.versions")  // document id -> []Version, oldest first
	bucketDocMeta   = []byte("store.meta")      // document id -> map[string]string
	bucketSnapshots = []byte("store.snapshots") // snapshot id -> Snapshot
)

var storeBuckets = [][]byte{bucketStored, bucketVersions, bucketDocMeta, bucketSnapshots}

// Stored is a document kept in the index's own blob store: its name (the
// path of its document in the store source), the hash of its current
// content, and what was given when it was added.
type Stored struct {
	Name       string    `json:"name"`
	Hash       string    `json:"hash"` // sha256 of the current content, hex: its blob
	Size       int64     `json:"size"`
	Collection string    `json:"collection,omitempty"`
	Tags       []string  `json:"tags,omitempty"`
	Created    time.Time `json:"created"`
	Modified   time.Time `json:"modified"`
}

// Version is one content of a document over time; versions are numbered
// from 1, the oldest kept.
type Version struct {
	Version int       `json:"version"`
	Hash    string    `json:"hash"`
	Size    int64     `json:"size"`
	Time    time.Time `json:"time"`
}

// Snapshot records the content (name -> hash) of the stored documents, or
// of one collection of them, at a moment.
type Snapshot struct {
	ID         string            `json:"id"`
	Label      string            `json:"label,omitempty"`
	Collection string            `json:"collection,omitempty"`
	Created    time.Time         `json:"created"`
	Docs       map[string]string `json:"docs"` // name -> hash
	Bytes      int64             `json:"bytes"`
}

// appendVersion records content hash as the newest version of a document,
// unless it already is, keeping at most keep versions (zero: all).
func appendVersion(tx *bolt.Tx, docID string, v Version, keep int) error {
	b := tx.Bucket(bucketVersions)
	var vs []Version
	if raw := b.Get([]byte(docID)); raw != nil {
		if err := json.Unmarshal(raw, &vs); err != nil {
			return fmt.Errorf("decode versions of %s: %w", docID, err)
		}
	}
	if n := len(vs); n > 0 && vs[n-1].Hash == v.Hash {
		return nil
	}
	vs = append(vs, v)
	if keep > 0 && len(vs) > keep {
		vs = vs[len(vs)-keep:]
	}
	for i := range vs {
		vs[i].Version = i + 1
	}
	return putJSON(b, docID, vs)
}

// PutStored records a stored document's current content and appends it to
// the document's versions, in one transaction. Its blob must already be
// written.
func (s *Store) PutStored(rec *Stored, docID string) error {
	return s.update(func(tx *bolt.Tx) error {
		if err := putJSON(tx.Bucket(bucketStored), rec.Name, rec); err != nil {
			return err
		}
		return appendVersion(tx, docID, Version{Hash: rec.Hash, Size: rec.Size, Time: rec.Modified}, 0)
	})
}

// Stored returns the stored document with the given name, or nil.
func (s *Store) Stored(name string) (*Stored, error) {
	var rec *Stored
	err := s.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketStored)
		if b == nil {
			return nil
		}
		v := b.Get([]byte(name))
		if v == nil {
			return nil
		}
		rec = new(Stored)
		return json.Unmarshal(v, rec)
	})
	return rec, err
}

// ForEachStored calls fn with every stored document, in name order.
func (s *Store) ForEachStored(fn func(*Stored) error) error {
	return s.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketStored)
		if b == nil {
			return nil
		}
		return b.ForEach(func(k, v []byte) error {
			rec := new(Stored)
			if err := json.Unmarshal(v, rec); err != nil {
				return fmt.Errorf("decode stored document %s: %w", k, err)
			}
			return fn(rec)
		})
	})
}

// DeleteStored removes stored documents' records with their versions and
// metadata (docIDs[i] is the document id of names[i]), in one transaction.
// Their blobs stay until a sweep finds them unreferenced.
func (s *Store) DeleteStored(names, docIDs []string) error {
	return s.update(func(tx *bolt.Tx) error {
		for i, n := range names {
			if err := tx.Bucket(bucketStored).Delete([]byte(n)); err != nil {
				return err
			}
			for _, b := range [][]byte{bucketVersions, bucketDocMeta, bucketLineage} {
				if err := tx.Bucket(b).Delete([]byte(docIDs[i])); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// Versions returns a document's recorded versions, oldest first.
func (s *Store) Versions(docID string) ([]Version, error) {
	var vs []Version
	err := s.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketVersions)
		if b == nil {
			return nil
		}
		if raw := b.Get([]byte(docID)); raw != nil {
			return json.Unmarshal(raw, &vs)
		}
		return nil
	})
	return vs, err
}

// DocMeta returns a document's metadata, or nil.
func (s *Store) DocMeta(docID string) (map[string]string, error) {
	var m map[string]string
	err := s.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketDocMeta)
		if b == nil {
			return nil
		}
		if raw := b.Get([]byte(docID)); raw != nil {
			return json.Unmarshal(raw, &m)
		}
		return nil
	})
	return m, err
}

// ForEachDocMeta calls fn with every document's metadata.
func (s *Store) ForEachDocMeta(fn func(docID string, m map[string]string) error) error {
	return s.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketDocMeta)
		if b == nil {
			return nil
		}
		return b.ForEach(func(k, v []byte) error {
			var m map[string]string
			if err := json.Unmarshal(v, &m); err != nil {
				return fmt.Errorf("decode metadata of %s: %w", k, err)
			}
			return fn(string(k), m)
		})
	})
}

// UpdateDocMeta merges set into a document's metadata, an empty value
// removing its key, and returns the result.
func (s *Store) UpdateDocMeta(docID string, set map[string]string) (map[string]string, error) {
	m := map[string]string{}
	err := s.update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketDocMeta)
		if raw := b.Get([]byte(docID)); raw != nil {
			if err := json.Unmarshal(raw, &m); err != nil {
				return fmt.Errorf("decode metadata of %s: %w", docID, err)
			}
		}
		for k, v := range set {
			if v == "" {
				delete(m, k)
			} else {
				m[k] = v
			}
		}
		if len(m) == 0 {
			return b.Delete([]byte(docID))
		}
		return putJSON(b, docID, m)
	})
	return m, err
}

// PutSnapshot records a snapshot, giving it the next id ("1", "2", ...).
func (s *Store) PutSnapshot(snap *Snapshot) error {
	return s.update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketSnapshots)
		n, err := b.NextSequence()
		if err != nil {
			return err
		}
		snap.ID = fmt.Sprint(n)
		return putJSON(b, snap.ID, snap)
	})
}

// Snapshots returns every snapshot, oldest first.
func (s *Store) Snapshots() ([]*Snapshot, error) {
	var out []*Snapshot
	err := s.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketSnapshots)
		if b == nil {
			return nil
		}
		return b.ForEach(func(k, v []byte) error {
			snap := new(Snapshot)
			if err := json.Unmarshal(v, snap); err != nil {
				return fmt.Errorf("decode snapshot %s: %w", k, err)
			}
			out = append(out, snap)
			return nil
		})
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Created.Before(out[j].Created) })
	return out, err
}

// BlobRefs returns every blob hash the store still refers to: current
// stored content, the content of S3 sources' objects, kept versions and
// snapshots.
func (s *Store) BlobRefs() (map[string]bool, error) {
	refs := map[string]bool{}
	err := s.view(func(tx *bolt.Tx) error {
		if err := tx.Bucket(bucketSources).ForEach(func(k, v []byte) error {
			var src Source
			if err := json.Unmarshal(v, &src); err != nil {
				return err
			}
			if src.Kind != SourceS3 {
				return nil
			}
			prefix := append(append([]byte(nil), k...), 0)
			c := tx.Bucket(bucketPaths).Cursor()
			for pk, pv := c.Seek(prefix); pk != nil && bytes.HasPrefix(pk, prefix); pk, pv = c.Next() {
				_, hash, _ := parsePathValue(pv)
				refs[hash] = true
			}
			return nil
		}); err != nil {
			return err
		}
		if b := tx.Bucket(bucketStored); b != nil {
			if err := b.ForEach(func(_, v []byte) error {
				var rec Stored
				if err := json.Unmarshal(v, &rec); err != nil {
					return err
				}
				refs[rec.Hash] = true
				return nil
			}); err != nil {
				return err
			}
		}
		if b := tx.Bucket(bucketVersions); b != nil {
			if err := b.ForEach(func(_, v []byte) error {
				var vs []Version
				if err := json.Unmarshal(v, &vs); err != nil {
					return err
				}
				for _, x := range vs {
					refs[x.Hash] = true
				}
				return nil
			}); err != nil {
				return err
			}
		}
		if b := tx.Bucket(bucketSnapshots); b != nil {
			return b.ForEach(func(_, v []byte) error {
				var snap Snapshot
				if err := json.Unmarshal(v, &snap); err != nil {
					return err
				}
				for _, h := range snap.Docs {
					refs[h] = true
				}
				return nil
			})
		}
		return nil
	})
	return refs, err
}

// forget drops a removed document's versions and metadata. A bucket an
// older index lacks is created by the writer that opens it, so it is there.
func forget(tx *bolt.Tx, docID string) error {
	for _, b := range [][]byte{bucketVersions, bucketDocMeta, bucketLineage} {
		if bk := tx.Bucket(b); bk != nil {
			if err := bk.Delete([]byte(docID)); err != nil {
				return err
			}
		}
	}
	return nil
}

// DocID is the id of the document at path rel in a source.
func DocID(sourceID, rel string) string { return docID(sourceID, rel) }

// FolderID is the stable id of the folder at rel (slash-separated,
// relative to the source, not "") in a source: like a document's, a hash
// of the source and the path, so it is the same on every run and in
// every index that registers the same path. A source's own root is named
// by the source's id.
func FolderID(sourceID, rel string) string {
	h := sha256.Sum256([]byte("folder\x00" + sourceID + "\x00" + rel))
	return hex.EncodeToString(h[:6])
}
