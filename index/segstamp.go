package index

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

// segStampVersion opens each line of a lexical index's stamp.
const segStampVersion = "braid-segment-v1"

// segStamps are the segments of a lexical index whose checksums this
// user's braid read and found whole, kept beside the index
// (lexical.bleve.verified), one line per segment: its name, size,
// modification and change times, device and inode, sealed with this
// user's key. A segment file bleve wrote is never written again, so one
// that still matches its line needs no second read; one copied, replaced
// or written since (which moves its change time, whatever its
// modification time says), or stamped elsewhere, is read again in full.
type segStamps struct {
	key   userkey.Key
	path  string
	known map[string]string // segment name → its sealed line
	now   []string          // the lines of the snapshot's segments, as verified
	dirty bool              // now differs from what the file holds
}

// segmentStamps reads the stamps beside the lexical index at lexPath
// under st's key; nil (check every segment) when st has no key. A stamp
// file that is a link, a FIFO or oversized is no stamps.
func (s *Store) segmentStamps(lexPath string) *segStamps {
	if s == nil || !s.sealing || s.keyErr != nil || len(s.key) == 0 {
		return nil
	}
	ss := &segStamps{key: s.key, path: lexPath + StampSuffix, known: map[string]string{}}
	b, err := confine.ReadConfig(ss.path, 1<<20)
	if err != nil {
		return ss
	}
	for line := range strings.Lines(string(b)) {
		f := strings.Fields(line)
		if len(f) != 8 || f[0] != segStampVersion || !ss.key.Verify(f[7], f[:7]...) {
			continue
		}
		ss.known[f[1]] = strings.Join(f, " ")
	}
	return ss
}

// segmentFields describe the segment file at path now.
func segmentFields(path string) ([]string, bool) {
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil, false
	}
	return []string{segStampVersion, filepath.Base(path), fmt.Sprint(st.Size), fmt.Sprint(st.Mtim.Nano()),
		fmt.Sprint(st.Ctim.Nano()), fmt.Sprint(st.Dev), fmt.Sprint(st.Ino)}, true
}

// verified says whether the segment at path is as it was when stamped,
// and keeps its line for the stamps of this snapshot.
func (ss *segStamps) verified(path string) bool {
	f, ok := segmentFields(path)
	if !ok {
		return false
	}
	line, ok := ss.known[f[1]]
	if !ok || line != strings.Join(append(f, ss.key.Seal(f...)), " ") {
		return false
	}
	ss.now = append(ss.now, line)
	return true
}

// add records that the segment at path passed its checksum.
func (ss *segStamps) add(path string) {
	if f, ok := segmentFields(path); ok {
		ss.now = append(ss.now, strings.Join(append(f, ss.key.Seal(f...)), " "))
		ss.dirty = true
	}
}

// save writes the stamps of the snapshot's segments when they changed (a
// segment verified afresh, or one stamped before now gone). It is best
// effort: a stamp it cannot write costs the next open a full check.
func (ss *segStamps) save() {
	if !ss.dirty && len(ss.now) == len(ss.known) {
		return
	}
	var b strings.Builder
	for _, line := range ss.now {
		b.WriteString(line)
		b.WriteByte('\n')
	}
	if err := atomicfile.WriteFile(ss.path, []byte(b.String()), 0o600); err != nil {
		os.Remove(ss.path)
	}
}
