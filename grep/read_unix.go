//go:build unix

package grep

import (
	"fmt"
	"io/fs"
	"syscall"

	"github.com/braidsearch/braid/internal/confine"
)

// readFile reads the file at path into buf, reusing its storage, and
// returns the contents. It makes the fewest system calls it can (open, fstat,
// one read for a regular file, close): os.ReadFile also registers every file
// with the poller and reads once more to see EOF, which costs as much as the
// search itself on small files.
// A FIFO, a socket or a device is refused, never waited on.
func readFile(f File, buf []byte, d *dirs) ([]byte, error) {
	path := f.Path
	fd, err := d.open(f.Root, path)
	if err != nil {
		return nil, err
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := fstat(fd, &st); err != nil {
		return nil, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return nil, fmt.Errorf("%w: %s", confine.ErrNotRegular, path)
	}
	size := int(st.Size)
	buf = buf[:0]
	if cap(buf) < size+1 {
		buf = make([]byte, 0, max(size+1, 512))
	}
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		want := cap(buf) - len(buf)
		n, err := syscall.Read(fd, buf[len(buf):cap(buf)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: path, Err: err}
		}
		buf = buf[:len(buf)+n]
		// A short read of a regular file is its end.
		if n == 0 || n < want && len(buf) >= size {
			return buf, nil
		}
	}
}

func fstat(fd int, st *syscall.Stat_t) error {
	for {
		if err := syscall.Fstat(fd, st); err != syscall.EINTR {
			return err
		}
	}
}

// dirs keeps the roots a searcher opened, so that opening each of many
// files beneath one root costs one system call (see confine.Dir).
type dirs map[string]*confine.Dir

func (d *dirs) open(root, path string) (int, error) {
	if root == "" || root == path {
		return confine.OpenFd(root, path)
	}
	dir, ok := (*d)[root]
	if !ok {
		var err error
		if dir, err = confine.OpenDir(root); err != nil {
			return -1, err
		}
		(*d)[root] = dir
	}
	return dir.OpenFd(path)
}

func (d *dirs) close() {
	for _, dir := range *d {
		dir.Close()
	}
	*d = dirs{}
}
