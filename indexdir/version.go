package indexdir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"github.com/braidsearch/braid/internal/atomicfile"
	"github.com/braidsearch/braid/internal/confine"
)

// SchemaVersion is the on-disk format of the metadata store and the lexical
// index together. Bump it whenever either changes incompatibly.
//
// 2: the link graph's buckets (graph.nodes, graph.names, graph.in), kept in
// the document commit. A writer upgrades a version 1 store in place
// (index.Upgradable); a reader asks for that.
const SchemaVersion = 2

// ErrSchemaVersion means the index directory was written by a braid with a
// different on-disk format: it must be rebuilt.
var ErrSchemaVersion = errors.New("index: on-disk format differs from this braid's; re-index needed (delete the index directory and run braid index again)")

// Version checks the VERSION file that guards the index in dir, as an
// engine opening it does; a writer (readOnly false) of a new index writes
// it. A missing or garbled file is a CorruptError naming doctor
// --repair, and so is a link, a FIFO, a device or an oversized file, which
// is not read (see ReadVersion); another format wraps ErrSchemaVersion.
// upgradable says which older formats a writer upgrades in place when it
// opens the store (index.Upgradable); upgrade says the file names one of
// them, and Upgraded records that the writer did.
func Version(dir string, readOnly bool, upgradable func(format int) bool) (upgrade bool, err error) {
	p := filepath.Join(dir, VersionFile)
	want := VersionText(SchemaVersion)
	got, refused, err := ReadVersion(p)
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
		return false, &CorruptError{Path: p, Detail: detail, Fix: fmt.Sprintf("braid --index %s doctor --repair rewrites it when meta.db is sound", dir)}
	}
	if err != nil {
		return false, fmt.Errorf("read index version: %w", err)
	}
	var v int
	if _, err := fmt.Sscanf(string(got), "braid index format %d\n", &v); err == nil && string(got) == VersionText(v) && upgradable(v) {
		// An older format a writer upgrades when it opens the store (format
		// 1 lacks the link graph, built from the stored documents).
		if readOnly {
			return false, fmt.Errorf("%w: %s is format %d, older than this braid's %d; run braid index once to upgrade it in place (embeddings are kept)", ErrSchemaVersion, p, v, SchemaVersion)
		}
		return true, nil
	}
	if string(got) != want {
		return false, fmt.Errorf("%w: %s says %q, this braid writes %q", ErrSchemaVersion, p, string(got), want)
	}
	return false, nil
}

// Upgraded writes this braid's format into the VERSION file of the index
// in dir, once its store has upgraded itself (see Version).
func Upgraded(dir string) error {
	return atomicfile.WriteFile(filepath.Join(dir, VersionFile), []byte(VersionText(SchemaVersion)), 0)
}

// versionLine is what a VERSION file of any format holds; anything else is
// garbled rather than another format.
var versionLine = regexp.MustCompile(`^braid index format [0-9]+\n$`)

// maxVersionFile is the largest VERSION file read: its one line is some
// 25 bytes.
const maxVersionFile = 4 << 10

// ReadVersion reads the VERSION file at p through confine.ReadConfig: a
// link, a FIFO, a device or a file over maxVersionFile is refused, never
// followed, waited on or read whole. refused says that was why err is set.
func ReadVersion(p string) (b []byte, refused bool, err error) {
	b, err = confine.ReadConfig(p, maxVersionFile)
	return b, errors.Is(err, confine.ErrNotRegular) || errors.Is(err, confine.ErrTooLarge), err
}

// VersionText is the content of the VERSION file of format v.
func VersionText(v int) string { return fmt.Sprintf("braid index format %d\n", v) }

// WellFormedVersion says whether b is the content of a VERSION file of
// some format, rather than garbled.
func WellFormedVersion(b []byte) bool { return versionLine.Match(b) }
