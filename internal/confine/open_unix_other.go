//go:build unix && !linux

package confine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/braidsearch/braid/internal/atomicfile"
)

// Dir is a root for many opens beneath it; off Linux it holds the path,
// and every open resolves, checks and opens by path: a link swapped in
// between the check and the open can still lead out (Linux closes that
// gap with descriptors).
type Dir struct{ root string }

// OpenDir returns the Dir of root, which must not pass through a
// symbolic link (ErrMoved).
func OpenDir(root string) (*Dir, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, err
	}
	if real != abs {
		return nil, fmt.Errorf("%w: %s", ErrMoved, root)
	}
	return &Dir{root: abs}, nil
}

// Close does nothing off Linux.
func (d *Dir) Close() error { return nil }

// Path is the folder's path.
func (d *Dir) Path() string { return d.root }

// OpenFd is OpenFd(root, path) for d's root.
func (d *Dir) OpenFd(path string) (int, error) {
	if err := Check(path); err != nil {
		return -1, err
	}
	return openResolved(d.root, path)
}

// OpenAt opens rel beneath the root for reading.
func (d *Dir) OpenAt(rel string) (int, error) {
	return d.OpenFd(filepath.Join(d.root, rel))
}

// Mkdir makes and returns the folder rel beneath the root.
func (d *Dir) Mkdir(rel string) (*Dir, error) {
	p := filepath.Join(d.root, rel)
	if err := os.MkdirAll(p, 0o755); err != nil {
		return nil, err
	}
	return d.Sub(rel)
}

// Sub returns the existing folder rel beneath the root.
func (d *Dir) Sub(rel string) (*Dir, error) {
	real, err := resolveInside(d.root, filepath.Join(d.root, rel))
	if err != nil {
		return nil, err
	}
	return &Dir{root: real}, nil
}

// Stat reports on the entry name in the folder, not following a link.
func (d *Dir) Stat(name string) (fs.FileMode, error) {
	if err := oneName(name); err != nil {
		return 0, err
	}
	info, err := os.Lstat(filepath.Join(d.root, name))
	if err != nil {
		return 0, err
	}
	return info.Mode().Type(), nil
}

// WriteFile writes data to name in the folder through a temporary file
// and a rename; with replace false an existing name is left alone.
func (d *Dir) WriteFile(name string, data []byte, perm fs.FileMode, replace bool) error {
	if err := oneName(name); err != nil {
		return err
	}
	p := filepath.Join(d.root, name)
	if !replace {
		if _, err := os.Lstat(p); err == nil {
			return fs.ErrExist
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return atomicfile.WriteFile(p, data, perm.Perm())
}

func openFd(root, path string) (int, error) {
	if root == "" {
		return openPlain(path)
	}
	if root == path {
		if info, err := os.Lstat(path); err == nil && info.Mode()&fs.ModeSymlink != 0 {
			return -1, fmt.Errorf("%w: %s is now a symbolic link", ErrMoved, path)
		}
		return openResolved(filepath.Dir(path), path)
	}
	return openResolved(root, path)
}
