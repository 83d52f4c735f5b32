package braid_test

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/docstore"
	"github.com/braidsearch/braid/indexdir"
	"github.com/braidsearch/braid/internal/modeltest"
)

// modes is every folder and regular file under dir (dir itself as ".")
// with its permission bits; links and sockets are left out.
func modes(t *testing.T, dir string) map[string]fs.FileMode {
	t.Helper()
	got := map[string]fs.FileMode{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && !d.Type().IsRegular() {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		got[rel] = fi.Mode().Perm()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// checkPrivate fails the test for every folder under dir that is not
// 0700 and every file that is not 0600.
func checkPrivate(t *testing.T, dir string) {
	t.Helper()
	for rel, m := range modes(t, dir) {
		fi, _ := os.Stat(filepath.Join(dir, rel))
		want := indexdir.FileMode
		if fi.IsDir() {
			want = indexdir.DirMode
		}
		if m != want {
			t.Errorf("%s: mode %o, want %o", rel, m, want)
		}
	}
}

// loosen lays the index in dir out as braid did before it was private:
// folders 0755, files 0644.
func loosen(t *testing.T, dir string) {
	t.Helper()
	for rel := range modes(t, dir) {
		p := filepath.Join(dir, rel)
		m := fs.FileMode(0o644)
		if fi, _ := os.Stat(p); fi.IsDir() {
			m = 0o755
		}
		if err := os.Chmod(p, m); err != nil {
			t.Fatal(err)
		}
	}
}

// Every folder and file braid writes in an index is the user's alone from
// the moment it is made, whatever the umask lets through (issue 47, 5):
// here the umask is 0, so a file made with the usual 0644 or 0666 would be
// open to others.
func TestIndexIsPrivate(t *testing.T) {
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	vault := writeVault(t, map[string]string{"a.md": "# A\n\nprivate words\n", "b.md": "# B\n\nmore private words\n"})
	dir := filepath.Join(t.TempDir(), "idx")
	opt := &braid.Options{KeyFile: filepath.Join(t.TempDir(), "key")}
	vectors := modeltest.RuntimePath() != ""
	if vectors {
		opt.Embedder, opt.Model = modeltest.Tiny(t), "braid/tiny-encoder"
	}
	e, err := braid.Open(dir, opt)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	if _, err := e.Index(ctx, []braid.SourceSpec{{Path: vault}}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Config().Set("limit", "3"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Store().Add(ctx, docstore.AddRequest{Name: "stored.md", Content: "# Stored\n\nkept in the index itself\n"}); err != nil {
		t.Fatal(err)
	}
	// A second run that changes one note: the graph gains a change log.
	if err := os.WriteFile(filepath.Join(vault, "a.md"), []byte("# A\n\nprivate words, changed\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Index(ctx, nil, nil); err != nil {
		t.Fatal(err)
	}
	if n := e.Capabilities().Tightened; n != "" {
		t.Errorf("a new index was tightened: %q", n)
	}
	e.Close()

	got := modes(t, dir)
	want := []string{".", "meta.db", "meta.db.verified", "lock", "VERSION", "settings.json", "lexical.bleve", "lexical.bleve/index_meta.json", "lexical.bleve/store/root.bolt", "store/blobs"}
	if vectors {
		want = append(want, "vectors-*.hnsw")
	} else {
		t.Log("no ONNX Runtime: no vector graph to check")
	}
	for _, w := range want {
		if !slicesContainsFunc(got, w) {
			t.Errorf("the index has no %s to check: %v", w, got)
		}
	}
	checkPrivate(t, dir)
}

// slicesContainsFunc says whether a key of m matches the pattern.
func slicesContainsFunc(m map[string]fs.FileMode, pattern string) bool {
	for k := range m {
		if ok, _ := filepath.Match(pattern, k); ok {
			return true
		}
	}
	return false
}

// An index made by an older braid (folder 0755, meta.db 0644) is made
// owner-only by the first writer that opens it, which says so in one line
// once; a reader changes nothing. Where the test runs as root and user
// nobody exists, nobody reads meta.db's text before and is refused after
// (issue 47, 5: "grep of .braid/meta.db → its text").
func TestWriterTightensIndex(t *testing.T) {
	const secret = "zanzibarquokka"
	root := t.TempDir()
	vault := filepath.Join(root, "vault")
	if err := os.Mkdir(vault, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(vault, "diary.md"), []byte("# Diary\n\nthe password is "+secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "idx")
	opt := &braid.Options{KeyFile: filepath.Join(t.TempDir(), "key")}
	e, err := braid.Open(dir, opt)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Index(context.Background(), []braid.SourceSpec{{Path: vault}}, nil); err != nil {
		t.Fatal(err)
	}
	e.Close()
	checkPrivate(t, dir)
	loosen(t, dir)
	loose := modes(t, dir)

	other, why := otherUser(t, root)
	t.Run("nobody reads a loose index", func(t *testing.T) {
		if other == nil {
			t.Skip(why)
		}
		if out, err := other("cat", filepath.Join(dir, "meta.db")); err != nil || !strings.Contains(out, secret) {
			t.Fatalf("as nobody, cat of a 0644 meta.db in a 0755 folder: %v, %d bytes; want its text (the attack this test replays)", err, len(out))
		}
	})

	r, err := braid.Open(dir, &braid.Options{ReadOnly: true, KeyFile: opt.KeyFile})
	if err != nil {
		t.Fatal(err)
	}
	if n := r.Capabilities().Tightened; n != "" {
		t.Errorf("a reader says it tightened: %q", n)
	}
	r.Close()
	if got := modes(t, dir); !equalModes(got, loose) {
		t.Errorf("a reader changed modes: %v, was %v", got, loose)
	}

	w, err := braid.Open(dir, opt)
	if err != nil {
		t.Fatal(err)
	}
	note := w.Capabilities().Tightened
	w.Close()
	if !strings.HasPrefix(note, "tightened the index's permissions to owner-only ("+dir+": folder 755 → 700, ") || strings.Contains(note, "\n") {
		t.Errorf("writer's note %q: want one line saying it tightened the index's permissions to owner-only", note)
	}
	checkPrivate(t, dir)
	w, err = braid.Open(dir, opt)
	if err != nil {
		t.Fatal(err)
	}
	if n := w.Capabilities().Tightened; n != "" {
		t.Errorf("the second writer says %q; the note is said once", n)
	}
	w.Close()

	t.Run("nobody is refused a tightened index", func(t *testing.T) {
		if other == nil {
			t.Skip(why)
		}
		for _, args := range [][]string{{"cat", filepath.Join(dir, "meta.db")}, {"ls", dir}, {"grep", "-r", secret, dir}} {
			out, err := other(args...)
			if err == nil || strings.Contains(out, secret) || !strings.Contains(out, "Permission denied") {
				t.Errorf("as nobody, %s: %v, %q; want Permission denied", strings.Join(args, " "), err, out)
			}
		}
	})
}

func equalModes(a, b map[string]fs.FileMode) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// otherUser runs a command as user nobody with its output, once it has
// made the folders above root reachable to others (t.TempDir makes them
// 0700, which alone would keep nobody out); nil and why where this cannot
// be done: not root, no user nobody, or no setuid.
func otherUser(t *testing.T, root string) (run func(args ...string) (string, error), why string) {
	if os.Geteuid() != 0 {
		return nil, "not run as root, so no command can run as a second user"
	}
	u, err := user.Lookup("nobody")
	if err != nil {
		return nil, "no user nobody to read the index as: " + err.Error()
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	for _, p := range []string{root, filepath.Dir(root)} {
		if err := os.Chmod(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	run = func(args ...string) (string, error) {
		cmd := exec.Command(args[0], args[1:]...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		return out.String(), err
	}
	if _, err := run("true"); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			return nil, "cannot run a command as nobody: " + err.Error()
		}
	}
	return run, ""
}
