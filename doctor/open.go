package doctor

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/internal/atomicfile"
)

// Version checks the VERSION file that guards the index in dir, as an
// engine opening it does; a writer (readOnly false) of a new index writes
// it. A missing or garbled file is an index.CorruptError naming doctor
// --repair, and so is a link, a FIFO, a device or an oversized file, which
// is not read (see readVersion); another format wraps
// index.ErrSchemaVersion. upgrade says the file names an older format that
// a writer upgrades in place when it opens the store; Upgraded records
// that it did.
func Version(dir string, readOnly bool) (upgrade bool, err error) {
	p := filepath.Join(dir, VersionFile)
	want := VersionText(index.SchemaVersion)
	got, refused, err := readVersion(p)
	if errors.Is(err, os.ErrNotExist) && !readOnly {
		return false, atomicfile.WriteFile(p, []byte(want), 0)
	}
	if errors.Is(err, os.ErrNotExist) || refused || (err == nil && !WellFormedVersion(got)) {
		detail := "missing"
		switch {
		case refused:
			detail = err.Error()
		case err == nil:
			detail = fmt.Sprintf("garbled: %q", got)
		}
		return false, &index.CorruptError{Path: p, Detail: detail, Fix: fmt.Sprintf("braid --index %s doctor --repair rewrites it when meta.db is sound", dir)}
	}
	if err != nil {
		return false, fmt.Errorf("read index version: %w", err)
	}
	var v int
	if _, err := fmt.Sscanf(string(got), "braid index format %d\n", &v); err == nil && string(got) == VersionText(v) && index.Upgradable(v) {
		// An older format a writer upgrades when it opens the store (format
		// 1 lacks the link graph, built from the stored documents).
		if readOnly {
			return false, fmt.Errorf("%w: %s is format %d, older than this braid's %d; run braid index once to upgrade it in place (embeddings are kept)", index.ErrSchemaVersion, p, v, index.SchemaVersion)
		}
		return true, nil
	}
	if string(got) != want {
		return false, fmt.Errorf("%w: %s says %q, this braid writes %q", index.ErrSchemaVersion, p, string(got), want)
	}
	return false, nil
}

// Upgraded writes this braid's format into the VERSION file of the index
// in dir, once its store has upgraded itself (see Version).
func Upgraded(dir string) error {
	return atomicfile.WriteFile(filepath.Join(dir, VersionFile), []byte(VersionText(index.SchemaVersion)), 0)
}

// OpenLexical opens the lexical index of the index in dir, whose store is
// st. It must hold what the store says it holds: a missing one is rebuilt
// from the store by a writer and an error naming the fix for a reader, and
// one behind the store (bleve falls back to an older snapshot when the
// newest names a segment that is gone) is an error too, never a quietly
// stale search.
func OpenLexical(dir string, st *index.Store, readOnly bool) (*index.Lexical, error) {
	lp := filepath.Join(dir, LexicalDir)
	gen, err := st.Gen()
	if err != nil {
		return nil, err
	}
	_, statErr := os.Stat(lp)
	missing := errors.Is(statErr, os.ErrNotExist)
	if missing && gen > 0 && readOnly {
		return nil, LexicalMissing(lp)
	}
	lex, err := index.OpenLexicalStamped(lp, readOnly, st)
	if err != nil {
		return nil, err
	}
	lex.StatsFrom(st)
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
