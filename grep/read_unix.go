//go:build unix

package grep

import (
	"io/fs"
	"syscall"
)

// readFile reads the file at path into buf, reusing its storage, and
// returns the contents. It makes the fewest system calls it can (open, fstat,
// one read for a regular file, close): os.ReadFile also registers every file
// with the poller and reads once more to see EOF, which costs as much as the
// search itself on small files.
func readFile(path string, buf []byte) ([]byte, error) {
	fd, err := open(path)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := fstat(fd, &st); err != nil {
		return nil, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	regular := st.Mode&syscall.S_IFMT == syscall.S_IFREG
	size := 0
	if regular {
		size = int(st.Size)
	}
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
		if n == 0 || regular && n < want && len(buf) >= size {
			return buf, nil
		}
	}
}

func open(path string) (int, error) {
	for {
		fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err != syscall.EINTR {
			return fd, err
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
