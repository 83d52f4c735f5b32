package indexdir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/braidsearch/braid/internal/relay"
	"golang.org/x/sys/unix"
)

// An index holds every chunk's text (meta.db, the lexical index, the
// document store's blobs), so it is the user's alone: braid makes the
// index directory and every folder in it with DirMode and every file
// with FileMode, at creation. bleve's index_meta.json is the exception,
// made with the umask's mode inside a lexical.bleve bleve has just made
// 0700, and tightened at once (lexical.Open).
const (
	DirMode  fs.FileMode = 0o700
	FileMode fs.FileMode = 0o600
)

// Tighten takes the group's and others' permissions off the index in
// dir, as a writer that opens it does: an index made by an older braid
// (folder 0755, meta.db 0644) or copied in under a loose umask. It
// changes braid's own files (the names in names.go, stamps, graph files,
// their logs and temporary files) and everything in lexical.bleve and
// store, never following a link, and the folder itself unless it holds
// something braid did not write there (an --index pointed at a folder of
// other things): then it is left as it is. Nothing is ever loosened. It
// returns one line saying what it changed, "" when nothing was more open
// than owner-only; what it could not change is named in that line, never
// an error, since the index works either way.
func Tighten(dir string) string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	t := &tightening{dir: dir}
	foreign := ""
	for _, e := range ents {
		if !ownName(e.Name()) && e.Name() != PromptsDir { // the user's prompts: an index's, but left as they are
			foreign = e.Name()
			break
		}
	}
	// The folder first, which closes every file in it at once, and
	// meta.db, every chunk's text, next: the note names what it did first.
	fi, err := os.Stat(dir) // the index directory may be a link
	loose := err == nil && fi.Mode().Perm()&0o077 != 0
	if loose && foreign == "" {
		t.tighten(dir)
	}
	if i := slices.IndexFunc(ents, func(e fs.DirEntry) bool { return e.Name() == StoreFile }); i > 0 {
		store := ents[i]
		ents = append([]fs.DirEntry{store}, slices.Delete(ents, i, i+1)...)
	}
	for _, e := range ents {
		if !ownName(e.Name()) {
			continue
		}
		// One lstat a file; only one open to others is opened and changed.
		_ = filepath.WalkDir(filepath.Join(dir, e.Name()), func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.IsDir() && !d.Type().IsRegular() {
				return nil // a link; braid serve's socket, made 0600 (relay.Listen); a folder that cannot be read
			}
			if fi, err := d.Info(); err == nil && fi.Mode().Perm()&0o077 != 0 {
				t.tighten(p)
			}
			return nil
		})
	}
	folder := ""
	if loose && foreign != "" && len(t.changed)+t.failed > 0 {
		folder = fmt.Sprintf("; left the folder %o: it holds %s, which braid did not write", fi.Mode().Perm(), foreign)
	}
	return t.note(folder)
}

// ownName says whether name, an entry of an index directory, is one
// braid writes there.
func ownName(name string) bool {
	switch name {
	case LockFile, StoreFile, LexicalDir, VersionFile, SettingsFile, StoreDir, relay.SocketName:
		return true
	}
	return strings.HasSuffix(name, StampSuffix) || strings.HasPrefix(name, "vectors-") ||
		strings.HasPrefix(name, ".") && strings.Contains(name, ".tmp-") // atomicfile's and vector's temporary files
}

// tightening is what one Tighten changed and could not change.
type tightening struct {
	dir      string
	changed  []string // "meta.db 644 → 600"
	failed   int
	firstErr error
}

// tighten takes group and other permissions off the file or folder at p,
// opened without following a link or waiting on a FIFO, and changed
// through its descriptor only when it is a regular file or a folder.
func (t *tightening) tighten(p string) {
	fd, err := unix.Open(p, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if p == t.dir && errors.Is(err, unix.ELOOP) {
		fd, err = unix.Open(p, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0) // the index directory may be a link
	}
	if errors.Is(err, unix.ENOENT) {
		return // gone since it was listed
	}
	if err != nil {
		t.fail(p, err)
		return
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		t.fail(p, err)
		return
	}
	kind := st.Mode & unix.S_IFMT
	perm := st.Mode & 0o777
	if kind != unix.S_IFREG && kind != unix.S_IFDIR || perm&0o077 == 0 {
		return
	}
	if err := unix.Fchmod(fd, perm&^0o077); err != nil {
		t.fail(p, err)
		return
	}
	name := "folder"
	if p != t.dir {
		name, _ = filepath.Rel(t.dir, p)
	}
	t.changed = append(t.changed, fmt.Sprintf("%s %o → %o", name, perm, perm&^0o077))
}

func (t *tightening) fail(p string, err error) {
	if t.failed == 0 {
		t.firstErr = &fs.PathError{Op: "tighten", Path: p, Err: err}
	}
	t.failed++
}

// note is Tighten's line; "" when nothing was open to others.
func (t *tightening) note(folder string) string {
	if len(t.changed) == 0 && t.failed == 0 {
		return ""
	}
	var b strings.Builder
	shown := t.changed[:min(len(t.changed), 3)]
	if len(shown) > 0 {
		fmt.Fprintf(&b, "tightened the index's permissions to owner-only (%s: %s", t.dir, strings.Join(shown, ", "))
		if n := len(t.changed) - len(shown); n > 0 {
			fmt.Fprintf(&b, " and %d more", n)
		}
		b.WriteString(")")
	} else {
		fmt.Fprintf(&b, "could not tighten the index's permissions to owner-only (%s)", t.dir)
	}
	if t.failed > 0 {
		fmt.Fprintf(&b, "; %d left as they were: %v", t.failed, t.firstErr)
	}
	b.WriteString(folder)
	return b.String()
}
