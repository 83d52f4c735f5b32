package relay

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/braidsearch/braid/internal/testenv"
)

func listen(t *testing.T, h Handler) *Server {
	t.Helper()
	s, err := Listen(filepath.Join(t.TempDir(), SocketName), h)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func call(t *testing.T, s *Server, ctx context.Context, req string, stdin io.Reader) (string, string, int, error) {
	t.Helper()
	c, err := Dial(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	code, err := Call(ctx, c, []byte(req), stdin, &out, &errOut)
	return out.String(), errOut.String(), code, err
}

// The request, the output streams, stdin on demand and the exit code all
// cross the socket, including output larger than one frame.
func TestCallRoundTrip(t *testing.T) {
	s := listen(t, func(ctx context.Context, req []byte, sess *Session) int {
		switch string(req) {
		case "cat":
			n, _ := io.Copy(sess.Stdout, sess.Stdin)
			fmt.Fprintf(sess.Stderr, "%d bytes", n)
			return 3
		case "big":
			sess.Stdout.Write(bytes.Repeat([]byte("x"), 3*maxFrame+5))
			return 0
		default:
			fmt.Fprint(sess.Stdout, "no stdin read")
			return 0
		}
	})
	in := strings.Repeat("line\n", 100000)
	out, errOut, code, err := call(t, s, context.Background(), "cat", strings.NewReader(in))
	if err != nil || code != 3 || out != in || errOut != fmt.Sprintf("%d bytes", len(in)) {
		t.Fatalf("cat: code %d err %v, %d bytes out, stderr %q", code, err, len(out), errOut)
	}
	out, _, code, err = call(t, s, context.Background(), "big", nil)
	if err != nil || code != 0 || len(out) != 3*maxFrame+5 {
		t.Fatalf("big: code %d err %v, %d bytes", code, err, len(out))
	}
	// A command that does not read stdin never consumes it.
	r := &countingReader{r: strings.NewReader("untouched")}
	if out, _, _, _ = call(t, s, context.Background(), "other", r); out != "no stdin read" || r.n != 0 {
		t.Fatalf("other: %q, stdin read %d bytes", out, r.n)
	}
}

type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// A client that gives up cancels its command on the server, and a panic
// in a handler is an exit code, not a dead server.
func TestCancelAndPanic(t *testing.T) {
	cancelled := make(chan struct{})
	s := listen(t, func(ctx context.Context, req []byte, sess *Session) int {
		if string(req) == "panic" {
			panic("boom")
		}
		fmt.Fprintln(sess.Stdout, "started")
		<-ctx.Done()
		close(cancelled)
		return 1
	})
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if _, _, _, err := call(t, s, ctx, "wait", nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err %v, want the deadline", err)
	}
	select {
	case <-cancelled:
	case <-time.After(testenv.Guard):
		t.Fatal("the server's command was not cancelled when its client went away")
	}
	_, errOut, code, err := call(t, s, context.Background(), "panic", nil)
	if err != nil || code != 2 || !strings.Contains(errOut, "boom") {
		t.Fatalf("panic: code %d err %v stderr %q", code, err, errOut)
	}
	if _, _, code, err := call(t, s, context.Background(), "panic", nil); code != 2 || err != nil {
		t.Fatalf("server gone after a panic: %d %v", code, err)
	}
}

// Close ends the commands under way and leaves no goroutines behind; a
// second server on the same socket is refused while the first lives, and
// takes over a stale socket file after it.
func TestCloseAndTakeOver(t *testing.T) {
	before := runtime.NumGoroutine()
	path := filepath.Join(t.TempDir(), SocketName)
	started := make(chan struct{}, 8)
	s, err := Listen(path, func(ctx context.Context, req []byte, sess *Session) int {
		started <- struct{}{}
		<-ctx.Done()
		return 1
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Listen(path, nil); !errors.Is(err, ErrInUse) {
		t.Fatalf("second server: %v, want ErrInUse", err)
	}
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			c, err := Dial(path)
			if err != nil {
				errs <- err
				return
			}
			code, err := Call(context.Background(), c, []byte("x"), nil, io.Discard, io.Discard)
			if err == nil && code == 0 {
				err = errors.New("exit 0")
			}
			errs <- err
		}()
	}
	for range 4 {
		<-started
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for range 4 {
		if err := <-errs; err != nil && err.Error() == "exit 0" {
			t.Error("a call cut off by Close reported success")
		}
	}
	if _, err := Dial(path); !errors.Is(err, ErrNoServer) {
		t.Fatalf("dial after close: %v", err)
	}
	deadline := time.Now().Add(testenv.Guard)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after Close, %d before", n, before)
	}
	s2, err := Listen(path, func(context.Context, []byte, *Session) int { return 0 })
	if err != nil {
		t.Fatalf("a new server after the first closed: %v", err)
	}
	s2.Close()
}
