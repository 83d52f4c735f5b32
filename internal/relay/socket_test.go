//go:build unix

package relay

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/braidsearch/braid/internal/testenv"
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
	testenv.Must(t, os.Chmod(open, 0o755))
	private := t.TempDir()
	testenv.Must(t, os.Chmod(private, 0o700))
	link := filepath.Join(t.TempDir(), "link")
	testenv.Must(t, os.Symlink(private, link))
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
			testenv.Must(t, os.Chmod(target, 0o700))
			testenv.Must(t, os.Symlink(target, folder))
		}, "is a symbolic link"},
		{"file", func(t *testing.T, folder string) { testenv.Must(t, os.WriteFile(folder, nil, 0o600)) }, "is not a directory"},
		{"group permissions", func(t *testing.T, folder string) { testenv.Must(t, os.Mkdir(folder, 0o750)) }, "is open to other users"},
		{"world permissions", func(t *testing.T, folder string) {
			testenv.Must(t, os.Mkdir(folder, 0o700))
			testenv.Must(t, os.Chmod(folder, 0o1777))
		}, "is open to other users"},
		{"another user's", func(t *testing.T, folder string) {
			if os.Getuid() != 0 {
				t.Skip("not root: giving the folder to another user (uid 65534) needs root")
			}
			testenv.Must(t, os.Mkdir(folder, 0o700))
			testenv.Must(t, os.Chown(folder, 65534, 65534))
		}, "belongs to uid 65534"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tmp := privateEnv(t)
			folder := filepath.Join(tmp, "braid-"+strconv.Itoa(os.Getuid()))
			tc.setup(t, folder)
			before := testenv.Must1(os.Lstat(folder))(t)
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
		if entries := testenv.Must1(os.ReadDir(tmp))(t); len(entries) != 0 {
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

// otherUser runs TestHelperOtherUser as uid 65534 with the socket path
// dir/serve.sock, in a folder that user can write. It skips the test when
// no second uid is at hand.
type otherUser struct {
	dir   string
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines chan string
	errs  bytes.Buffer
}

func startOtherUser(t *testing.T, mode, dir string) *otherUser {
	t.Helper()
	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// The test binary sits in a folder only root can enter: copy it.
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	helper := filepath.Join(dir, "relay.test")
	if err := os.WriteFile(helper, data, 0o755); err != nil {
		t.Fatal(err)
	}
	h := &otherUser{dir: dir, lines: make(chan string, 16)}
	h.cmd = exec.Command(helper, "-test.run=^TestHelperOtherUser$")
	h.cmd.Env = append(os.Environ(), "BRAID_RELAY_HELPER="+mode, "BRAID_RELAY_SOCKET="+filepath.Join(dir, SocketName))
	h.cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	h.cmd.Stderr = &h.errs
	if h.stdin, err = h.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := h.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := h.cmd.Start(); err != nil {
		t.Skipf("cannot run a process as uid 65534: %v", err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			h.lines <- sc.Text()
		}
		close(h.lines)
	}()
	t.Cleanup(func() {
		h.stdin.Close()
		h.cmd.Process.Kill()
		h.cmd.Wait()
	})
	return h
}

// next is the helper's next line that starts with prefix.
func (h *otherUser) next(t *testing.T, prefix string) string {
	t.Helper()
	timeout := time.After(testenv.Guard)
	for {
		select {
		case line, ok := <-h.lines:
			if !ok {
				t.Fatalf("the helper ended before saying %q; stderr:\n%s", prefix, h.errs.String())
			}
			if strings.HasPrefix(line, prefix) {
				return line
			}
		case <-timeout:
			t.Fatalf("the helper did not say %q in 30 s", prefix)
		}
	}
}

// sharedDir is a folder uid 65534 can reach and write, or the test skips.
func sharedDir(t *testing.T) string {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("not root: running a process as another user (uid 65534) needs root; run the relay tests as root to cover another user's socket")
	}
	dir, err := os.MkdirTemp("", "braid-relay-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	testenv.Must(t, os.Chmod(dir, 0o777))
	for d := filepath.Dir(dir); ; d = filepath.Dir(d) {
		if fi, err := os.Stat(d); err != nil || fi.Mode().Perm()&0o001 == 0 {
			t.Skipf("uid 65534 cannot enter %s", d)
		}
		if d == filepath.Dir(d) {
			return dir
		}
	}
}

// Another user listening on the socket first (squatting) gets nothing:
// not when the socket file is theirs, and not when the file is the
// user's but the process answering is theirs. The squatter offers a
// forged result, which must not reach the user either.
func TestForwardRefusesAnotherUsersSocket(t *testing.T) {
	dir := sharedDir(t)
	h := startOtherUser(t, "squat", dir)
	h.next(t, "listening")
	path := filepath.Join(dir, SocketName)
	req := &Request{Command: []string{"search"}, Args: []byte(`{"Query":"secret"}`), Cwd: "/home/secret"}

	forward := func(how string) {
		var out, errOut bytes.Buffer
		code, err := Forward(context.Background(), dir, req, strings.NewReader("secret stdin"), &out, &errOut)
		want := fmt.Sprintf("relay: the socket %s is held by uid 65534, not you (uid %d); not sending the command. Remove it if it is stale", path, os.Getuid())
		if !errors.Is(err, ErrNotYours) || err.Error() != want {
			t.Errorf("%s: got %v, want ErrNotYours:\n%s", how, err, want)
		}
		if code != 0 || out.Len()+errOut.Len() != 0 {
			t.Errorf("%s: the squatter's result reached the user: code %d, stdout %q, stderr %q", how, code, out.String(), errOut.String())
		}
	}
	forward("the squatter's socket file")
	if err := os.Lchown(path, os.Getuid(), os.Getgid()); err != nil {
		t.Fatal(err)
	}
	forward("the user's socket file, the squatter's process")
	if got := h.next(t, "read "); got != "read 0 bytes" {
		t.Errorf("the squatter got the command: %s", got)
	}
	h.stdin.Close()
	if got := h.next(t, "connections "); got != "connections 1" {
		t.Errorf("%s, want 1: the client connected to a socket file of another user", got)
	}
}

// A server closes another user's connection without reading or running
// its request, even when the socket's permissions let them in.
func TestServeRefusesAnotherUsersClient(t *testing.T) {
	dir := sharedDir(t)
	var ran atomic.Bool
	s, err := Listen(filepath.Join(dir, SocketName), func(context.Context, []byte, *Session) int {
		ran.Store(true)
		return 0
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	testenv.Must(t, os.Chmod(s.Path(), 0o777))
	h := startOtherUser(t, "client", dir)
	if got := h.next(t, "got "); got != "got 0 bytes" || ran.Load() {
		t.Errorf("another user's request: %s, handler ran %v; want no answer and no run", got, ran.Load())
	}
}

// TestHelperOtherUser is the other user's process of the tests above; it
// does nothing in a plain test run. As "squat" it listens on
// BRAID_RELAY_SOCKET, offers each client a forged result, reports what it
// read, and when its stdin ends, how many connected. As "client" it sends
// a request to the server there and reports what came back.
func TestHelperOtherUser(t *testing.T) {
	path := os.Getenv("BRAID_RELAY_SOCKET")
	switch os.Getenv("BRAID_RELAY_HELPER") {
	case "squat":
		ln, err := net.Listen("unix", path)
		if err != nil {
			t.Fatal(err)
		}
		testenv.Must(t, os.Chmod(path, 0o777))
		var conns atomic.Int64
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				conns.Add(1)
				go func() {
					defer c.Close()
					writeFrame(c, frameStdout, []byte("forged result\n"))
					writeFrame(c, frameExit, []byte{0, 0, 0, 0})
					n, _ := io.Copy(io.Discard, c)
					fmt.Printf("read %d bytes\n", n)
				}()
			}
		}()
		fmt.Println("listening")
		io.Copy(io.Discard, os.Stdin)
		fmt.Printf("connections %d\n", conns.Load())
	case "client":
		c, err := net.Dial("unix", path)
		if err != nil {
			t.Fatal(err)
		}
		writeFrame(c, frameRequest, []byte(`{"command":["search"]}`))
		n, _ := io.Copy(io.Discard, c)
		fmt.Printf("got %d bytes\n", n)
	default:
		t.Skip("helper, not a test: the other user's side of TestForwardRefusesAnotherUsersSocket and TestServeRefusesAnotherUsersClient")
	}
}
