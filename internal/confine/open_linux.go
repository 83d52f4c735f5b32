package confine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// Dir is a root opened once for many opens beneath it: on Linux an O_PATH
// descriptor that every open beneath it starts from, so a link swapped in
// after the root was checked cannot move it, and opening a file costs one
// system call. It is not safe for concurrent use; give each goroutine its
// own.
type Dir struct {
	root string // absolute, the real path the descriptor was opened at
	fd   int
}

// noOpenat2 is set once openat2 proved missing (ENOSYS) or filtered
// (EPERM from a seccomp policy): opens then take the walk.
var noOpenat2 atomic.Bool

// maxHops bounds the symbolic links one walk follows (Linux's MAXSYMLINKS).
const maxHops = 40

// OpenDir opens root, a folder named by its real path: no component of it
// may be a symbolic link (ErrMoved otherwise), so a folder that was checked
// when it was granted cannot since have been swapped for a link elsewhere.
// Resolve a path the user gave before granting it.
func OpenDir(root string) (*Dir, error) {
	if err := Check(root); err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	fd, err := openNoLinks(abs, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC)
	if err != nil {
		if errors.Is(err, unix.ELOOP) {
			return nil, fmt.Errorf("%w: %s", ErrMoved, root)
		}
		return nil, &os.PathError{Op: "open", Path: root, Err: err}
	}
	return &Dir{root: abs, fd: fd}, nil
}

// Close releases the descriptor.
func (d *Dir) Close() error { return unix.Close(d.fd) }

// Path is the folder's real path, as opened.
func (d *Dir) Path() string { return d.root }

// OpenFd is the package's OpenFd(root, path) for the root d holds: path,
// absolute or relative to the working directory, must name a file beneath
// the root (ErrOutside otherwise). The kernel resolves it from the root's
// descriptor with openat2 RESOLVE_BENEATH, refusing a link out of the root
// in the same system call that opens the file; a link it refuses although
// it may stay inside (an absolute one) and kernels without openat2 take a
// walk component by component from the descriptor that follows links
// itself and only inside the root. Nothing is ever resolved by path.
func (d *Dir) OpenFd(path string) (int, error) {
	if err := Check(path); err != nil {
		return -1, err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return -1, err
	}
	rel, err := filepath.Rel(d.root, abs)
	if err != nil || !(rel == "." || filepath.IsLocal(rel)) {
		return -1, fmt.Errorf("%w: %s is not inside %s", ErrOutside, path, d.root)
	}
	return d.OpenAt(rel)
}

// OpenAt opens rel, a path relative to the root, for reading: read-only,
// close-on-exec and non-blocking (a FIFO with no writer cannot block it).
func (d *Dir) OpenAt(rel string) (int, error) {
	fd, err := d.openAt(rel, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NONBLOCK)
	if err != nil {
		return -1, notRegular(rel, err)
	}
	return fd, nil
}

func (d *Dir) openAt(rel string, flags int) (int, error) {
	fd, ok, err := openat2(d.fd, rel, flags, unix.RESOLVE_BENEATH|unix.RESOLVE_NO_MAGICLINKS)
	switch {
	case ok && err == nil:
		return fd, nil
	case ok && !errors.Is(err, unix.EXDEV):
		return -1, &os.PathError{Op: "open", Path: filepath.Join(d.root, rel), Err: err}
	}
	// No openat2, or a link the kernel will not follow beneath the root
	// (an absolute one, or one out): the walk decides.
	return d.walk(rel, flags, false)
}

// openat2 opens path from dirfd with openat2 and the resolve flags,
// retrying when interrupted. ok is false where the kernel lacks openat2
// or a policy filters it (ENOSYS, EPERM): the caller then walks instead,
// and so does every later call.
func openat2(dirfd int, path string, flags int, resolve uint64) (fd int, ok bool, err error) {
	for !noOpenat2.Load() {
		fd, err := unix.Openat2(dirfd, path, &unix.OpenHow{Flags: uint64(flags), Resolve: resolve})
		switch {
		case errors.Is(err, unix.EINTR) || errors.Is(err, unix.EAGAIN):
			continue
		case errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EPERM):
			noOpenat2.Store(true)
			return -1, false, err
		}
		return fd, true, err
	}
	return -1, false, unix.ENOSYS
}

// walk opens rel beneath the root one component at a time, each with
// O_NOFOLLOW from its parent's descriptor. A symbolic link is read through
// the descriptor of the link itself and followed by the walk: a relative
// target from the link's folder, an absolute one only when it names a
// place inside the root (from the root's descriptor); ".." never climbs
// above the root. With create, missing folders are made (0755) and the
// last component is opened as a folder. flags opens the last component.
func (d *Dir) walk(rel string, flags int, create bool) (int, error) {
	parts := split(rel)
	stack := []int{d.fd}
	defer func() {
		for _, fd := range stack[1:] {
			unix.Close(fd)
		}
	}()
	hops := 0
	for {
		if len(parts) == 0 {
			return openat(stack[len(stack)-1], ".", flags)
		}
		name := parts[0]
		parts = parts[1:]
		switch name {
		case "", ".":
			continue
		case "..":
			if len(stack) == 1 {
				return -1, fmt.Errorf("%w: %s climbs out of %s", ErrOutside, rel, d.root)
			}
			unix.Close(stack[len(stack)-1])
			stack = stack[:len(stack)-1]
			continue
		}
		cur := stack[len(stack)-1]
		fd, err := openat(cur, name, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC)
		if errors.Is(err, unix.ENOENT) && create {
			if err := unix.Mkdirat(cur, name, 0o755); err != nil && !errors.Is(err, unix.EEXIST) {
				return -1, &os.PathError{Op: "mkdir", Path: filepath.Join(d.root, rel), Err: err}
			}
			parts = append([]string{name}, parts...)
			continue
		}
		if err != nil {
			return -1, &os.PathError{Op: "open", Path: filepath.Join(d.root, rel), Err: err}
		}
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil {
			unix.Close(fd)
			return -1, err
		}
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFLNK:
			target, err := readlink(fd)
			unix.Close(fd)
			if err != nil {
				return -1, err
			}
			if hops++; hops > maxHops {
				return -1, &os.PathError{Op: "open", Path: filepath.Join(d.root, rel), Err: unix.ELOOP}
			}
			if filepath.IsAbs(target) {
				inner, err := filepath.Rel(d.root, filepath.Clean(target))
				if err != nil || !(inner == "." || filepath.IsLocal(inner)) {
					return -1, fmt.Errorf("%w: %s leads out of %s", ErrOutside, rel, d.root)
				}
				for _, fd := range stack[1:] {
					unix.Close(fd)
				}
				stack = stack[:1]
				target = inner
			}
			parts = append(split(target), parts...)
			continue
		case unix.S_IFDIR:
			stack = append(stack, fd)
			continue
		}
		unix.Close(fd)
		if len(parts) > 0 {
			return -1, &os.PathError{Op: "open", Path: filepath.Join(d.root, rel), Err: unix.ENOTDIR}
		}
		// The last component, not a link when looked at: open it without
		// following one, so a link swapped in since is refused (ELOOP).
		return openat(cur, name, flags|unix.O_NOFOLLOW)
	}
}

// Mkdir opens the folder rel beneath the root, making it and the folders
// above it that are missing, through the walk (links followed only
// inside the root).
func (d *Dir) Mkdir(rel string) (*Dir, error) {
	fd, err := d.walk(rel, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, true)
	if err != nil {
		return nil, err
	}
	return dirOf(fd)
}

// Sub opens the existing folder rel beneath the root as a Dir of its own.
func (d *Dir) Sub(rel string) (*Dir, error) {
	fd, err := d.openAt(rel, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC)
	if err != nil {
		return nil, err
	}
	return dirOf(fd)
}

// Stat reports on the entry name in the folder, not following a link.
func (d *Dir) Stat(name string) (fs.FileMode, error) {
	if err := oneName(name); err != nil {
		return 0, err
	}
	var st unix.Stat_t
	if err := unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return 0, &os.PathError{Op: "stat", Path: filepath.Join(d.root, name), Err: err}
	}
	return modeOf(st.Mode), nil
}

// WriteFile writes data to the file name in the folder (one name, no
// separator) through a temporary file created in the folder's descriptor
// (O_EXCL, never through a link), synced, and renamed over name. With
// replace false an existing name is left alone and the error wraps
// fs.ErrExist. perm is the new file's mode.
func (d *Dir) WriteFile(name string, data []byte, perm fs.FileMode, replace bool) error {
	if err := oneName(name); err != nil {
		return err
	}
	var tmp string
	var fd int
	for i := 0; ; i++ {
		tmp = fmt.Sprintf(".tmp-%s", randomName())
		var err error
		fd, err = unix.Openat(d.fd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
		if err == nil {
			break
		}
		if !errors.Is(err, unix.EEXIST) || i > 100 {
			return &os.PathError{Op: "create", Path: filepath.Join(d.root, tmp), Err: err}
		}
	}
	f := os.NewFile(uintptr(fd), filepath.Join(d.root, tmp))
	err := func() error {
		if _, err := f.Write(data); err != nil {
			return err
		}
		if err := f.Chmod(perm.Perm()); err != nil {
			return err
		}
		return f.Sync()
	}()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		if replace {
			err = unix.Renameat(d.fd, tmp, d.fd, name)
		} else {
			err = unix.Renameat2(d.fd, tmp, d.fd, name, unix.RENAME_NOREPLACE)
			if errors.Is(err, unix.EEXIST) {
				err = fs.ErrExist
			}
		}
		if err != nil {
			err = &os.PathError{Op: "rename", Path: filepath.Join(d.root, name), Err: err}
		}
	}
	if err != nil {
		unix.Unlinkat(d.fd, tmp, 0)
	}
	return err
}

func openFd(root, path string) (int, error) {
	if root == "" {
		return openPlain(path)
	}
	if root == path {
		return openExact(path)
	}
	d, err := OpenDir(root)
	if err != nil {
		return -1, err
	}
	defer d.Close()
	return d.OpenFd(path)
}

// openNoLinks opens the folder at the absolute path abs refusing a symbolic link in any
// of its components (ELOOP): openat2 RESOLVE_NO_SYMLINKS, or a walk from
// the file system's root with O_NOFOLLOW where openat2 is missing.
func openNoLinks(abs string, flags int) (int, error) {
	if fd, ok, err := openat2(unix.AT_FDCWD, abs, flags, unix.RESOLVE_NO_SYMLINKS|unix.RESOLVE_NO_MAGICLINKS); ok {
		return fd, err
	}
	cur, err := openat(unix.AT_FDCWD, "/", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC)
	if err != nil {
		return -1, err
	}
	for _, name := range split(abs) {
		if name == "" || name == "." {
			continue
		}
		next, err := openat(cur, name, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC)
		unix.Close(cur)
		if err != nil {
			return -1, err
		}
		var st unix.Stat_t
		if err := unix.Fstat(next, &st); err != nil {
			unix.Close(next)
			return -1, err
		}
		if st.Mode&unix.S_IFMT == unix.S_IFLNK {
			unix.Close(next)
			return -1, unix.ELOOP
		}
		cur = next
	}
	defer unix.Close(cur)
	return openat(cur, ".", flags)
}

func openat(dirfd int, name string, flags int) (int, error) {
	for {
		fd, err := unix.Openat(dirfd, name, flags, 0)
		if err == unix.EINTR {
			continue
		}
		return fd, err
	}
}

// readlink reads the target of the link fd holds (an O_PATH|O_NOFOLLOW
// descriptor of the link itself).
func readlink(fd int) (string, error) {
	for size := 256; ; size *= 2 {
		buf := make([]byte, size)
		n, err := unix.Readlinkat(fd, "", buf)
		if err != nil {
			return "", err
		}
		if n < size {
			return string(buf[:n]), nil
		}
		if size > MaxPath {
			return "", unix.ENAMETOOLONG
		}
	}
}

// dirOf is the Dir of an open folder descriptor, named by the path the
// kernel records for it; it closes fd when that cannot be read.
func dirOf(fd int) (*Dir, error) {
	real, err := fdPath(fd)
	if err != nil {
		unix.Close(fd)
		return nil, err
	}
	return &Dir{root: real, fd: fd}, nil
}

// fdPath is the path the kernel records for an open descriptor.
func fdPath(fd int) (string, error) {
	p, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", fd))
	if err != nil {
		return "", err
	}
	return p, nil
}

func split(rel string) []string {
	return strings.Split(filepath.ToSlash(rel), "/")
}

func modeOf(m uint32) fs.FileMode {
	switch m & unix.S_IFMT {
	case unix.S_IFDIR:
		return fs.ModeDir
	case unix.S_IFLNK:
		return fs.ModeSymlink
	case unix.S_IFIFO:
		return fs.ModeNamedPipe
	case unix.S_IFSOCK:
		return fs.ModeSocket
	case unix.S_IFCHR:
		return fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		return fs.ModeDevice
	}
	return 0
}

// openExact opens the file at path, which names it by its real path:
// neither the file nor a folder above it may be a symbolic link.
func openExact(path string) (int, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return -1, err
	}
	d, err := OpenDir(filepath.Dir(abs))
	if err != nil {
		return -1, err
	}
	defer d.Close()
	fd, err := openat(d.fd, filepath.Base(abs), unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NONBLOCK|unix.O_NOFOLLOW)
	if errors.Is(err, unix.ELOOP) {
		return -1, fmt.Errorf("%w: %s is now a symbolic link", ErrMoved, path)
	}
	if err != nil {
		return -1, notRegular(path, &os.PathError{Op: "open", Path: path, Err: err})
	}
	return fd, nil
}
