// Package atomicfile writes a file so that a crash leaves either its old
// content or its new content, never a mix: the data goes to a temporary
// file beside it, is synced, and is renamed over it.
package atomicfile

import (
	"os"
	"path/filepath"
)

// WriteFile writes data to path through a temporary file in the same
// directory, synced, and a rename. perm is the file's mode; 0 means 0600.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if perm != 0 {
		if err := tmp.Chmod(perm); err != nil {
			tmp.Close()
			return err
		}
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// Replace writes data over the file at path as WriteFile does, keeping the
// file's permissions; the file must exist.
func Replace(path string, data []byte) error {
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	return WriteFile(path, data, info.Mode().Perm())
}
