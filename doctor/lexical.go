package doctor

import (
	"errors"
	"fmt"
	"os"

	"github.com/braidsearch/braid/index"
)

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

// checkLexicalDir opens the lexical index read-only (which checks every
// segment's checksum), reads its counts and checks that it is at the
// store's commit.
func checkLexicalDir(path string, at storeCommit) error {
	if _, err := os.Stat(path); err != nil {
		return LexicalMissing(path)
	}
	lex, err := index.OpenLexical(path, true)
	if err != nil {
		return LexicalDamaged(path, err)
	}
	defer lex.Close()
	return lexicalCounts(path, lex, at)
}

// Lexical reads the counts of the open lexical index lex, whose files are
// at path, and checks that it is at the commit of st (unless a commit of
// st is unfinished). The error names the lexical index and its fix.
func Lexical(path string, lex *index.Lexical, st *index.Store) error {
	return lexicalCounts(path, lex, commitOf(st))
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
	return LexicalDamaged(path, err)
}

// LexicalMissing is a lexical index at path that is gone while meta.db
// remains.
func LexicalMissing(path string) error {
	return &indexdir.CorruptError{Path: path, Detail: "missing", Fix: index.LexicalFix(path)}
}

// lexicalBehind is a lexical index at another commit than the store.
func lexicalBehind(path string, lex, store uint64) error {
	return &indexdir.CorruptError{Path: path, Detail: fmt.Sprintf("at commit %d, meta.db at commit %d", lex, store), Fix: index.LexicalFix(path)}
}

// LexicalDamaged is err, from the lexical index at path, as an error
// naming the index and its fix; nil when err is nil, and err itself when
// it already names them.
func LexicalDamaged(path string, err error) error {
	if err == nil || errors.Is(err, indexdir.ErrCorrupt) {
		return err
	}
	return &indexdir.CorruptError{Path: path, Detail: err.Error(), Fix: index.LexicalFix(path)}
}
