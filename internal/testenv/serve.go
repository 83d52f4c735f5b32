package testenv

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// listening is the line braid serve --http logs once it listens.
var listening = regexp.MustCompile(`MCP on (http://[^ ]+)/mcp`)

// ServeAddr reads the stderr of a braid serve --http to its end (so the
// server never blocks on its log), copying each line to log when log is
// not nil, and returns the base URL (http://127.0.0.1:PORT; the endpoint
// is it + "/mcp") of the line that says where it listens. When stderr ends
// without that line, the error holds what the server said.
func ServeAddr(stderr io.Reader, log io.Writer) (string, error) {
	addr := make(chan string, 1)
	var said strings.Builder // read only once addr is closed
	go func() {
		sc := bufio.NewScanner(stderr)
		found := false
		for sc.Scan() {
			if log != nil {
				fmt.Fprintln(log, sc.Text())
			}
			if m := listening.FindStringSubmatch(sc.Text()); m != nil && !found {
				found = true
				addr <- m[1]
			} else if !found {
				fmt.Fprintln(&said, sc.Text())
			}
		}
		close(addr)
	}()
	url, ok := <-addr
	if !ok {
		return "", fmt.Errorf("braid serve --http ended without saying where it listens:\n%s", said.String())
	}
	return url, nil
}

// Buffer is a bytes.Buffer safe for a process's or a server's writes while
// the test reads it (a server's log, a child's stderr).
type Buffer struct {
	mu   sync.Mutex
	b    bytes.Buffer
	grew chan struct{} // closed by the next Write
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.grew != nil {
		close(b.grew)
		b.grew = nil
	}
	return b.b.Write(p)
}

// Grown is closed by the next Write: a test waiting for a server to log
// something takes it, checks, and waits on it when the check fails, so
// that no line written in between is missed.
func (b *Buffer) Grown() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.grew == nil {
		b.grew = make(chan struct{})
	}
	return b.grew
}

// String is what was written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// TeamSources writes a folder under dir for each of names, two notes each
// (NAME-0.md, NAME-1.md) that all speak of rivers and each hold a secret
// word of their own (NAMEword0, NAMEword1), for the team server's tests:
// a user sees a source's secret words only when granted it. It returns the
// folders.
func TeamSources(tb testing.TB, dir string, names ...string) []string {
	tb.Helper()
	var folders []string
	for _, s := range names {
		folder := filepath.Join(dir, s)
		Must(tb, os.MkdirAll(folder, 0o755))
		for i := range 2 {
			body := fmt.Sprintf("# %s note %d\n\nShared words about rivers. The secret word is %sword%d.\n", s, i, s, i)
			Must(tb, os.WriteFile(filepath.Join(folder, fmt.Sprintf("%s-%d.md", s, i)), []byte(body), 0o644))
		}
		folders = append(folders, folder)
	}
	return folders
}
