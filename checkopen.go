package braid

import (
	"fmt"
	"path/filepath"

	"github.com/braidsearch/braid/doctor"
)

// CheckFiles is the package's CheckFiles for the index this engine holds
// open, as braid serve does when it runs doctor for another process: the
// store and the lexical index are read through the engine's own handles,
// since opening their files a second time would wait on the locks this
// engine holds. It takes no lock, so it suits an engine that other
// goroutines keep using; a damaged file is a failed check, not an error.
func (e *Engine) CheckFiles() (checks []Check, err error) {
	if err := e.embeddedOnly("check"); err != nil {
		return nil, err
	}
	if e.closed.Load() {
		return nil, fmt.Errorf("braid: engine is closed")
	}
	return doctor.Files(e.dir, e.st.Verify, e.checkOpenLexical), nil
}

// checkOpenLexical checks the engine's open lexical index as CheckFiles
// checks lexical.bleve.
func (e *Engine) checkOpenLexical() error {
	lp := filepath.Join(e.dir, lexicalDir)
	lex, err := e.lexical()
	if err != nil {
		return doctor.LexicalDamaged(lp, err)
	}
	return doctor.Lexical(lp, lex, e.st)
}
