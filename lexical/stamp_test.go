package lexical

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/braidsearch/braid/indexdir"
	"github.com/braidsearch/braid/internal/userkey"
	"golang.org/x/sys/unix"
)

// TestSegmentStamps checks that a lexical index's open reads each
// segment's checksum once per user: a second open under the same key
// reads none, another user's key (or none) reads them all, a segment
// written after its stamp is read again and found damaged however its
// modification time was put back, and a link in the stamp's place is no
// stamp.
func TestSegmentStamps(t *testing.T) {
	dir := t.TempDir()
	lexPath := filepath.Join(dir, "lexical.bleve")
	key := func(name string) userkey.Key {
		k, err := userkey.Load(filepath.Join(t.TempDir(), name))
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	// stamps is the stamp file beside the index under key k; nil without
	// a key, as index.Store.Stamps gives it.
	stamps := func(k userkey.Key) *indexdir.Stamps {
		return indexdir.ReadStamps(lexPath+indexdir.StampSuffix, k)
	}
	mine, theirs := key("mine"), key("theirs")

	lexicalWithSegments(t, dir) // at lexPath

	open := func(k userkey.Key, readOnly bool) (int, error) {
		t.Helper()
		l, err := Open(lexPath, readOnly, stamps(k))
		if err != nil {
			return 0, err
		}
		defer l.Close()
		if n, err := l.DocCount(); err != nil || n != 60 {
			t.Fatalf("DocCount %d, %v; want 60", n, err)
		}
		return l.segmentsRead, nil
	}
	reads := func(k userkey.Key, readOnly bool) int {
		t.Helper()
		n, err := open(k, readOnly)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	// all is how many segment files the snapshots name now: a writer's
	// open lets bleve merge and remove some.
	all := func() int {
		names, err := segmentNames(filepath.Join(lexPath, "store", "root.bolt"))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, name := range names {
			if _, ok := lstat(filepath.Join(lexPath, "store", name)); ok {
				n++
			}
		}
		return n
	}
	if first, want := reads(mine, true), all(); first != want || first == 0 {
		t.Fatalf("the first open read %d segments, want all %d", first, want)
	}
	if n := reads(mine, true); n != 0 {
		t.Errorf("a second open read %d segments, want 0", n)
	}
	if n := reads(mine, false); n != 0 {
		t.Errorf("a writer's open read %d segments, want 0", n)
	}
	if n, want := reads(theirs, true), all(); n != want {
		t.Errorf("another user's open read %d segments, want all %d", n, want)
	}
	if n, want := reads(nil, true), all(); n != want {
		t.Errorf("an open without a key read %d segments, want all %d", n, want)
	}
	// Another user's open stamped them under its key: this user's reads
	// them again, once.
	if n, want := reads(mine, true), all(); n != want {
		t.Errorf("after another user's stamp this user's open read %d, want %d", n, want)
	}
	if n := reads(mine, true); n != 0 {
		t.Errorf("read %d segments after restamping, want 0", n)
	}

	// A byte flipped in a stamped segment in place, its modification time
	// put back: its change time moves (written again until the clock,
	// which may tick coarsely, has moved past the stamp's).
	line, err := os.ReadFile(lexPath + indexdir.StampSuffix)
	if err != nil {
		t.Fatal(err)
	}
	stamped := strings.Fields(string(line))
	seg := filepath.Join(lexPath, "store", strings.TrimSuffix(stamped[1], segmentChecks))
	fi, err := os.Stat(seg)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(seg)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0xff
	for {
		if err := os.WriteFile(seg, b, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(seg, time.Time{}, fi.ModTime()); err != nil {
			t.Fatal(err)
		}
		if st, ok := lstat(seg); !ok || fmt.Sprint(st.Mtim.Nano()) != stamped[3] {
			t.Fatalf("segment %v after Chtimes, want the stamped modification time %s", st, stamped[3])
		} else if fmt.Sprint(st.Ctim.Nano()) != stamped[4] {
			break
		}
	}
	var corrupt *indexdir.CorruptError
	if _, err := open(mine, true); !errors.As(err, &corrupt) || !strings.Contains(err.Error(), "checksum") {
		t.Errorf("open after a stamped segment was altered: %v, want its checksum error", err)
	}
	b[len(b)/2] ^= 0xff
	if err := os.WriteFile(seg, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if n := reads(mine, true); n != 1 {
		t.Errorf("open after the segment was mended read %d segments, want that one", n)
	}

	// A stamp as an earlier braid made it, after reading the CRC only:
	// every segment is read again, its structure checked.
	oldPath := filepath.Join(t.TempDir(), "old.verified")
	old := indexdir.ReadStamps(oldPath, mine)
	names, err := segmentNames(filepath.Join(lexPath, "store", "root.bolt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		if st, ok := lstat(filepath.Join(lexPath, "store", name)); ok {
			old.Add(filepath.Join(lexPath, "store", name), st)
		}
	}
	old.Save()
	if b, err := os.ReadFile(oldPath); err != nil {
		t.Fatal(err)
	} else if err := os.WriteFile(lexPath+indexdir.StampSuffix, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if n, want := reads(mine, true), all(); n != want {
		t.Errorf("with an earlier braid's stamps the open read %d segments, want all %d", n, want)
	}

	// A link in the stamp's place: no stamp, every segment read, nothing
	// written through it.
	stamp := lexPath + indexdir.StampSuffix
	elsewhere := filepath.Join(t.TempDir(), "elsewhere")
	if err := os.Rename(stamp, elsewhere); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, stamp); err != nil {
		t.Fatal(err)
	}
	if n, want := reads(mine, true), all(); n != want {
		t.Errorf("with a link for a stamp the open read %d segments, want all %d", n, want)
	}
	if fi, err := os.Lstat(stamp); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("the stamp after the open: %v, %v; want a file braid wrote in the link's place", fi, err)
	}
	if n := reads(mine, true); n != 0 {
		t.Errorf("read %d segments after the stamp was rewritten, want 0", n)
	}
}

// lstat describes the file at path as a stamp line does; false when it is
// not a regular file.
func lstat(path string) (*unix.Stat_t, bool) {
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil, false
	}
	return &st, true
}
