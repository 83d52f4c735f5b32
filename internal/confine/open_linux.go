package confine

import (
	"errors"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// Dir is a root opened once for many opens beneath it: on Linux an O_PATH
// descriptor that openat2 resolves from, so opening a file costs one
// system call. It is not safe for concurrent use; give each goroutine its
// own.
type Dir struct {
	root string // absolute
	fd   int
}

// OpenDir opens root for OpenFd.
func OpenDir(root string) (*Dir, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	fd, err := unix.Open(abs, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: root, Err: err}
	}
	return &Dir{root: abs, fd: fd}, nil
}

// Close releases the descriptor.
func (d *Dir) Close() error { return unix.Close(d.fd) }

// OpenFd is the package's OpenFd(root, path) for the root d holds. It uses
// openat2 with RESOLVE_BENEATH, so the kernel itself refuses a link out of
// the root, in the same system call that opens the file. A link
// RESOLVE_BENEATH refuses although it stays inside (an absolute link to
// another file of the root) and kernels without openat2 take the portable
// way.
func (d *Dir) OpenFd(path string) (int, error) {
	if err := Check(path); err != nil {
		return -1, err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return -1, err
	}
	rel, err := filepath.Rel(d.root, abs)
	if err != nil || !filepath.IsLocal(rel) {
		return openResolved(d.root, path) // named from outside: decide on the resolved paths
	}
	for {
		fd, err := unix.Openat2(d.fd, rel, &unix.OpenHow{
			Flags:   unix.O_RDONLY | unix.O_CLOEXEC | unix.O_NONBLOCK,
			Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS,
		})
		switch {
		case err == nil:
			return fd, nil
		case errors.Is(err, unix.EINTR) || errors.Is(err, unix.EAGAIN):
			continue
		case errors.Is(err, unix.EXDEV) || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EPERM):
			return openResolved(d.root, path)
		default:
			return -1, notRegular(path, &os.PathError{Op: "open", Path: path, Err: err})
		}
	}
}

func openFd(root, path string) (int, error) {
	if root == "" {
		return openPlain(path)
	}
	d, err := OpenDir(root)
	if err != nil {
		return -1, err
	}
	defer d.Close()
	return d.OpenFd(path)
}
