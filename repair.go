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
	sp := filepath.Join(dir, storeFile)
	return checkFiles(dir, func() error { return index.CheckStore(sp) }, func() error { return checkLexical(filepath.Join(dir, lexicalDir), storeAt(sp)) }), nil
}

// checkFiles is the checks of CheckFiles, with the store and the lexical
// index checked by the functions given (through an open engine's handles
// or by opening the files).
func checkFiles(dir string, checkStore, checkLex func() error) []Check {
	var checks []Check
	add := func(ok bool, format string, args ...any) {
		checks = append(checks, Check{Name: "files", OK: ok, Detail: fmt.Sprintf(format, args...)})
	}
	vp := filepath.Join(dir, versionFile)
	if b, err := os.ReadFile(vp); err != nil || !versionLine.Match(b) {
		add(false, "%s is missing or garbled (%q); braid doctor --repair rewrites it when meta.db is sound", vp, b)
	}
	if err := checkStore(); err != nil {
		add(false, "%v", withStoreFix(filepath.Join(dir, storeFile), err))
	}
	if err := checkLex(); err != nil {
		add(false, "%v", err)
	}
	vecs := vectorFiles(dir)
	for _, p := range vecs {
		if err := checkVectors(p); err != nil {
			add(false, "%s is damaged (%v); braid --index %s doctor --repair removes it, and the next braid index saves a sound one built from the stored embeddings", p, err, dir)
		}
	}
	if len(checks) == 0 {
		add(true, "VERSION, meta.db, lexical.bleve and %d vector files are readable", len(vecs))
	}
	return checks
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
	if err := storeMissing(dir); err != nil {
		return nil, err
	}
	if _, err := os.Stat(sp); err != nil {
		return nil, fmt.Errorf("%w (looked in %s)", ErrNoIndex, dir)
	}
	lock, err := index.AcquireLock(filepath.Join(dir, lockFile), true, "braid doctor --repair")
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	if err := index.CheckStore(sp); err != nil {
		return nil, withStoreFix(sp, err)
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
	if checkLexical(lp, storeAt(sp)) != nil {
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

// withStoreFix is err, a failed check of the store at path, with the fix
// appended unless it already names one (a damaged file's error does).
func withStoreFix(path string, err error) error {
	if errors.Is(err, index.ErrCorrupt) {
		return err
	}
	return fmt.Errorf("%w; %s", err, index.StoreFix(path))
}

// checkVectors loads a graph file and says what is wrong with it.
func checkVectors(path string) error {
	_, err := vector.Load(path, nil)
	if fe := (*vector.FormatError)(nil); errors.As(err, &fe) {
		return fe.Reason
	}
	return err
}

// storeAt is the commit the store at path is at and whether a commit is
// unfinished; ok is false when the store cannot say.
func storeAt(path string) (at storeCommit) {
	st, err := index.OpenStore(path, true)
	if err != nil {
		return at
	}
	defer st.Close()
	return commitOf(st)
}

// storeCommit is where a store stands, which the lexical index must match.
type storeCommit struct {
	gen     uint64
	pending bool
	ok      bool
}

func commitOf(st *index.Store) storeCommit {
	gen, err := st.Gen()
	if err != nil {
		return storeCommit{}
	}
	p, err := st.PendingWork()
	return storeCommit{gen: gen, pending: p != nil, ok: err == nil}
}

// checkLexical opens the lexical index read-only (which checks every
// segment's checksum), reads its counts and checks that it is at the
// store's commit.
func checkLexical(path string, at storeCommit) error {
	if _, err := os.Stat(path); err != nil {
		return lexicalMissing(path)
	}
	lex, err := index.OpenLexical(path, true)
	if err != nil {
		return lexicalDamaged(path, err)
	}
	defer lex.Close()
	return lexicalCounts(path, lex, at)
}

// lexicalCounts reads the counts of an open lexical index and checks its
// commit against the store's.
func lexicalCounts(path string, lex *index.Lexical, at storeCommit) error {
	_, err := lex.DocCount()
	var gen uint64
	if err == nil {
		gen, err = lex.Gen()
	}
	if err == nil && at.ok && !at.pending && gen != at.gen {
		err = lexicalBehind(path, gen, at.gen)
	}
	return lexicalDamaged(path, err)
}

// lexicalMissing is a lexical index that is gone while meta.db remains.
func lexicalMissing(path string) error {
	return &index.CorruptError{Path: path, Detail: "missing", Fix: index.LexicalFix(path)}
}

// lexicalBehind is a lexical index at another commit than the store.
func lexicalBehind(path string, lex, store uint64) error {
	return &index.CorruptError{Path: path, Detail: fmt.Sprintf("at commit %d, meta.db at commit %d", lex, store), Fix: index.LexicalFix(path)}
}

// lexicalDamaged is err as an error naming the lexical index and its fix.
func lexicalDamaged(path string, err error) error {
	if err == nil || errors.Is(err, index.ErrCorrupt) {
		return err
	}
	return &index.CorruptError{Path: path, Detail: err.Error(), Fix: index.LexicalFix(path)}
}
