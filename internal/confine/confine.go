package confine

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

var (
	// ErrOutside is the error for a path that leads out of its root.
	ErrOutside = errors.New("confine: outside the allowed folder")
	// ErrNotRegular is the error for a FIFO, a device, a socket or a
	// directory where a file's contents were wanted.
	ErrNotRegular = errors.New("confine: not a regular file")
	// ErrTooLarge is the error for a file over ReadFile's limit.
	ErrTooLarge = errors.New("confine: file over the size limit")
	// ErrBadPath is the error for a path no file can have: empty, with a NUL
	// byte, or longer than MaxPath.
	ErrBadPath = errors.New("confine: bad path")
	// ErrMoved is the error for a granted folder whose path now passes
	// through a symbolic link: it was a real folder when it was granted,
	// and something (a git pull, another process) has since put a link in
	// its place, which braid will not follow.
	ErrMoved = errors.New("confine: a symbolic link now stands in the path of an allowed folder")
)

// MaxPath is the longest path accepted, in bytes (Linux's PATH_MAX).
const MaxPath = 4096

// Check refuses a path no file can have.
func Check(path string) error {
	switch {
	case path == "":
		return fmt.Errorf("%w: the path is empty", ErrBadPath)
	case strings.IndexByte(path, 0) >= 0:
		return fmt.Errorf("%w: the path holds a NUL byte", ErrBadPath)
	case len(path) > MaxPath:
		return fmt.Errorf("%w: the path is %d bytes long, over the %d-byte limit", ErrBadPath, len(path), MaxPath)
	}
	return nil
}

// Resolve returns path made absolute (from the working directory), cleaned,
// and with every symbolic link in the part of it that exists followed,
// a link whose target is missing included; the part that does not exist
// yet is appended as written. Two paths that reach the same file resolve
// alike, so Within can compare them, and a dangling link resolves to
// where a file created through it would be.
func Resolve(path string) (string, error) {
	if err := Check(path); err != nil {
		return "", err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("confine: %s: %w", path, err)
	}
	real, err := walk(abs)
	if err != nil {
		return "", fmt.Errorf("confine: resolve %s: %w", path, err)
	}
	return real, nil
}

// maxLinks is how many symbolic links one path may go through, as on
// Linux.
const maxLinks = 40

// walk follows the absolute path abs one name at a time, as the kernel
// does, reading each symbolic link (filepath.EvalSymlinks gives up on a
// link whose target is missing); from the first name that does not exist
// the rest is appended as written.
func walk(abs string) (string, error) {
	sep := string(filepath.Separator)
	vol := filepath.VolumeName(abs)
	real, todo := vol+sep, abs[len(vol):]
	links := 0
	for todo != "" {
		name, rest := todo, ""
		if i := strings.IndexFunc(todo, func(r rune) bool { return r < 0x80 && os.IsPathSeparator(uint8(r)) }); i >= 0 {
			name, rest = todo[:i], todo[i+1:]
		}
		todo = rest
		switch name {
		case "", ".":
			continue
		case "..":
			real = filepath.Dir(real) // real holds no link: .. is its parent
			continue
		}
		next := filepath.Join(real, name)
		info, err := os.Lstat(next)
		if errors.Is(err, fs.ErrNotExist) {
			return filepath.Join(next, todo), nil
		}
		if err != nil {
			return "", err
		}
		if info.Mode()&fs.ModeSymlink == 0 {
			real = next
			continue
		}
		if links++; links > maxLinks {
			return "", fmt.Errorf("more than %d symbolic links", maxLinks)
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", err
		}
		if filepath.IsAbs(target) {
			v := filepath.VolumeName(target)
			real, target = v+sep, target[len(v):]
		}
		todo = target + sep + todo
	}
	return real, nil
}

// Within reports whether path is root or inside it. Both should be resolved
// (Resolve) for the answer to hold for the files they reach.
func Within(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && (rel == "." || filepath.IsLocal(rel))
}

// Open opens path for reading; it and ReadFile are the exception to Dir,
// for the callers the package documentation lists. With a root, the file must lie inside it
// once symbolic links are followed (ErrOutside otherwise), and the root
// itself must be a real path, with no link in it (ErrMoved); a root that
// is path itself allows just that file, which must not be a link; an
// empty root allows any path. It never blocks on a FIFO: the caller checks with Stat
// that it opened a regular file before reading (ReadFile does).
func Open(root, path string) (*os.File, error) {
	if err := Check(path); err != nil {
		return nil, err
	}
	return open(root, path)
}

// ReadFile reads the regular file at path, inside root (see Open), and
// refuses it when it holds more than limit bytes (no limit when limit <= 0),
// reading at most limit+1 bytes whatever the file claims.
func ReadFile(root, path string, limit int64) ([]byte, error) {
	f, err := Open(root, path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, _, err := readAll(f, path, limit)
	return data, err
}

func readAll(f *os.File, path string, limit int64) ([]byte, fs.FileMode, error) {
	info, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	if !info.Mode().IsRegular() {
		return nil, 0, fmt.Errorf("%w: %s is %s", ErrNotRegular, path, Kind(info.Mode()))
	}
	if limit > 0 && info.Size() > limit {
		return nil, 0, fmt.Errorf("%w: %s is %d bytes, over %d", ErrTooLarge, path, info.Size(), limit)
	}
	r := io.Reader(f)
	if limit > 0 {
		r = io.LimitReader(f, limit+1)
	}
	data := make([]byte, 0, info.Size()+1)
	for {
		n, err := r.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, 0, err
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
	}
	if limit > 0 && int64(len(data)) > limit {
		return nil, 0, fmt.Errorf("%w: %s grew past %d bytes while being read", ErrTooLarge, path, limit)
	}
	return data, info.Mode().Perm(), nil
}

// Kind names what a non-regular file is, for messages.
func Kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO (named pipe)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsRegular():
		return "a regular file"
	}
	return "not a regular file"
}

// resolveInside is the portable check: resolve, then check. A link
// swapped in between the check and the open can still lead out; the Linux
// build closes that gap with openat2. An empty root allows any path.
func resolveInside(root, path string) (string, error) {
	if root == "" {
		return path, nil
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", err
	}
	if !Within(realRoot, real) {
		return "", fmt.Errorf("%w: %s leads to %s, outside %s", ErrOutside, path, real, root)
	}
	return real, nil
}

// oneName refuses a name that is not one entry of a folder.
func oneName(name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\x00") {
		return fmt.Errorf("%w: %q is not a file name", ErrBadPath, name)
	}
	return nil
}

// randomName is 12 random hex digits, for temporary files.
func randomName() string {
	var b [6]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
