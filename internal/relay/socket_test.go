//go:build unix

package relay

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// privateEnv points the temporary directory at a fresh folder and unsets
// XDG_RUNTIME_DIR, so that the tests see their own socket folders.
func privateEnv(t *testing.T) (tmp string) {
	t.Helper()
	tmp = t.TempDir()
	t.Setenv("TMPDIR", tmp)
	t.Setenv("XDG_RUNTIME_DIR", "")
	return tmp
}

// longDir is an index directory whose socket does not fit an address.
func longDir(t *testing.T) string {
	return filepath.Join(t.TempDir(), strings.Repeat("d", 120))
}

// A short index path keeps its socket inside; a long one gets a socket
// in a folder made private to the user, the same one every time.
func TestSocketPathFitsAnAddress(t *testing.T) {
	tmp := privateEnv(t)
	if short, err := SocketPath("/tmp/idx"); err != nil || short != "/tmp/idx/"+SocketName {
		t.Errorf("short dir: %s, %v", short, err)
	}
	dir := longDir(t)
	long, err := SocketPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	folder := filepath.Join(tmp, "braid-"+strconv.Itoa(os.Getuid()))
	if again, _ := SocketPath(dir); len(long) >= 100 || filepath.Dir(long) != folder || again != long {
		t.Errorf("long dir: %s (again %s), want a short path in %s", long, again, folder)
	}
	fi, err := os.Lstat(folder)
	if err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
		t.Fatalf("the socket folder %s: %v, %v, want a directory with mode 0700", folder, fi.Mode(), err)
	}
}

// The socket folder is braid in XDG_RUNTIME_DIR when that is a private
// directory of the user's, else the folder in the temporary directory.
func TestSocketPathRuntimeDir(t *testing.T) {
	tmp := privateEnv(t)
	fallback := filepath.Join(tmp, "braid-"+strconv.Itoa(os.Getuid()))
	open := t.TempDir()
	os.Chmod(open, 0o755)
	private := t.TempDir()
	os.Chmod(private, 0o700)
	link := filepath.Join(t.TempDir(), "link")
	os.Symlink(private, link)
	for _, tc := range []struct{ name, run, want string }{
		{"private", private, filepath.Join(private, "braid")},
		{"open to others", open, fallback},
		{"symbolic link", link, fallback},
		{"missing", filepath.Join(tmp, "nowhere"), fallback},
		{"relative", "run", fallback},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("XDG_RUNTIME_DIR", tc.run)
			p, err := SocketPath(longDir(t))
			if err != nil || filepath.Dir(p) != tc.want {
				t.Fatalf("socket %s, %v; want it in %s", p, err, tc.want)
			}
			if fi, err := os.Lstat(tc.want); err != nil || fi.Mode() != fs.ModeDir|0o700 {
				t.Fatalf("%s: %v, %v; want a directory with mode 0700", tc.want, fi.Mode(), err)
			}
		})
	}
}

// A socket folder that a link, a file, another user or open permissions
// could let someone else into is refused, named, and left alone; Forward
// refuses it too, and a missing folder is no server, not made by a client.
func TestSocketPathRefusesUnsafeFolder(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, folder string)
		why   string
	}{
		{"symbolic link", func(t *testing.T, folder string) {
			target := t.TempDir()
			os.Chmod(target, 0o700)
			os.Symlink(target, folder)
		}, "is a symbolic link"},
		{"file", func(t *testing.T, folder string) { os.WriteFile(folder, nil, 0o600) }, "is not a directory"},
		{"group permissions", func(t *testing.T, folder string) { os.Mkdir(folder, 0o750) }, "is open to other users"},
		{"world permissions", func(t *testing.T, folder string) {
			os.Mkdir(folder, 0o700)
			os.Chmod(folder, 0o1777)
		}, "is open to other users"},
		{"another user's", func(t *testing.T, folder string) {
			if os.Getuid() != 0 {
				t.Skip("needs root to give the folder to another user (uid 65534)")
			}
			os.Mkdir(folder, 0o700)
			os.Chown(folder, 65534, 65534)
		}, "belongs to uid 65534"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tmp := privateEnv(t)
			folder := filepath.Join(tmp, "braid-"+strconv.Itoa(os.Getuid()))
			tc.setup(t, folder)
			before, _ := os.Lstat(folder)
			dir := longDir(t)
			_, err := SocketPath(dir)
			if !errors.Is(err, ErrUnsafeFolder) || !strings.Contains(err.Error(), folder+" "+tc.why) || !strings.Contains(err.Error(), "remove it") {
				t.Fatalf("got %v, want ErrUnsafeFolder naming %s, why (%s) and the fix", err, folder, tc.why)
			}
			if after, _ := os.Lstat(folder); after.Mode() != before.Mode() || !after.ModTime().Equal(before.ModTime()) {
				t.Errorf("the folder changed: %v, was %v", after.Mode(), before.Mode())
			}
			if _, err := Forward(context.Background(), dir, &Request{}, nil, io.Discard, io.Discard); !errors.Is(err, ErrUnsafeFolder) {
				t.Errorf("Forward: got %v, want ErrUnsafeFolder", err)
			}
		})
	}
	t.Run("missing", func(t *testing.T) {
		tmp := privateEnv(t)
		if _, err := Forward(context.Background(), longDir(t), &Request{}, nil, io.Discard, io.Discard); !errors.Is(err, ErrNoServer) {
			t.Errorf("Forward: got %v, want ErrNoServer", err)
		}
		if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
			t.Errorf("a client made %s in the temporary directory", entries[0].Name())
		}
	})
}

// A server on a long index path is reached through the private folder.
func TestForwardLongPath(t *testing.T) {
	privateEnv(t)
	dir := longDir(t)
	path, err := SocketPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Listen(path, func(ctx context.Context, raw []byte, sess *Session) int { return 4 })
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if code, err := Forward(context.Background(), dir, &Request{Command: []string{"stats"}}, nil, io.Discard, io.Discard); err != nil || code != 4 {
		t.Fatalf("code %d, err %v; want 4 from the server", code, err)
	}
}
