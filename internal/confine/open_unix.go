//go:build unix

package confine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// OpenFd is Open for callers that read with system calls of their own: it
// returns the file descriptor, opened read-only, close-on-exec and
// non-blocking (so that a FIFO with no writer cannot block the open).
func OpenFd(root, path string) (int, error) {
	if err := Check(path); err != nil {
		return -1, err
	}
	return openFd(root, path)
}

func open(root, path string) (*os.File, error) {
	fd, err := openFd(root, path)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), path), nil
}

// openResolvedFd is openResolved's descriptor.
func openResolved(root, path string) (int, error) {
	real, err := resolveInside(root, path)
	if err != nil {
		return -1, err
	}
	return openPlain(real)
}

func openPlain(path string) (int, error) {
	for {
		fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return -1, notRegular(path, &os.PathError{Op: "open", Path: path, Err: err})
		}
		return fd, nil
	}
}

// notRegular names the error of opening a socket or a device nothing
// backs (ENXIO) for what it is.
func notRegular(path string, err error) error {
	if errors.Is(err, syscall.ENXIO) {
		return fmt.Errorf("%w: %s is a socket or a device with nothing behind it", ErrNotRegular, path)
	}
	return err
}

// ReadAt reads the regular file rel beneath the folder d holds, as
// ReadFile does, and returns its permissions too.
func (d *Dir) ReadAt(rel string, limit int64) ([]byte, fs.FileMode, error) {
	fd, err := d.OpenAt(rel)
	if err != nil {
		return nil, 0, err
	}
	f := os.NewFile(uintptr(fd), rel)
	defer f.Close()
	return readAll(f, rel, limit)
}

// ReadFile reads the regular file at path (absolute, or relative to the
// working directory) beneath the folder d holds, as ReadAt does, refusing
// it when it holds more than limit bytes (no limit when limit <= 0).
func (d *Dir) ReadFile(path string, limit int64) ([]byte, error) {
	fd, err := d.OpenFd(path)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	data, _, err := readAll(f, path, limit)
	return data, err
}
