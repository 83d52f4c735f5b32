package doctor

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/indexdir"
	"github.com/braidsearch/braid/lexical"
)

// OpenLexical opens the lexical index of the index in dir, whose store is
// st. It must hold what the store says it holds: a missing one is rebuilt
// from the store by a writer and an error naming the fix for a reader, and
// one behind the store (bleve falls back to an older snapshot when the
// newest names a segment that is gone) is an error too, never a quietly
// stale search. It reads the checksums only of the segments this user's
// braid has not read before (the stamps beside it, under st's key).
func OpenLexical(dir string, st *index.Store, readOnly bool) (*lexical.Index, error) {
	lp := filepath.Join(dir, indexdir.LexicalDir)
	gen, err := st.Gen()
	if err != nil {
		return nil, err
	}
	_, statErr := os.Stat(lp)
	missing := errors.Is(statErr, os.ErrNotExist)
	if missing && gen > 0 && readOnly {
		return nil, lexical.Missing(lp)
	}
	lex, err := lexical.Open(lp, readOnly, st.Stamps(lp+indexdir.StampSuffix))
	if err != nil {
		return nil, err
	}
	lex.StatsFrom(st.BM25Totals)
	if missing && gen > 0 {
		if err := index.RebuildLexical(st, lex); err != nil {
			lex.Close()
			return nil, fmt.Errorf("rebuild the missing %s from meta.db: %w", lp, err)
		}
	}
	if err := Lexical(lp, lex, st); err != nil {
		lex.Close()
		return nil, err
	}
	return lex, nil
}

// Lexical reads the counts of the open lexical index lex, whose files are
// at path, and checks that it is at the commit of st (unless a commit of
// st is unfinished). The error names the lexical index and its fix.
func Lexical(path string, lex *lexical.Index, st *index.Store) error {
	return lexical.Check(path, lex, commitOf(st))
}

// storeAt is the commit the store at path is at and whether a commit is
// unfinished; OK is false when the store cannot say.
func storeAt(path string) (at lexical.Commit) {
	st, err := index.OpenStore(path, true)
	if err != nil {
		return at
	}
	defer st.Close()
	return commitOf(st)
}

// commitOf is where st stands, which the lexical index must match.
func commitOf(st *index.Store) lexical.Commit {
	gen, err := st.Gen()
	if err != nil {
		return lexical.Commit{}
	}
	p, err := st.PendingWork()
	return lexical.Commit{Gen: gen, Pending: p != nil, OK: err == nil}
}
