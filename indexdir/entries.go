package indexdir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

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
	for _, d := range []string{dir, filepath.Join(dir, LexicalDir), filepath.Join(dir, LexicalDir, "store")} {
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
			case d == dir && e.Name() == VersionFile:
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
	return &CorruptError{Path: p, Detail: what + ", where braid keeps only files it wrote (a .braid/ that came with a cloned vault?)",
		Fix: fmt.Sprintf("delete %s and run braid --index %s index PATH for each source", dir, dir)}
}

// VectorFiles is the vectors-*.hnsw files of the index in dir, sorted;
// each may have a change log beside it (vector.LogPath), which
// CheckEntries covers with the rest of the directory.
func VectorFiles(dir string) []string {
	ps, _ := filepath.Glob(filepath.Join(dir, "vectors-*.hnsw"))
	sort.Strings(ps)
	return ps
}

// StoreMissing refuses an index directory whose meta.db is gone while
// what was built from it remains: nothing else says what the lexical index
// and the vectors hold, and a new meta.db would not match them.
func StoreMissing(dir string) error {
	sp := filepath.Join(dir, StoreFile)
	if _, err := os.Stat(sp); !errors.Is(err, os.ErrNotExist) {
		return nil
	}
	for _, p := range append([]string{filepath.Join(dir, LexicalDir), filepath.Join(dir, VersionFile)}, VectorFiles(dir)...) {
		if _, err := os.Stat(p); err == nil {
			return &CorruptError{Path: sp, Detail: "missing", Fix: StoreFix(sp)}
		}
	}
	return nil
}

// StoreFix is the advice for a meta.db that cannot be repaired.
func StoreFix(path string) string {
	dir := filepath.Dir(path)
	return fmt.Sprintf("meta.db cannot be repaired: delete %s and run braid --index %s index PATH for each source", dir, dir)
}

// ErrNoIndex means the index directory holds no index yet.
var ErrNoIndex = errors.New("no index here yet; run braid index PATH first")

// Prepare checks the index directory dir before anything in it is
// opened, as every open of an index does: dir is a directory or can be
// one (CheckDir), holds nothing braid never writes there (CheckEntries),
// and has its meta.db where what was built from it remains
// (StoreMissing). A reader's dir must hold an index (else ErrNoIndex); a
// writer's is made when missing, and created names the folder made
// (RemoveCreated removes it), "" for none.
func Prepare(dir string, readOnly bool) (created string, err error) {
	if err := CheckDir(dir); err != nil {
		return "", err
	}
	if err := CheckEntries(dir); err != nil {
		return "", err
	}
	if err := StoreMissing(dir); err != nil {
		return "", err
	}
	if readOnly {
		if _, err := os.Stat(filepath.Join(dir, StoreFile)); errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("%w (looked in %s)", ErrNoIndex, dir)
		}
		return "", nil
	}
	if created, err = MakeDir(dir); err != nil {
		return "", fmt.Errorf("create index directory: %w", err)
	}
	return created, nil
}
