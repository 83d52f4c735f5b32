package doctor

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/braidsearch/braid/blob"
	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/indexdir"
	"github.com/braidsearch/braid/internal/atomicfile"
	"github.com/braidsearch/braid/lexical"
	"github.com/braidsearch/braid/vector"
)

// Blobs is the content-addressed store of the index in dir.
func Blobs(dir string) *blob.Store { return blob.Open(filepath.Join(dir, indexdir.StoreDir, "blobs")) }

// Size is the bytes of the files under the index directory dir (braid
// stats); what cannot be read counts nothing.
func Size(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}

// CheckFiles looks at the files of the index in dir without opening it as
// an engine: VERSION is readable, meta.db is a sound bbolt file, the lexical
// index opens, and every vectors-*.hnsw file decodes with a good checksum,
// its change log's records included (vector.Verify). Each failed check names the file and the fix. A directory without
// meta.db gives no checks (there is no index to check).
func CheckFiles(dir string) ([]Check, error) {
	if _, err := os.Stat(filepath.Join(dir, indexdir.StoreFile)); errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err := indexdir.CheckEntries(dir); err != nil {
		// Nothing else is opened: a link or FIFO can block an open.
		return []Check{{Name: "files", OK: false, Detail: err.Error()}}, nil
	}
	lock, err := indexdir.AcquireLock(filepath.Join(dir, indexdir.LockFile), false, "braid doctor")
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	sp := filepath.Join(dir, indexdir.StoreFile)
	return Files(dir, func() error { return index.CheckStore(sp) }, func() error { return lexical.Verify(filepath.Join(dir, indexdir.LexicalDir), storeAt(sp)) }), nil
}

// Files is the checks of CheckFiles, with the store and the lexical index
// checked by the functions given (through an open engine's handles or by
// opening the files). It takes no lock.
func Files(dir string, checkStore, checkLex func() error) []Check {
	var checks []Check
	add := func(ok bool, format string, args ...any) {
		checks = append(checks, Check{Name: "files", OK: ok, Detail: fmt.Sprintf(format, args...)})
	}
	vp := filepath.Join(dir, indexdir.VersionFile)
	if b, refused, err := indexdir.ReadVersion(vp); err != nil || !indexdir.WellFormedVersion(b) {
		what := fmt.Sprintf("%q", b)
		if refused {
			what = err.Error()
		}
		add(false, "%s is missing or garbled (%s); braid doctor --repair rewrites it when meta.db is sound", vp, what)
	}
	if err := checkStore(); err != nil {
		add(false, "%v", withStoreFix(filepath.Join(dir, indexdir.StoreFile), err))
	}
	if err := checkLex(); err != nil {
		add(false, "%v", err)
	}
	vecs := indexdir.VectorFiles(dir)
	for _, p := range vecs {
		if err := checkVectors(p); err != nil {
			add(false, "%s is damaged (%v); braid --index %s doctor --repair removes it, and the next braid index embeds its chunks again with the embedding model (the graph file is the one copy of their vectors; the store keeps only those added since its last save)", p, err, dir)
		}
	}
	if len(checks) == 0 {
		add(true, "VERSION, meta.db, lexical.bleve and %d vector files are readable", len(vecs))
	}
	return checks
}

// Repair fixes what CheckFiles finds and can be fixed from the index
// itself: a garbled VERSION is rewritten (when meta.db holds the current
// schema), a corrupt vectors-*.hnsw file is removed with its change log
// (vector.LogPath; the graph file is the one copy of its chunks' vectors,
// so the next braid index embeds them again with the model), and a missing or
// damaged lexical.bleve is rebuilt from the chunks in meta.db. A corrupt
// meta.db cannot be repaired: the error says to re-index. Blobs of the
// document store that nothing refers to are removed, and a folder or
// file open to other users is made owner-only (indexdir.Tighten). Repair
// returns what it did, one line per action.
//
// dir must hold a meta.db: the caller says there is no index otherwise
// (after indexdir.StoreMissing, which tells a lost meta.db from no index).
func Repair(dir string) ([]string, error) {
	sp := filepath.Join(dir, indexdir.StoreFile)
	if err := indexdir.CheckEntries(dir); err != nil {
		return nil, err
	}
	lock, err := indexdir.AcquireLock(filepath.Join(dir, indexdir.LockFile), true, "braid doctor --repair")
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	if err := index.CheckStore(sp); err != nil {
		return nil, withStoreFix(sp, err)
	}
	var did []string
	if n := indexdir.Tighten(dir); n != "" { // a writer's, as braid.Open's
		did = append(did, n)
	}
	vp := filepath.Join(dir, indexdir.VersionFile)
	if b, _, err := indexdir.ReadVersion(vp); err != nil || !indexdir.WellFormedVersion(b) {
		st, err := index.OpenStore(sp, true)
		if err != nil {
			return did, fmt.Errorf("cannot rewrite %s: %w", vp, err)
		}
		st.Close()
		if err := atomicfile.WriteFile(vp, []byte(indexdir.VersionText(indexdir.SchemaVersion)), 0); err != nil {
			return did, err
		}
		did = append(did, "rewrote "+vp)
	}
	for _, p := range indexdir.VectorFiles(dir) {
		if checkVectors(p) != nil {
			// The log first: a log left without its file is ignored, a file
			// left without its log is an earlier sound graph.
			what := p
			switch err := os.Remove(vector.LogPath(p)); {
			case err == nil:
				what = p + " and its log"
			case !errors.Is(err, fs.ErrNotExist):
				return did, err
			}
			if err := os.Remove(p); err != nil {
				return did, err
			}
			did = append(did, "removed "+what+" (the next braid index embeds its chunks again with the embedding model and saves it)")
		}
	}
	lp := filepath.Join(dir, indexdir.LexicalDir)
	if lexical.Verify(lp, storeAt(sp)) != nil {
		if err := os.RemoveAll(lp); err != nil {
			return did, err
		}
		// Written: the rebuild starts the BM25 counts kept in meta.db again.
		st, err := index.OpenStore(sp, false)
		if err != nil {
			return did, err
		}
		// Stamped as written: the next open need not read the rebuilt index.
		lex, err := lexical.Open(lp, false, st.Stamps(lp+indexdir.StampSuffix))
		if err != nil {
			st.Close()
			return did, err
		}
		err = index.RebuildLexical(st, lex)
		if cerr := lex.Close(); err == nil {
			err = cerr
		}
		if cerr := st.Close(); err == nil { // before the blob check opens it again
			err = cerr
		}
		if err != nil {
			return did, fmt.Errorf("rebuild %s: %w", lp, err)
		}
		did = append(did, "rebuilt "+lp+" from the chunks in meta.db")
	}
	bs := Blobs(dir)
	if _, err := os.Stat(bs.Dir()); err == nil {
		st, err := index.OpenStore(sp, true)
		if err != nil {
			return did, err
		}
		refs, err := st.BlobRefs()
		st.Close()
		if err != nil {
			return did, err
		}
		removed, bytes, err := bs.Sweep(func(h string) bool { return refs[h] })
		if err != nil {
			return did, err
		}
		if len(removed) > 0 {
			did = append(did, fmt.Sprintf("removed %d blobs (%s) from %s that nothing referred to", len(removed), index.FormatBytes(bytes), bs.Dir()))
		}
	}
	return did, nil
}

// withStoreFix is err, a failed check of the store at path, with the fix
// appended unless it already names one (a damaged file's error does).
func withStoreFix(path string, err error) error {
	if errors.Is(err, indexdir.ErrCorrupt) {
		return err
	}
	return fmt.Errorf("%w; %s", err, indexdir.StoreFix(path))
}

// checkVectors reads a graph file whole (vector.Verify) and says what is
// wrong with it.
func checkVectors(path string) error {
	err := vector.Verify(path)
	if fe := (*vector.FormatError)(nil); errors.As(err, &fe) {
		return fe.Reason
	}
	return err
}
