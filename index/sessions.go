package index

import (
	"encoding/json"
	"fmt"
	"sort"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Sessions are named working sets (as YAMS calls them): paths and globs
// pinned into a set that searches, greps and listings can be scoped to,
// and whose files a server can watch. They live in the sessions bucket,
// written in one transaction each, with the current session's name in
// the meta bucket. An index written before sessions existed has no
// bucket: readers treat it as empty and a writer creates it.
var (
	bucketSessions = []byte("sessions") // name -> Session
	keySession     = []byte("session")  // in meta: the current session's name
)

// Session is one named working set.
type Session struct {
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

// Sessions lists the sessions by name.
func (s *Store) Sessions() ([]*Session, error) {
	var out []*Session
	err := s.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketSessions)
		if b == nil {
			return nil
		}
		return b.ForEach(func(k, v []byte) error {
			se := new(Session)
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

// Session returns the named session, or nil.
func (s *Store) Session(name string) (*Session, error) {
	var se *Session
	err := s.view(func(tx *bolt.Tx) error {
		var err error
		se, err = getSession(tx, name)
		return err
	})
	return se, err
}

func getSession(tx *bolt.Tx, name string) (*Session, error) {
	b := tx.Bucket(bucketSessions)
	if b == nil {
		return nil, nil
	}
	v := b.Get([]byte(name))
	if v == nil {
		return nil, nil
	}
	se := new(Session)
	if err := json.Unmarshal(v, se); err != nil {
		return nil, fmt.Errorf("decode session %q: %w", name, err)
	}
	se.Name = name
	return se, nil
}

// CurrentSession is the current session's name, "" for none.
func (s *Store) CurrentSession() (string, error) {
	var name string
	err := s.view(func(tx *bolt.Tx) error {
		name = string(tx.Bucket(bucketMeta).Get(keySession))
		return nil
	})
	return name, err
}

// UpdateSession runs fn on the named session (nil when there is none;
// fn returns the record to keep, nil to keep none) and on the current
// session's name, and writes both in one transaction. An error from fn
// writes nothing.
func (s *Store) UpdateSession(name string, fn func(se *Session, current *string) (*Session, error)) (*Session, error) {
	var out *Session
	err := s.update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists(bucketSessions)
		if err != nil {
			return err
		}
		se, err := getSession(tx, name)
		if err != nil {
			return err
		}
		meta := tx.Bucket(bucketMeta)
		cur := string(meta.Get(keySession))
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
			return meta.Delete(keySession)
		}
		return meta.Put(keySession, []byte(next))
	})
	return out, err
}
