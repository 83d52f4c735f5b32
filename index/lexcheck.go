package index

import (
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
)

// LexicalFix is what to do about a damaged lexical index at path: it holds
// nothing that meta.db does not, so doctor rebuilds it from there.
func LexicalFix(path string) string {
	return fmt.Sprintf("braid --index %s doctor --repair rebuilds it from the chunks in meta.db", filepath.Dir(path))
}

func lexDamaged(path string, detail any) error {
	return &CorruptError{Path: path, Detail: fmt.Sprint(detail), Fix: LexicalFix(path)}
}

// guard runs f, which reads the lexical index, so that a damaged segment
// is an error rather than a crash (see the package's guard).
func (l *Lexical) guard(f func() error) error {
	return guardWith(func(r any) error { return lexDamaged(l.path, r) }, f)
}

// openVerified opens the existing lexical index at path read-only and
// checks that every segment it refers to is whole: bleve trusts a
// segment's footer and offsets, so a truncated or altered segment panics
// (in goroutines of bleve's own, where it cannot be recovered) at the
// first search or merge that reads the damaged part. Each segment's file
// ends with the CRC-32 of all that precedes it. A segment that stamps
// (nil: none) says this user's braid checked already is not read again;
// it returns how many segments it read.
func openVerified(path string, stamps *FileStamps) (bleve.Index, int, error) {
	root := filepath.Join(path, "store", "root.bolt")
	if err := checkHeader(root); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, 0, lexDamaged(path, err)
	}
	var idx bleve.Index
	read := 0
	err := guardWith(func(r any) error { return lexDamaged(path, r) }, func() error {
		i, err := bleve.OpenUsing(path, map[string]interface{}{"read_only": true})
		if err != nil {
			if errors.Is(err, os.ErrPermission) {
				return fmt.Errorf("open lexical index %s: %w", path, err)
			}
			return lexDamaged(path, err)
		}
		idx = i
		if read, err = verifySegments(idx, stamps); err != nil {
			return lexDamaged(path, err)
		}
		return nil
	})
	if err != nil {
		if idx != nil {
			idx.Close()
		}
		return nil, 0, err
	}
	return idx, read, nil
}

// verifySegments checks the CRC of every segment of idx's current
// snapshot but those stamps says were checked already, stamps those it
// read, and returns how many it read.
func verifySegments(idx bleve.Index, stamps *FileStamps) (int, error) {
	adv, err := idx.Advanced()
	if err != nil {
		return 0, err
	}
	s, ok := adv.(*scorch.Scorch)
	if !ok {
		return 0, nil
	}
	r, err := s.Reader()
	if err != nil {
		return 0, err
	}
	defer r.Close()
	snap, ok := r.(*scorch.IndexSnapshot)
	if !ok {
		return 0, nil
	}
	read := 0
	for _, ss := range snap.Segments() {
		seg, ok := ss.Segment().(interface {
			Data() []byte
			CRC() uint32
			Path() string
		})
		if !ok {
			continue // in memory, not yet persisted
		}
		st, described := Lstat(seg.Path())
		if described && stamps.Checked(seg.Path(), st) {
			continue
		}
		data := seg.Data()
		read++
		if len(data) < 4 || crc32.ChecksumIEEE(data[:len(data)-4]) != seg.CRC() {
			return read, fmt.Errorf("segment %s fails its checksum", filepath.Base(seg.Path()))
		}
		if described {
			stamps.Add(seg.Path(), st)
		}
	}
	stamps.Save()
	return read, nil
}
