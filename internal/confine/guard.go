package confine

import (
	"fmt"
	"os"
)

// MaxConfig is ReadConfig's limit when it is given none: 1 MiB, far more
// than any settings file, ignore file or prompt braid reads needs.
const MaxConfig = 1 << 20

// ReadConfig reads a small file braid takes its own instructions from: a
// .gitignore, settings.json, a prompt file, an index's VERSION. Such a file
// may sit in a folder someone else arranged (a cloned vault, a shared
// prompts folder), so ReadConfig trusts it less than ReadFile does:
//
//   - a symbolic link as the last part of path is refused (ErrNotRegular),
//     wherever it leads; links among the folders above it are followed;
//   - a FIFO, socket, device or directory is refused (ErrNotRegular) without
//     being opened for reading, and the open itself is non-blocking, so
//     a FIFO swapped in after the check cannot block it either;
//   - a file of more than limit bytes (MaxConfig when limit <= 0) is
//     refused (ErrTooLarge), reading at most limit+1 bytes whatever the
//     file claims.
//
// A missing file gives an error that wraps fs.ErrNotExist, so a caller can
// treat it as absent. The file's identity is checked after the open against
// what was looked at before it: a link or another file renamed into place
// between the two is refused, not read.
//
// Time bound: none of the above can block on a FIFO or a device. A regular
// file on a network or FUSE file system that stops answering can still
// block the read; that is out of scope here.
func ReadConfig(path string, limit int64) ([]byte, error) {
	if err := Check(path); err != nil {
		return nil, err
	}
	if limit <= 0 {
		limit = MaxConfig
	}
	before, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !before.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: %s is %s", ErrNotRegular, path, Kind(before.Mode()))
	}
	if before.Size() > limit {
		return nil, fmt.Errorf("%w: %s is %d bytes, over %d", ErrTooLarge, path, before.Size(), limit)
	}
	f, err := Open("", path) // non-blocking
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() || !os.SameFile(before, info) {
		return nil, fmt.Errorf("%w: %s was replaced by %s while being opened", ErrNotRegular, path, Kind(info.Mode()))
	}
	data, _, err := readAll(f, path, limit)
	return data, err
}
