package doctor

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/braidsearch/braid/indexdir"
	"github.com/braidsearch/braid/internal/relay"
	"github.com/braidsearch/braid/internal/testenv"
)

// TestCheckEntries: an index directory holding a link, a FIFO or a
// stray socket among its files or lexical.bleve's is refused, naming the
// entry and the fix, before anything opens it; regular files, folders and
// braid serve's socket pass, and so does a directory that does not exist
// yet.
func TestCheckEntries(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	build := func(t *testing.T) string {
		dir := filepath.Join(t.TempDir(), "idx")
		for _, d := range []string{"lexical.bleve/store", "store/blobs"} {
			if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
				t.Fatal(err)
			}
		}
		for _, f := range []string{"meta.db", "VERSION", "lock", "vectors-ab.hnsw", "vectors-ab.hnsw.log", "lexical.bleve/index_meta.json", "lexical.bleve/store/root.bolt", "lexical.bleve/store/000000000001.zap"} {
			if err := os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	if err := indexdir.CheckEntries(filepath.Join(t.TempDir(), "none")); err != nil {
		t.Errorf("a directory not made yet: %v", err)
	}
	dir := build(t)
	l, err := net.Listen("unix", filepath.Join(dir, relay.SocketName))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := indexdir.CheckEntries(dir); err != nil {
		t.Errorf("a sound index directory with braid serve's socket: %v", err)
	}
	for _, tc := range []struct {
		entry string
		plant func(p string) error
		what  string
	}{
		{"meta.db", func(p string) error { return os.Symlink(fifo, p) }, "a symbolic link"},
		{"lock", func(p string) error { return syscall.Mkfifo(p, 0o600) }, "FIFO"},
		{"vectors-ab.hnsw", func(p string) error { return os.Symlink("/etc/passwd", p) }, "a symbolic link"},
		{"vectors-ab.hnsw.log", func(p string) error { return os.Symlink(fifo, p) }, "a symbolic link"},
		{"vectors-ab.hnsw.log", func(p string) error { return syscall.Mkfifo(p, 0o600) }, "FIFO"},
		{"lexical.bleve/index_meta.json", func(p string) error { return os.Symlink(fifo, p) }, "a symbolic link"},
		{"lexical.bleve/store/root.bolt", func(p string) error { return syscall.Mkfifo(p, 0o600) }, "FIFO"},
		{"lexical.bleve", func(p string) error { return os.Symlink(t.TempDir(), p) }, "a symbolic link"},
		{"other.sock", func(p string) error {
			l, err := net.Listen("unix", p)
			if err == nil {
				t.Cleanup(func() { l.Close() })
			}
			return err
		}, "socket"},
	} {
		t.Run(tc.entry, func(t *testing.T) {
			dir := build(t)
			p := filepath.Join(dir, tc.entry)
			testenv.Must(t, os.RemoveAll(p))
			if err := tc.plant(p); err != nil {
				t.Fatal(err)
			}
			err := indexdir.CheckEntries(dir)
			if !errors.Is(err, indexdir.ErrCorrupt) || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), tc.what) ||
				!strings.Contains(err.Error(), "delete "+dir) {
				t.Errorf("err = %v; want ErrCorrupt naming %s as %s and the fix", err, p, tc.what)
			}
			// doctor reports it as its one finding, and --repair
			// refuses; neither opens anything (the lock file may be
			// the FIFO).
			if checks, err := CheckFiles(dir); err != nil || len(checks) != 1 || checks[0].OK || !strings.Contains(checks[0].Detail, p) {
				t.Errorf("CheckFiles = %+v, %v; want one failed check naming %s", checks, err, p)
			}
			if _, err := Repair(dir); !errors.Is(err, indexdir.ErrCorrupt) {
				t.Errorf("Repair: %v, want the same refusal", err)
			}
		})
	}
	// VERSION is Version's to refuse, and doctor --repair's to rewrite.
	dir = build(t)
	vp := filepath.Join(dir, indexdir.VersionFile)
	testenv.Must(t, os.Remove(vp))
	if err := syscall.Mkfifo(vp, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := indexdir.CheckEntries(dir); err != nil {
		t.Errorf("a FIFO for VERSION: %v, want it left to Version", err)
	}
}
