// Package blob is a content-addressed file store: each blob is kept once,
// under the hex SHA-256 of its content, at dir/<first 2 hex>/<hex>.
//
// A blob is written to a temporary file, synced and renamed into place, so
// a reader never sees a partial blob; a blob already present is never
// written again (that is the dedupe). Callers record a blob's hash in their
// metadata only after Put returns, so a crash leaves at worst an orphan blob,
// which is harmless and removed by the next Sweep.
//
// Blobs are the content of documents, so the store is private: its
// folders are made 0700 and its files 0600 (os.CreateTemp's mode).
//
// A Store is safe for concurrent use: concurrent Puts of the same content
// race to rename identical files into place.
package blob

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrNotFound means no blob has the given hash.
var ErrNotFound = errors.New("blob: not found")

// ErrBadHash means a hash is not 64 lowercase hex digits.
var ErrBadHash = errors.New("blob: malformed hash")

// Store is a directory of blobs.
type Store struct {
	dir string
}

// Open returns the store rooted at dir; the directory is created on the
// first Put.
func Open(dir string) *Store { return &Store{dir: dir} }

// Dir is the store's root directory.
func (s *Store) Dir() string { return s.dir }

// Hash is the hex SHA-256 of data, the name Put gives it.
func Hash(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}

func valid(hash string) bool {
	if len(hash) != 64 {
		return false
	}
	for i := 0; i < len(hash); i++ {
		c := hash[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// Path is where the blob with the given hash is (or would be) kept.
func (s *Store) Path(hash string) string {
	return filepath.Join(s.dir, hash[:2], hash)
}

// Put stores data and returns its hash and whether it was new: false means
// an identical blob was already present and nothing was written.
func (s *Store) Put(data []byte) (hash string, written bool, err error) {
	hash = Hash(data)
	p := s.Path(hash)
	if _, err := os.Stat(p); err == nil {
		return hash, false, nil
	}
	dir := filepath.Dir(p)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", false, fmt.Errorf("blob: create %s: %w", dir, err)
	}
	tmp, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return "", false, fmt.Errorf("blob: %w", err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename there is nothing to remove
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return "", false, fmt.Errorf("blob: write %s: %w", hash, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return "", false, fmt.Errorf("blob: sync %s: %w", hash, err)
	}
	if err := tmp.Close(); err != nil {
		return "", false, fmt.Errorf("blob: %w", err)
	}
	if err := os.Rename(tmp.Name(), p); err != nil {
		return "", false, fmt.Errorf("blob: %w", err)
	}
	syncDir(dir)
	return hash, true, nil
}

// syncDir makes a rename in dir durable; where directories cannot be
// synced (some platforms) the rename is still atomic.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

// Get reads the blob with the given hash, checking that its content still
// has that hash.
func (s *Store) Get(hash string) ([]byte, error) {
	if !valid(hash) {
		return nil, fmt.Errorf("%w: %q", ErrBadHash, hash)
	}
	data, err := os.ReadFile(s.Path(hash))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, hash)
	}
	if err != nil {
		return nil, fmt.Errorf("blob: %w", err)
	}
	if Hash(data) != hash {
		return nil, fmt.Errorf("blob: %s is damaged: its content no longer has that hash", s.Path(hash))
	}
	return data, nil
}

// Has reports whether the blob with the given hash is present.
func (s *Store) Has(hash string) bool {
	if !valid(hash) {
		return false
	}
	_, err := os.Stat(s.Path(hash))
	return err == nil
}

// Size is the size of the blob with the given hash, or -1 when absent.
func (s *Store) Size(hash string) int64 {
	if !valid(hash) {
		return -1
	}
	info, err := os.Stat(s.Path(hash))
	if err != nil {
		return -1
	}
	return info.Size()
}

// Remove deletes the blob with the given hash; an absent blob is no error.
// The caller makes sure nothing refers to it any more.
func (s *Store) Remove(hash string) error {
	if !valid(hash) {
		return fmt.Errorf("%w: %q", ErrBadHash, hash)
	}
	if err := os.Remove(s.Path(hash)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("blob: %w", err)
	}
	return nil
}

// Sweep removes every blob whose hash keep does not report as live, and
// leftover temporary files, and returns the hashes removed and their bytes.
func (s *Store) Sweep(keep func(hash string) bool) (removed []string, bytes int64, err error) {
	return s.walkDead(keep, true)
}

// Unreferenced is Sweep without removing anything: the hashes and bytes
// Sweep would remove (temporary files aside).
func (s *Store) Unreferenced(keep func(hash string) bool) (hashes []string, bytes int64, err error) {
	return s.walkDead(keep, false)
}

func (s *Store) walkDead(keep func(hash string) bool, remove bool) (removed []string, bytes int64, err error) {
	err = filepath.WalkDir(s.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.IsDir() {
			return nil
		}
		name := d.Name()
		if strings.HasPrefix(name, ".tmp-") {
			if remove {
				return os.Remove(p)
			}
			return nil
		}
		if !valid(name) || keep(name) {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if remove {
			if err := os.Remove(p); err != nil {
				return err
			}
		}
		removed = append(removed, name)
		bytes += info.Size()
		return nil
	})
	if err != nil {
		return removed, bytes, fmt.Errorf("blob: sweep %s: %w", s.dir, err)
	}
	return removed, bytes, nil
}
