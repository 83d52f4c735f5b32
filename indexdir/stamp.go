package indexdir

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/braidsearch/braid/internal/atomicfile"
	"github.com/braidsearch/braid/internal/confine"
	"github.com/braidsearch/braid/internal/userkey"
	"golang.org/x/sys/unix"
)

// stampVersion opens each line of a stamp file. Stamps of another
// format (meta.db's "braid-store-v1", which stat'ed the file by path and
// left out its change time) match no file: that file is checked in full
// once and stamped again.
const stampVersion = "braid-file-v1"

// Stamps are files of an index whose checksums or records this user's
// braid read and found whole, kept in a stamp file (NAME.verified,
// StampSuffix) one line per file: its name, size, modification and change
// times, device and inode, as the descriptor it was read through
// described it, sealed with this user's key. A file that still matches
// its line needs no second check; one copied, replaced or written since
// (which moves its change time, whatever its modification time says), or
// stamped elsewhere, is checked again in full. braid never writes a
// lexical segment or a graph file again once it is complete; meta.db,
// which every commit writes, is stamped again after the last commit of a
// run that began with a check passing.
type Stamps struct {
	key   userkey.Key
	path  string
	known map[string]string // file name → its sealed line
	now   []string          // the lines of the files seen since the read
	dirty bool              // now differs from what the file holds
}

// ReadStamps reads the stamp file at path under key; nil (check every
// file) when there is no key. A stamp file that is a link, a FIFO or
// oversized holds no stamps, and neither does a line of another format
// or under another key.
func ReadStamps(path string, key userkey.Key) *Stamps {
	if len(key) == 0 {
		return nil
	}
	fs := &Stamps{key: key, path: path, known: map[string]string{}}
	b, err := confine.ReadConfig(path, 1<<20)
	if err != nil {
		return fs
	}
	for line := range strings.Lines(string(b)) {
		f := strings.Fields(line)
		if len(f) != 8 || f[0] != stampVersion || !fs.key.Verify(f[7], f[:7]...) {
			continue
		}
		fs.known[f[1]] = strings.Join(f, " ")
	}
	return fs
}

// Fstat describes the open file f for Checked and Add; false when it is
// not a regular file.
func Fstat(f *os.File) (*unix.Stat_t, bool) {
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil, false
	}
	return &st, true
}

// line is the sealed stamp of the file name as st describes it.
func (fs *Stamps) line(name string, st *unix.Stat_t) string {
	f := []string{stampVersion, name, fmt.Sprint(st.Size), fmt.Sprint(st.Mtim.Nano()),
		fmt.Sprint(st.Ctim.Nano()), fmt.Sprint(st.Dev), fmt.Sprint(st.Ino)}
	return strings.Join(append(f, fs.key.Seal(f...)), " ")
}

// Checked says whether the file at path, as st (Fstat of the descriptor
// it is read through) describes it now, is as it was when stamped, and
// keeps its stamp for Save. A nil Stamps has checked nothing.
func (fs *Stamps) Checked(path string, st *unix.Stat_t) bool {
	if fs == nil {
		return false
	}
	name := filepath.Base(path)
	line, ok := fs.known[name]
	if !ok || line != fs.line(name, st) {
		return false
	}
	fs.now = append(fs.now, line)
	return true
}

// Add records that the file at path, as st describes it, was read whole
// and found sound.
func (fs *Stamps) Add(path string, st *unix.Stat_t) {
	if fs != nil {
		fs.now = append(fs.now, fs.line(filepath.Base(path), st))
		fs.dirty = true
	}
}

// Save writes the stamps of the files Checked or Added since the stamp
// file was read, when they differ from it (a file read afresh, or one
// stamped before not seen again). It is best effort: a stamp it cannot
// write costs the next open a full check.
func (fs *Stamps) Save() {
	if fs == nil || !fs.dirty && len(fs.now) == len(fs.known) {
		return
	}
	var b strings.Builder
	for _, line := range fs.now {
		b.WriteString(line)
		b.WriteByte('\n')
	}
	if err := atomicfile.WriteFile(fs.path, []byte(b.String()), 0o600); err != nil {
		os.Remove(fs.path)
	}
}
