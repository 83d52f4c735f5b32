package confine

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/braidsearch/braid/internal/testenv"
)

// The walk that replaces openat2 where the kernel lacks it (or refuses an
// absolute link) gives the answers openat2 gives.
func TestReadFileByWalk(t *testing.T) {
	noOpenat2.Store(true)
	defer noOpenat2.Store(false)
	TestReadFile(t)
}

// A granted folder that a link has since replaced, or whose parent a link
// has replaced, is refused: the root is opened by its real path with no
// link followed.
func TestOpenDirMoved(t *testing.T) {
	for _, walk := range []bool{false, true} {
		noOpenat2.Store(walk)
		base := testenv.Must1(filepath.EvalSymlinks(t.TempDir()))(t)
		vault := filepath.Join(base, "vault")
		sub := filepath.Join(vault, "sub")
		outside := filepath.Join(base, "outside")
		testenv.Must(t, os.MkdirAll(sub, 0o755))
		testenv.Must(t, os.MkdirAll(outside, 0o755))
		testenv.Must(t, os.WriteFile(filepath.Join(outside, "secret.md"), []byte("SECRET"), 0o600))
		d, err := OpenDir(sub)
		testenv.Must(t, err)
		d.Close()
		testenv.Must(t, os.RemoveAll(sub))
		testenv.Must(t, os.Symlink(outside, sub))
		if _, err := OpenDir(sub); !errors.Is(err, ErrMoved) {
			t.Errorf("walk %v: OpenDir of a folder swapped for a link: %v, want ErrMoved", walk, err)
		}
		if _, err := ReadFile(sub, filepath.Join(sub, "secret.md"), 0); !errors.Is(err, ErrMoved) {
			t.Errorf("walk %v: ReadFile beneath a swapped folder: %v, want ErrMoved", walk, err)
		}
		// A parent swapped for a link to a copy of itself.
		copyOf := filepath.Join(base, "copy")
		testenv.Must(t, os.Rename(vault, copyOf))
		testenv.Must(t, os.Symlink(copyOf, vault))
		if _, err := OpenDir(filepath.Join(vault, "other")); err == nil {
			t.Errorf("walk %v: OpenDir through a linked parent succeeded", walk)
		}
	}
	noOpenat2.Store(false)
}

// A link flipped in and out by another process (renameat2
// RENAME_EXCHANGE, as an attacker would) never lets a read beneath a Dir
// reach the file outside.
func TestReadRacingLinkFlip(t *testing.T) {
	for _, walk := range []bool{false, true} {
		noOpenat2.Store(walk)
		base := testenv.Must1(filepath.EvalSymlinks(t.TempDir()))(t)
		root := filepath.Join(base, "vault")
		testenv.Must(t, os.MkdirAll(filepath.Join(root, "race"), 0o755))
		testenv.Must(t, os.MkdirAll(filepath.Join(base, "out"), 0o755))
		testenv.Must(t, os.WriteFile(filepath.Join(base, "out", "race.md"), []byte("SECRET"), 0o600))
		testenv.Must(t, os.WriteFile(filepath.Join(root, "race", "race.md"), []byte("fine"), 0o644))
		testenv.Must(t, os.Symlink(filepath.Join(base, "out"), filepath.Join(root, "swap")))
		testenv.Must(t, os.Symlink(filepath.Join(base, "out", "race.md"), filepath.Join(root, "race", "swap.md")))
		var stop atomic.Bool
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				unix.Renameat2(unix.AT_FDCWD, filepath.Join(root, "race"), unix.AT_FDCWD, filepath.Join(root, "swap"), unix.RENAME_EXCHANGE)
				unix.Renameat2(unix.AT_FDCWD, filepath.Join(root, "race", "race.md"), unix.AT_FDCWD, filepath.Join(root, "race", "swap.md"), unix.RENAME_EXCHANGE)
			}
		}()
		d, err := OpenDir(root)
		testenv.Must(t, err)
		leaks, reads := 0, 0
		for i := 0; i < 4000; i++ {
			fd, err := d.OpenFd(filepath.Join(root, "race", "race.md"))
			if err != nil {
				continue
			}
			buf := make([]byte, 64)
			n, _ := unix.Read(fd, buf)
			unix.Close(fd)
			reads++
			if strings.Contains(string(buf[:n]), "SECRET") {
				leaks++
			}
		}
		stop.Store(true)
		wg.Wait()
		d.Close()
		if leaks > 0 {
			t.Errorf("walk %v: %d of %d reads reached the file outside", walk, leaks, reads)
		}
	}
	noOpenat2.Store(false)
}

// WriteFile and Mkdir create inside the folder's descriptor: never through
// a link out, never over an existing file unless asked.
func TestDirWrite(t *testing.T) {
	base := testenv.Must1(filepath.EvalSymlinks(t.TempDir()))(t)
	root := filepath.Join(base, "out")
	testenv.Must(t, os.MkdirAll(filepath.Join(base, "elsewhere"), 0o755))
	testenv.Must(t, os.MkdirAll(root, 0o755))
	testenv.Must(t, os.Symlink(filepath.Join(base, "elsewhere"), filepath.Join(root, "link")))
	testenv.Must(t, os.Symlink(filepath.Join(base, "elsewhere", "x.md"), filepath.Join(root, "x.md")))
	d, err := OpenDir(root)
	testenv.Must(t, err)
	defer d.Close()
	if _, err := d.Mkdir("link/deeper"); !errors.Is(err, ErrOutside) {
		t.Errorf("Mkdir through a link out: %v, want ErrOutside", err)
	}
	sub, err := d.Mkdir("a/b")
	testenv.Must(t, err)
	defer sub.Close()
	if sub.Path() != filepath.Join(root, "a", "b") {
		t.Errorf("Mkdir's Path = %s", sub.Path())
	}
	testenv.Must(t, sub.WriteFile("n.md", []byte("one"), 0o644, false))
	if err := sub.WriteFile("n.md", []byte("two"), 0o644, false); !errors.Is(err, fs.ErrExist) {
		t.Errorf("WriteFile over an existing file without replace: %v", err)
	}
	testenv.Must(t, sub.WriteFile("n.md", []byte("three"), 0o644, true))
	if b, _ := os.ReadFile(filepath.Join(root, "a", "b", "n.md")); string(b) != "three" {
		t.Errorf("n.md = %q", b)
	}
	// A link named like the file is replaced by the file, never written through.
	testenv.Must(t, d.WriteFile("x.md", []byte("new"), 0o644, true))
	if _, err := os.Stat(filepath.Join(base, "elsewhere", "x.md")); err == nil {
		t.Error("WriteFile wrote through a link")
	}
	if m, err := d.Stat("x.md"); err != nil || m.Type() != 0 {
		t.Errorf("x.md after WriteFile: %v, %v", m, err)
	}
	if err := d.WriteFile("../x.md", nil, 0o644, true); !errors.Is(err, ErrBadPath) {
		t.Errorf("WriteFile of a path: %v", err)
	}
	ents := testenv.Must1(os.ReadDir(filepath.Join(root, "a", "b")))(t)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".tmp-") {
			t.Errorf("left %s behind", e.Name())
		}
	}
}
