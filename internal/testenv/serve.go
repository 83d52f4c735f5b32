package testenv

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"
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
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

// String is what was written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
