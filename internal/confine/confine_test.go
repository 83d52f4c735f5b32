//go:build unix

package confine

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/braidsearch/braid/internal/testenv"
)

// tree makes root/in/{a.md, sub/b.md}, secret outside root, and links:
// in/out.md -> secret, in/up -> .., in/abs.md -> root/in/a.md (absolute,
// staying inside), in/loop -> in/loop, and two whose targets are missing:
// in/dangling -> missing/x.md beside root, in/dangling-rel -> up/gone/../nowhere.
func tree(t testing.TB) (root, secret string) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root = filepath.Join(base, "in")
	secret = filepath.Join(base, "secret.txt")
	testenv.Must(t, os.MkdirAll(filepath.Join(root, "sub"), 0o755))
	testenv.Must(t, os.WriteFile(filepath.Join(root, "a.md"), []byte("alpha\n"), 0o644))
	testenv.Must(t, os.WriteFile(filepath.Join(root, "sub", "b.md"), []byte("beta\n"), 0o644))
	testenv.Must(t, os.WriteFile(secret, []byte("password\n"), 0o600))
	testenv.Must(t, os.Symlink(secret, filepath.Join(root, "out.md")))
	testenv.Must(t, os.Symlink("..", filepath.Join(root, "up")))
	testenv.Must(t, os.Symlink(filepath.Join(root, "a.md"), filepath.Join(root, "abs.md")))
	testenv.Must(t, os.Symlink("sub/b.md", filepath.Join(root, "rel.md")))
	testenv.Must(t, os.Symlink("loop", filepath.Join(root, "loop")))
	testenv.Must(t, os.Symlink(filepath.Join(filepath.Dir(root), "missing", "x.md"), filepath.Join(root, "dangling")))
	testenv.Must(t, os.Symlink("up/gone/../nowhere", filepath.Join(root, "dangling-rel")))
	return root, secret
}

func TestReadFile(t *testing.T) {
	root, secret := tree(t)
	fifo := filepath.Join(root, "pipe.md")
	testenv.Must(t, syscall.Mkfifo(fifo, 0o644))
	sock := filepath.Join(root, "s.md")
	l, err := net.Listen("unix", sock)
	testenv.Must(t, err)
	defer l.Close()
	for _, tc := range []struct {
		name, root, path string
		want             string
		err              error
	}{
		{"inside", root, filepath.Join(root, "a.md"), "alpha\n", nil},
		{"nested", root, filepath.Join(root, "sub", "b.md"), "beta\n", nil},
		{"relative link inside", root, filepath.Join(root, "rel.md"), "beta\n", nil},
		{"absolute link inside", root, filepath.Join(root, "abs.md"), "alpha\n", nil},
		{"link out", root, filepath.Join(root, "out.md"), "", ErrOutside},
		{"dot-dot", root, filepath.Join(root, "sub", "..", "..", "secret.txt"), "", ErrOutside},
		{"through a link to the parent", root, filepath.Join(root, "up", "secret.txt"), "", ErrOutside},
		{"named outside", root, secret, "", ErrOutside},
		{"no root", "", secret, "password\n", nil},
		{"fifo", root, fifo, "", ErrNotRegular},
		{"fifo without root", "", fifo, "", ErrNotRegular},
		{"socket", root, sock, "", ErrNotRegular},
		{"directory", root, filepath.Join(root, "sub"), "", ErrNotRegular},
		{"device", "", "/dev/zero", "", ErrNotRegular},
		{"nul", root, filepath.Join(root, "a.md\x00x"), "", ErrBadPath},
		{"too long", root, filepath.Join(root, strings.Repeat("x/", MaxPath)), "", ErrBadPath},
	} {
		t.Run(tc.name, func(t *testing.T) {
			done := make(chan struct{})
			var got []byte
			var err error
			go func() {
				defer close(done)
				got, err = ReadFile(tc.root, tc.path, 1<<20)
			}()
			select {
			case <-done:
			case <-time.After(testenv.Guard):
				t.Fatal("ReadFile blocked")
			}
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("err = %v, want %v", err, tc.err)
				}
				return
			}
			if err != nil || string(got) != tc.want {
				t.Fatalf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
	if _, err := ReadFile(root, filepath.Join(root, "loop"), 0); err == nil {
		t.Error("a link loop was read")
	}
}

func TestReadFileLimit(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "big.md")
	testenv.Must(t, os.WriteFile(p, make([]byte, 1001), 0o644))
	if _, err := ReadFile(dir, p, 1000); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err = %v, want ErrTooLarge", err)
	}
	if b, err := ReadFile(dir, p, 1001); err != nil || len(b) != 1001 {
		t.Fatalf("at the limit: %d bytes, %v", len(b), err)
	}
}

func TestResolve(t *testing.T) {
	root, secret := tree(t)
	for _, tc := range []struct{ path, want string }{
		{filepath.Join(root, "a.md"), filepath.Join(root, "a.md")},
		{filepath.Join(root, "out.md"), secret},
		{filepath.Join(root, "up", "secret.txt"), secret},
		{filepath.Join(root, "sub", "..", "a.md"), filepath.Join(root, "a.md")},
		{filepath.Join(root, "new", "dir", "x.md"), filepath.Join(root, "new", "dir", "x.md")},
		{filepath.Join(root, "up", "new", "x.md"), filepath.Join(filepath.Dir(root), "new", "x.md")},
		{filepath.Join(root, "rel.md"), filepath.Join(root, "sub", "b.md")},
		{filepath.Join(root, "up", "in", "up", "in", "sub", "..", "abs.md"), filepath.Join(root, "a.md")},
		{filepath.Join(root, "dangling"), filepath.Join(filepath.Dir(root), "missing", "x.md")},
		{filepath.Join(root, "dangling", "y"), filepath.Join(filepath.Dir(root), "missing", "x.md", "y")},
		{filepath.Join(root, "dangling-rel"), filepath.Join(filepath.Dir(root), "nowhere")},
		{"/", "/"},
	} {
		got, err := Resolve(tc.path)
		if err != nil || got != tc.want {
			t.Errorf("Resolve(%s) = %s, %v; want %s", tc.path, got, err, tc.want)
		}
	}
	for _, p := range []string{filepath.Join(root, "loop", "x"), filepath.Join(root, "loop"), filepath.Join(root, "a.md", "x")} {
		if got, err := Resolve(p); err == nil {
			t.Errorf("Resolve(%s) = %s, want an error (a link loop, a name under a file)", p, got)
		}
	}
}

func TestWithin(t *testing.T) {
	for _, tc := range []struct {
		root, path string
		want       bool
	}{
		{"/a/b", "/a/b", true},
		{"/a/b", "/a/b/c", true},
		{"/a/b", "/a/bc", false},
		{"/a/b", "/a", false},
		{"/a/b", "/a/b/../c", false},
		{"/", "/etc", true},
	} {
		if got := Within(tc.root, tc.path); got != tc.want {
			t.Errorf("Within(%s, %s) = %v, want %v", tc.root, tc.path, got, tc.want)
		}
	}
}

// FuzzResolve checks that whatever path is given, a path Resolve places
// inside the root is one whose file, if any, really is inside it.
func FuzzResolve(f *testing.F) {
	for _, s := range []string{"a.md", "../secret.txt", "up/secret.txt", "out.md", "sub/../../secret.txt", "..\\..\\secret.txt",
		"/etc/passwd", "loop/x", "sub//b.md", "./././a.md", "a.md\x00", "", "dangling/y", "dangling-rel"} {
		f.Add(s)
	}
	root, secret := tree(f)
	f.Fuzz(func(t *testing.T, rel string) {
		p := rel
		if !filepath.IsAbs(p) {
			p = filepath.Join(root, rel)
		}
		real, err := Resolve(p)
		if err != nil {
			return
		}
		if !Within(root, real) {
			return
		}
		if real == secret || strings.HasPrefix(real, secret) {
			t.Fatalf("Resolve(%q) = %s, inside the root but the secret", rel, real)
		}
		if b, err := ReadFile(root, p, 1<<20); err == nil && strings.Contains(string(b), "password") {
			t.Fatalf("ReadFile(%q) read the secret", rel)
		}
	})
}
