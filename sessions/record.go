package sessions

import (
	"encoding/json"
	"fmt"
	"sort"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/braidsearch/braid/index"
)

// Sessions live in the store's sessions bucket (index.SessionsBucket),
// written in one transaction each, with the current session's name in
// the meta bucket. An index written before sessions existed has no
// bucket: readers treat it as empty and a writer creates it.
var (
	bucket     = []byte(index.SessionsBucket) // name -> Record
	bucketMeta = []byte(index.MetaBucket)
	keyCurrent = []byte("session") // in meta: the current session's name
)

// Record is one named working set as the index keeps it.
type Record struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// Pins are the paths and globs pinned into the set, as given: a glob
	// or path relative to a source, source name/glob, or an absolute one.
	// They select among the indexed documents; they never add a file.
	Pins []string `json:"pins"`
	// Watch says a server keeps the set's sources indexed as files change.
	Watch   bool      `json:"watch,omitempty"`
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
	// Active says the session is started (not stopped); the current
	// session is the one started last.
	Active bool `json:"active"`
}

// records lists the sessions by name.
func records(st *index.Store) ([]*Record, error) {
	var out []*Record
	err := st.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucket)
		if b == nil {
			return nil
		}
		return b.ForEach(func(k, v []byte) error {
			se := new(Record)
			if err := json.Unmarshal(v, se); err != nil {
				return fmt.Errorf("decode session %q: %w", k, err)
			}
			se.Name = string(k) // the key names it, whatever the record says
			out = append(out, se)
			return nil
		})
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, err
}

// record returns the named session, or nil.
func record(st *index.Store, name string) (*Record, error) {
	var se *Record
	err := st.View(func(tx *bolt.Tx) error {
		var err error
		se, err = getRecord(tx, name)
		return err
	})
	return se, err
}

func getRecord(tx *bolt.Tx, name string) (*Record, error) {
	b := tx.Bucket(bucket)
	if b == nil {
		return nil, nil
	}
	v := b.Get([]byte(name))
	if v == nil {
		return nil, nil
	}
	se := new(Record)
	if err := json.Unmarshal(v, se); err != nil {
		return nil, fmt.Errorf("decode session %q: %w", name, err)
	}
	se.Name = name
	return se, nil
}

// current is the current session's name, "" for none.
func current(st *index.Store) (string, error) {
	var name string
	err := st.View(func(tx *bolt.Tx) error {
		name = string(tx.Bucket(bucketMeta).Get(keyCurrent))
		return nil
	})
	return name, err
}

// update runs fn on the named session (nil when there is none; fn
// returns the record to keep, nil to keep none) and on the current
// session's name, and writes both in one transaction. An error from fn
// writes nothing.
func update(st *index.Store, name string, fn func(se *Record, current *string) (*Record, error)) (*Record, error) {
	var out *Record
	err := st.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists(bucket)
		if err != nil {
			return err
		}
		se, err := getRecord(tx, name)
		if err != nil {
			return err
		}
		meta := tx.Bucket(bucketMeta)
		cur := string(meta.Get(keyCurrent))
		next := cur
		if out, err = fn(se, &next); err != nil {
			return err
		}
		if out != nil {
			out.Name = name
			data, err := json.Marshal(out)
			if err != nil {
				return err
			}
			if err := b.Put([]byte(name), data); err != nil {
				return err
			}
		} else if se != nil {
			if err := b.Delete([]byte(name)); err != nil {
				return err
			}
		}
		if next == cur {
			return nil
		}
		if next == "" {
			return meta.Delete(keyCurrent)
		}
		return meta.Put(keyCurrent, []byte(next))
	})
	return out, err
}
