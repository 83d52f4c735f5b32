// Package userkey keeps the secret that says an index record was made by
// this user on this machine: 32 random bytes in a file only the user can
// read (created 0600, in a 0700 folder, on first use). braid seals each
// source record it registers with an HMAC under this key; a record that
// does not verify (an index copied from elsewhere, committed to a git
// repository, or edited) grants nothing until the user trusts it again.
package userkey

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// ErrUnsafe is the error of a key file others could read or replace.
var ErrUnsafe = errors.New("userkey: unsafe key file")

// Key is a user's secret.
type Key []byte

// DefaultPath is where the key lives: braid/key in the user's config
// folder (os.UserConfigDir).
func DefaultPath() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("userkey: no config folder for the key (%w); set HOME", err)
	}
	return filepath.Join(dir, "braid", "key"), nil
}

// Load reads the key at path, creating it (and its folder, 0700) when it
// does not exist. A key file that is a link, not a regular file, not the
// user's, or open to others is refused with ErrUnsafe.
func Load(path string) (Key, error) {
	for range 3 {
		k, err := read(path)
		if !errors.Is(err, fs.ErrNotExist) {
			return k, err
		}
		if err := create(path); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
	}
	return nil, fmt.Errorf("userkey: %s keeps disappearing", path)
}

func read(path string) (Key, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, fmt.Errorf("%w: %s is a symbolic link; remove it and braid makes a new key", ErrUnsafe, path)
		}
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: %s is not a regular file; remove it and braid makes a new key", ErrUnsafe, path)
	}
	if st, ok := info.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return nil, fmt.Errorf("%w: %s belongs to uid %d, not to you (uid %d); remove it and braid makes a new key", ErrUnsafe, path, st.Uid, os.Getuid())
	}
	if info.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("%w: %s is open to other users (mode %v); run chmod 600 %s", ErrUnsafe, path, info.Mode().Perm(), path)
	}
	b, err := io.ReadAll(io.LimitReader(f, 256))
	if err != nil {
		return nil, err
	}
	k, err := hex.DecodeString(strings.TrimSpace(string(b)))
	if err != nil || len(k) < 32 {
		return nil, fmt.Errorf("%w: %s does not hold a key; remove it and braid makes a new one (sources sealed with the old key then need braid sources trust)", ErrUnsafe, path)
	}
	return k, nil
}

func create(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("userkey: make the key's folder: %w", err)
	}
	k := make([]byte, 32)
	if _, err := rand.Read(k); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".key-*")
	if err != nil {
		return fmt.Errorf("userkey: write the key: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.WriteString(hex.EncodeToString(k) + "\n"); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	// A link, not a rename: a key another process made first wins.
	if err := os.Link(tmp.Name(), path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fs.ErrExist
		}
		return fmt.Errorf("userkey: write the key: %w", err)
	}
	return nil
}

// Seal is the HMAC-SHA256 of the fields under k, hex.
func (k Key) Seal(fields ...string) string {
	m := hmac.New(sha256.New, k)
	for _, f := range fields {
		fmt.Fprintf(m, "%d:%s", len(f), f)
	}
	return hex.EncodeToString(m.Sum(nil))
}

// Verify says whether seal is fields' Seal under k.
func (k Key) Verify(seal string, fields ...string) bool {
	if len(k) == 0 || seal == "" {
		return false
	}
	return hmac.Equal([]byte(seal), []byte(k.Seal(fields...)))
}
