package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"

	"github.com/alecthomas/kong"
)

// noIndexDir lists the commands that never touch the index directory, so
// a bad --index does not concern them.
var noIndexDir = []string{"version", "models"}

// usesIndexDir says whether the selected command works on the index
// directory.
func usesIndexDir(kctx *kong.Context) bool {
	sel := kctx.Selected()
	if sel == nil {
		return false
	}
	names := commandPath(sel)
	return len(names) > 0 && !slices.Contains(noIndexDir, names[0])
}

// checkIndexDir refuses an --index (or BRAID_INDEX) that names a file, or
// lies under one, before a command trips over it with a bare "not a
// directory".
func checkIndexDir(dir string) error {
	for p := filepath.Clean(dir); ; p = filepath.Dir(p) {
		fi, err := os.Stat(p)
		switch {
		case err == nil && fi.IsDir():
			return nil
		case err == nil && p == filepath.Clean(dir):
			return fmt.Errorf("--index %s is a file, not a directory; point --index (or BRAID_INDEX) at the directory that holds the index, or at a new one", dir)
		case err == nil:
			return fmt.Errorf("--index %s lies under %s, which is a file; point --index (or BRAID_INDEX) at a directory", dir, p)
		case !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR):
			return nil // let the command say what is wrong (permissions, ...)
		}
		if filepath.Dir(p) == p {
			return nil
		}
	}
}

// missingFrom returns the outermost directory of dir that does not exist
// yet (dir itself, or one of its parents), or "" when dir exists: what
// opening an index there for writing creates.
func missingFrom(dir string) string {
	missing := ""
	for p := filepath.Clean(dir); ; p = filepath.Dir(p) {
		if _, err := os.Lstat(p); err == nil || !errors.Is(err, fs.ErrNotExist) {
			return missing
		}
		missing = p
		if filepath.Dir(p) == p {
			return missing
		}
	}
}

// removeCreated removes what opening the index created (see missingFrom)
// when a run failed before writing anything, so a failed first index
// leaves no empty index behind.
func removeCreated(created string) {
	if created != "" {
		os.RemoveAll(created)
	}
}
