package braid

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"

	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/vector"
)

// versionLine is what a VERSION file of any format holds; anything else is
// garbled rather than another format.
var versionLine = regexp.MustCompile(`^braid index format [0-9]+\n$`)

// CheckFiles looks at the files of the index in dir without opening it as
// an Engine: VERSION is readable, meta.db is a sound bbolt file, the lexical
// index opens, and every vectors-*.hnsw file decodes with a good checksum.
// Each failed check names the file and the fix. A directory without
// meta.db gives no checks (there is no index to check).
func CheckFiles(dir string) ([]Check, error) {
	if _, err := os.Stat(filepath.Join(dir, storeFile)); errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	lock, err := index.AcquireLock(filepath.Join(dir, lockFile), false, "braid doctor")
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	var checks []Check
	add := func(name string, ok bool, format string, args ...any) {
		checks = append(checks, Check{Name: name, OK: ok, Detail: fmt.Sprintf(format, args...)})
	}
	vp := filepath.Join(dir, versionFile)
	if b, err := os.ReadFile(vp); err != nil || !versionLine.Match(b) {
		add("files", false, "%s is missing or garbled (%q); braid doctor --repair rewrites it when meta.db is sound", vp, b)
	}
	sp := filepath.Join(dir, storeFile)
	storeErr := index.CheckStore(sp)
	if storeErr != nil {
		add("files", false, "%v; meta.db cannot be rebuilt from the index: delete %s and run braid --index %s index PATH for each source", storeErr, dir, dir)
	}
	lp := filepath.Join(dir, lexicalDir)
	if err := checkLexical(lp); err != nil {
		add("files", false, "%v; braid doctor --repair rebuilds it from the chunks in meta.db", err)
	}
	for _, p := range vectorFiles(dir) {
		if err := checkVectors(p); err != nil {
			add("files", false, "%s is corrupt (%v); braid doctor --repair removes it and the next braid index or search with the model rebuilds it from the stored embeddings", p, err)
		}
	}
	if len(checks) == 0 {
		add("files", true, "VERSION, meta.db, lexical.bleve and %d vector files are readable", len(vectorFiles(dir)))
	}
	return checks, nil
}

// Repair fixes what CheckFiles finds and can be fixed from the index
// itself: a garbled VERSION is rewritten (when meta.db holds the current
// schema), a corrupt vectors-*.hnsw file is removed (it is rebuilt from the
// stored embeddings when a model next opens the index), and a missing or
// damaged lexical.bleve is rebuilt from the chunks in meta.db. A corrupt
// meta.db cannot be repaired: the error says to re-index. Blobs of the
// document store that nothing refers to are removed. Repair returns
// what it did, one line per action.
func Repair(dir string) ([]string, error) {
	sp := filepath.Join(dir, storeFile)
	if _, err := os.Stat(sp); err != nil {
		return nil, fmt.Errorf("%w (looked in %s)", ErrNoIndex, dir)
	}
	lock, err := index.AcquireLock(filepath.Join(dir, lockFile), true, "braid doctor --repair")
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	if err := index.CheckStore(sp); err != nil {
		return nil, fmt.Errorf("%w; meta.db cannot be repaired: delete %s and run braid --index %s index PATH for each source", err, dir, dir)
	}
	var did []string
	vp := filepath.Join(dir, versionFile)
	if b, err := os.ReadFile(vp); err != nil || !versionLine.Match(b) {
		st, err := index.OpenStore(sp, true)
		if err != nil {
			return did, fmt.Errorf("cannot rewrite %s: %w", vp, err)
		}
		st.Close()
		if err := writeFileAtomic(vp, []byte(versionText(index.SchemaVersion))); err != nil {
			return did, err
		}
		did = append(did, "rewrote "+vp)
	}
	for _, p := range vectorFiles(dir) {
		if checkVectors(p) != nil {
			if err := os.Remove(p); err != nil {
				return did, err
			}
			did = append(did, "removed "+p+" (rebuilt from the stored embeddings, without model calls, whenever the model opens the index; the next braid index saves it again)")
		}
	}
	lp := filepath.Join(dir, lexicalDir)
	if checkLexical(lp) != nil {
		if err := os.RemoveAll(lp); err != nil {
			return did, err
		}
		st, err := index.OpenStore(sp, true)
		if err != nil {
			return did, err
		}
		defer st.Close()
		lex, err := index.OpenLexical(lp, false)
		if err != nil {
			return did, err
		}
		err = index.RebuildLexical(st, lex)
		if cerr := lex.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return did, fmt.Errorf("rebuild %s: %w", lp, err)
		}
		did = append(did, "rebuilt "+lp+" from the chunks in meta.db")
	}
	bs := blobsIn(dir)
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

func vectorFiles(dir string) []string {
	ps, _ := filepath.Glob(filepath.Join(dir, "vectors-*.hnsw"))
	sort.Strings(ps)
	return ps
}

func checkVectors(path string) error {
	_, err := vector.Load(path, nil)
	return err
}

// checkLexical opens the lexical index read-only and counts its documents.
func checkLexical(path string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("lexical index %s is damaged: %v", path, r)
		}
	}()
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("lexical index %s is missing", path)
	}
	lex, err := index.OpenLexical(path, true)
	if err != nil {
		return fmt.Errorf("lexical index %s is damaged: %w", path, err)
	}
	defer lex.Close()
	if _, err := lex.DocCount(); err != nil {
		return fmt.Errorf("lexical index %s is damaged: %w", path, err)
	}
	if _, err := lex.Gen(); err != nil {
		return fmt.Errorf("lexical index %s is damaged: %w", path, err)
	}
	return nil
}
