package index

import (
	"bytes"
	"encoding/binary"

	bolt "go.etcd.io/bbolt"
)

// The file stats bucket (bucketStats) lets an index run tell that a file
// did not change without reading it: under the same key as the paths
// bucket (source id \x00 path) it holds what the file's status said when
// it was last read (FileStat) and the hash of the content read then. A run
// that finds a file's status as recorded, and the path's document of that
// same hash, skips the read (package ingest says when a status is trusted).
// The bucket is made by the first PutStats, so that opening an index made
// before it writes nothing; a braid that does not know it leaves it
// behind, which costs nothing: a record counts only beside a document of
// its hash.
var bucketStats = []byte("filestats") // sourceID \x00 path -> FileStat, content hash

// FileStat is what a file's status says of its content: its size, its
// modification and change times (nanoseconds since 1970) and its inode
// and device. A write to the file, a rename over it or a touch changes
// one of them.
type FileStat struct {
	Size, ModNS, ChangeNS int64
	Ino, Dev              uint64
}

// statLen is FileStat's size as stored.
const statLen = 5 * 8

func (f FileStat) append(b []byte) []byte {
	for _, v := range []uint64{uint64(f.Size), uint64(f.ModNS), uint64(f.ChangeNS), f.Ino, f.Dev} {
		b = binary.BigEndian.AppendUint64(b, v)
	}
	return b
}

func parseStat(v []byte) (FileStat, string, bool) {
	if len(v) < statLen {
		return FileStat{}, "", false
	}
	u := func(i int) uint64 { return binary.BigEndian.Uint64(v[8*i:]) }
	return FileStat{Size: int64(u(0)), ModNS: int64(u(1)), ChangeNS: int64(u(2)), Ino: u(3), Dev: u(4)}, string(v[statLen:]), true
}

// EntriesWithStats is Entries with each entry's Stat set where a file
// status was recorded beside the content the entry's hash names
// (PutStats): a record left from an earlier content does not count. One
// transaction reads both.
func (s *Store) EntriesWithStats(sourceID string) (map[string]Entry, error) {
	out := make(map[string]Entry)
	prefix := []byte(sourceID + "\x00")
	err := s.view(func(tx *bolt.Tx) error {
		entriesUnder(tx.Bucket(bucketPaths).Cursor(), sourceID, prefix, out)
		b := tx.Bucket(bucketStats)
		if b == nil {
			return nil
		}
		c := b.Cursor()
		for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
			st, hash, ok := parseStat(v)
			e, found := out[string(k[len(prefix):])]
			if ok && found && e.Hash == hash && e.ETag == "" {
				e.Stat = &st
				out[e.Path] = e
			}
		}
		return nil
	})
	return out, err
}

// StatRecord is one file's status and the hash of the content read
// after it was taken (PutStats).
type StatRecord struct {
	Path string
	Stat FileStat
	Hash string
}

// PutStats records, for paths of a source, the file's status and the hash
// of the content read after it was taken. A record says only that a file
// with that status held that content; EntriesWithStats gives it while the
// path's document is of that hash.
func (s *Store) PutStats(sourceID string, recs []StatRecord) error {
	if len(recs) == 0 {
		return nil
	}
	return s.update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists(bucketStats)
		if err != nil {
			return err
		}
		for _, r := range recs {
			v := r.Stat.append(make([]byte, 0, statLen+len(r.Hash)))
			if err := b.Put([]byte(sourceID+"\x00"+r.Path), append(v, r.Hash...)); err != nil {
				return err
			}
		}
		return nil
	})
}

// forgetStat deletes the status recorded for a document's path, as its
// paths record goes (Commit's remove).
func forgetStat(tx *bolt.Tx, key []byte) error {
	if b := tx.Bucket(bucketStats); b != nil {
		return b.Delete(key)
	}
	return nil
}
