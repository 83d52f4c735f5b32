package indexdir

import (
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// mode is the permission bits of the file or folder at p, not following a
// link.
func mode(t *testing.T, p string) fs.FileMode {
	t.Helper()
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

// put writes a file with the given mode (chmod'ed, whatever the umask).
func put(t *testing.T, p string, m fs.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("text"), m); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, m); err != nil {
		t.Fatal(err)
	}
}

// Tighten makes an index laid out by an older braid (folder 0755, files
// 0644) owner-only, through every folder braid keeps, in one line, and
// says nothing the second time; it never follows a link, never touches a
// socket or the user's prompt files, never loosens a mode, and leaves a
// folder that holds files braid did not write (and those files) as they
// are.
func TestTighten(t *testing.T) {
	root := t.TempDir()
	outside := filepath.Join(root, "outside.txt")
	put(t, outside, 0o644)
	dir := filepath.Join(root, "idx")
	for name, m := range map[string]fs.FileMode{
		StoreFile: 0o644, LockFile: 0o644, VersionFile: 0o644, SettingsFile: 0o666,
		StoreFile + StampSuffix:                        0o600,
		"vectors-0a1b2c3d.hnsw":                        0o644,
		"vectors-0a1b2c3d.hnsw.log":                    0o644,
		".tmp-123":                                     0o644,
		LexicalDir + "/index_meta.json":                0o644,
		LexicalDir + "/store/000000000002.zap":         0o644,
		StoreDir + "/blobs/ab/ab01":                    0o644,
		StoreDir + "/blobs/ab/read-only-for-the-owner": 0o400,
		PromptsDir + "/PROMPT-mine.md":                 0o644,
	} {
		put(t, filepath.Join(dir, name), m)
	}
	for _, d := range []string{dir, filepath.Join(dir, LexicalDir), filepath.Join(dir, StoreDir, "blobs")} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(dir, LexicalDir, "link")); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "serve.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	sockMode := mode(t, sock)

	note := Tighten(dir)
	if !strings.HasPrefix(note, "tightened the index's permissions to owner-only ("+dir+": ") || strings.Contains(note, "\n") ||
		!strings.Contains(note, "more)") || strings.Contains(note, "left as they were") {
		t.Errorf("Tighten's note %q: want one line naming the index and what changed, no failures", note)
	}
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		want := FileMode
		switch {
		case p == filepath.Join(dir, PromptsDir):
			want = 0o755
		case d.IsDir():
			want = DirMode
		case d.Type()&fs.ModeSymlink != 0:
			return nil
		case p == sock:
			want = sockMode
		case filepath.Base(p) == "read-only-for-the-owner":
			want = 0o400
		case filepath.Base(p) == "PROMPT-mine.md": // the user's, in a folder now closed to others
			want = 0o644
		}
		if got := mode(t, p); got != want {
			t.Errorf("%s: mode %o after Tighten, want %o", p, got, want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := mode(t, outside); got != 0o644 {
		t.Errorf("a link's target was changed to %o: Tighten followed a link", got)
	}
	if again := Tighten(dir); again != "" {
		t.Errorf("second Tighten said %q, want nothing", again)
	}

	// An --index folder that holds other things: braid's files are
	// tightened, the folder and the others are not.
	mixed := filepath.Join(root, "mixed")
	put(t, filepath.Join(mixed, StoreFile), 0o644)
	put(t, filepath.Join(mixed, "notes.txt"), 0o644)
	if err := os.Chmod(mixed, 0o755); err != nil {
		t.Fatal(err)
	}
	note = Tighten(mixed)
	if !strings.Contains(note, "meta.db 644 → 600") || !strings.Contains(note, "left the folder 755: it holds notes.txt, which braid did not write") {
		t.Errorf("Tighten of a folder with other files: %q", note)
	}
	for p, want := range map[string]fs.FileMode{mixed: 0o755, filepath.Join(mixed, "notes.txt"): 0o644, filepath.Join(mixed, StoreFile): 0o600} {
		if got := mode(t, p); got != want {
			t.Errorf("%s: %o, want %o", p, got, want)
		}
	}

	if note := Tighten(filepath.Join(root, "missing")); note != "" {
		t.Errorf("Tighten of a missing folder: %q", note)
	}
}

// MakeDir makes the index folder owner-only whatever the umask allows,
// and its missing parents as mkdir -p does; an existing folder is left
// for Tighten.
func TestMakeDirPrivate(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "a", "idx")
	created, err := MakeDir(dir)
	if err != nil || created != filepath.Join(root, "a") {
		t.Fatalf("MakeDir: %q, %v", created, err)
	}
	if got := mode(t, dir); got != DirMode {
		t.Errorf("new index folder: %o, want %o", got, DirMode)
	}
	if got := mode(t, filepath.Join(root, "a")); got&0o700 != 0o700 {
		t.Errorf("parent folder: %o, want one its owner can use", got)
	}
	if created, err := MakeDir(dir); err != nil || created != "" {
		t.Errorf("MakeDir of an existing folder: %q, %v", created, err)
	}
	lock, err := AcquireLock(filepath.Join(dir, LockFile), true, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	if got := mode(t, filepath.Join(dir, LockFile)); got != FileMode {
		t.Errorf("lock file: %o, want %o", got, FileMode)
	}
}
