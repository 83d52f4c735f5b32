package doctor

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/braidsearch/braid/indexdir"
	"github.com/braidsearch/braid/internal/confine"
	"github.com/braidsearch/braid/internal/relay"
)

// CheckEntries refuses an index directory holding what braid never
// writes there: a symbolic link, a FIFO, a device or a socket (other than
// braid serve's) among its files and those of lexical.bleve. VERSION is
// left to Version, which refuses such a file and names the repair. bbolt and
// bleve open their files as they find them, so a link to a FIFO in a
// .braid/ that came with a cloned vault would block the first open for
// ever; nothing is opened before this check. The index directory itself
// may be a link.
func CheckEntries(dir string) error {
	for _, d := range []string{dir, filepath.Join(dir, indexdir.LexicalDir), filepath.Join(dir, indexdir.LexicalDir, "store")} {
		if d != dir {
			fi, err := os.Lstat(d)
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			if err != nil {
				return err
			}
			if !fi.IsDir() {
				return strange(dir, d, fi.Mode())
			}
		}
		ents, err := os.ReadDir(d)
		if errors.Is(err, fs.ErrNotExist) && d == dir {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read the index directory %s: %w", d, err)
		}
		for _, e := range ents {
			m := e.Type()
			switch {
			case m.IsRegular(), m.IsDir():
			case d == dir && e.Name() == indexdir.VersionFile:
				// Read without following a link or blocking (Version),
				// and rewritten by doctor --repair.
			case m&fs.ModeSocket != 0 && d == dir && e.Name() == relay.SocketName:
			default:
				return strange(dir, filepath.Join(d, e.Name()), m)
			}
		}
	}
	return nil
}

// strange is CheckEntries' error for the entry p of the index in dir.
func strange(dir, p string, m fs.FileMode) error {
	what := confine.Kind(m)
	if m&fs.ModeSymlink != 0 {
		what = "a symbolic link"
	}
	return &indexdir.CorruptError{Path: p, Detail: what + ", where braid keeps only files it wrote (a .braid/ that came with a cloned vault?)",
		Fix: fmt.Sprintf("delete %s and run braid --index %s index PATH for each source", dir, dir)}
}
