package indexdir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// CheckDir refuses an index directory that is a file, or lies under one,
// with an error that names Open's dir and the fix (opening it would
// otherwise fail with a bare "not a directory"). Other problems, such as
// permissions, are left for the open to report.
func CheckDir(dir string) error {
	for p := filepath.Clean(dir); ; p = filepath.Dir(p) {
		fi, err := os.Stat(p)
		switch {
		case err == nil && fi.IsDir():
			return nil
		case err == nil && p == filepath.Clean(dir):
			return fmt.Errorf("Open's dir %s is a file, not a directory; point Open's dir at the directory that holds the index, or at a new one", dir)
		case err == nil:
			return fmt.Errorf("Open's dir %s lies under %s, which is a file; point Open's dir at a directory", dir, p)
		case !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR):
			return nil
		}
		if filepath.Dir(p) == p {
			return nil
		}
	}
}

// MakeDir creates the index directory dir (DirMode: the user's alone)
// with its missing parents (0755, as mkdir -p makes them) and returns the
// outermost directory it created ("" when dir existed), for
// RemoveCreated to take away when the first run fails before writing. An
// existing dir is left as it is; a writer tightens it (Tighten).
func MakeDir(dir string) (created string, err error) {
	for p := filepath.Clean(dir); ; p = filepath.Dir(p) {
		if _, err := os.Lstat(p); err == nil || !errors.Is(err, fs.ErrNotExist) {
			break
		}
		created = p
		if filepath.Dir(p) == p {
			break
		}
	}
	if err := os.MkdirAll(filepath.Dir(filepath.Clean(dir)), 0o755); err != nil {
		return "", err
	}
	if err := os.Mkdir(dir, DirMode); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", err
	}
	return created, nil
}

// RemoveCreated removes what MakeDir created, if anything.
func RemoveCreated(created string) {
	if created != "" {
		os.RemoveAll(created)
	}
}
