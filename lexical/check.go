package lexical

import (
	"errors"
	"fmt"
	"os"

	"github.com/braidsearch/braid/indexdir"
)

// Commit is where the store a lexical index serves stands, which the
// index must match: its commit number and whether a commit is unfinished
// (its lexical work may or may not be in). OK is false when the store
// cannot say.
type Commit struct {
	Gen     uint64
	Pending bool
	OK      bool
}

// Verify opens the lexical index at path read-only (which checks every
// segment's checksum), reads its counts and checks that it is at the
// store's commit at.
func Verify(path string, at Commit) error {
	if _, err := os.Stat(path); err != nil {
		return Missing(path)
	}
	lex, err := Open(path, true, nil)
	if err != nil {
		return Damaged(path, err)
	}
	defer lex.Close()
	return Check(path, lex, at)
}

// Check reads the counts of the open lexical index lex, whose files are
// at path, and checks that it is at the store's commit at (unless a
// commit is unfinished there). The error names the lexical index and its
// fix.
func Check(path string, lex *Index, at Commit) error {
	_, err := lex.DocCount()
	var gen uint64
	if err == nil {
		gen, err = lex.Gen()
	}
	if err == nil && at.OK && !at.Pending && gen != at.Gen {
		err = behind(path, gen, at.Gen)
	}
	return Damaged(path, err)
}

// Missing is a lexical index at path that is gone while meta.db
// remains.
func Missing(path string) error {
	return &indexdir.CorruptError{Path: path, Detail: "missing", Fix: LexicalFix(path)}
}

// behind is a lexical index at another commit than the store.
func behind(path string, lex, store uint64) error {
	return &indexdir.CorruptError{Path: path, Detail: fmt.Sprintf("at commit %d, meta.db at commit %d", lex, store), Fix: LexicalFix(path)}
}

// Damaged is err, from the lexical index at path, as an error naming the
// index and its fix; nil when err is nil, and err itself when it already
// names them.
func Damaged(path string, err error) error {
	if err == nil || errors.Is(err, indexdir.ErrCorrupt) {
		return err
	}
	return &indexdir.CorruptError{Path: path, Detail: err.Error(), Fix: LexicalFix(path)}
}
