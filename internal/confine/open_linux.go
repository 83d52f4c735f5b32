package confine

import (
	"errors"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// openFd uses openat2 with RESOLVE_BENEATH, so the kernel itself refuses a
// link out of root, in the same system call that opens the file. A link
// RESOLVE_BENEATH refuses although it stays inside (an absolute link to
// another file of the root) and kernels without openat2 take the portable
// way.
func openFd(root, path string) (int, error) {
	if root == "" {
		return openPlain(path)
	}
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return -1, err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return -1, err
	}
	rel, err := filepath.Rel(absRoot, abs)
	if err != nil || !filepath.IsLocal(rel) {
		return openResolved(root, path) // named from outside: decide on the resolved paths
	}
	dir, err := unix.Open(absRoot, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, &os.PathError{Op: "open", Path: root, Err: err}
	}
	defer unix.Close(dir)
	for {
		fd, err := unix.Openat2(dir, rel, &unix.OpenHow{
			Flags:   unix.O_RDONLY | unix.O_CLOEXEC | unix.O_NONBLOCK,
			Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS,
		})
		switch {
		case err == nil:
			return fd, nil
		case errors.Is(err, unix.EINTR) || errors.Is(err, unix.EAGAIN):
			continue
		case errors.Is(err, unix.EXDEV) || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EPERM):
			return openResolved(root, path)
		default:
			return -1, notRegular(path, &os.PathError{Op: "open", Path: path, Err: err})
		}
	}
}
