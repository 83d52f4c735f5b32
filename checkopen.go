package braid

import (
	"fmt"
	"os"
	"path/filepath"
)

// CheckFiles is the package's CheckFiles for the index this engine holds
// open, as braid serve does when it runs doctor for another process: the
// store and the lexical index are read through the engine's own handles,
// since opening their files a second time would wait on the locks this
// engine holds. It takes no lock, so it suits an engine that other
// goroutines keep using; a damaged file is a failed check, not an error.
func (e *Engine) CheckFiles() (checks []Check, err error) {
	if e.closed.Load() {
		return nil, fmt.Errorf("braid: engine is closed")
	}
	add := func(ok bool, format string, args ...any) {
		checks = append(checks, Check{Name: "files", OK: ok, Detail: fmt.Sprintf(format, args...)})
	}
	vp := filepath.Join(e.dir, versionFile)
	if b, err := os.ReadFile(vp); err != nil || !versionLine.Match(b) {
		add(false, "%s is missing or garbled (%q); braid doctor --repair rewrites it when meta.db is sound", vp, b)
	}
	if err := e.st.Check(); err != nil {
		add(false, "%v; meta.db cannot be rebuilt from the index: delete %s and run braid --index %s index PATH for each source", err, e.dir, e.dir)
	}
	if err := e.checkOpenLexical(); err != nil {
		add(false, "%v; braid doctor --repair rebuilds it from the chunks in meta.db", err)
	}
	vecs := vectorFiles(e.dir)
	for _, p := range vecs {
		if err := checkVectors(p); err != nil {
			add(false, "%s is corrupt (%v); braid doctor --repair removes it and the next braid index or search with the model rebuilds it from the stored embeddings", p, err)
		}
	}
	if len(checks) == 0 {
		add(true, "VERSION, meta.db, lexical.bleve and %d vector files are readable", len(vecs))
	}
	return checks, nil
}

// checkOpenLexical is checkLexical on the engine's open lexical index.
func (e *Engine) checkOpenLexical() (err error) {
	lp := filepath.Join(e.dir, lexicalDir)
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("lexical index %s is damaged: %v", lp, r)
		}
	}()
	lex, err := e.lexical()
	if err == nil {
		_, err = lex.DocCount()
	}
	if err == nil {
		_, err = lex.Gen()
	}
	if err != nil {
		return fmt.Errorf("lexical index %s is damaged: %w", lp, err)
	}
	return nil
}
