package cli

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/braidsearch/braid/internal/testenv"
)

// braid serve answers every malformed line on stdin with a JSON-RPC error
// (carrying the id when it can be read) and goes on serving: a batch, a
// NUL byte, 100,000-deep nesting, a line that is not a request (issue 20,
// 8e).
func TestServeMalformedLines(t *testing.T) {
	idx := filepath.Join(t.TempDir(), "idx")
	if _, errOut, code := runCLI(t, "--index", idx, "--model", "none", "index", vaultDir(t, 2, "alpha")); code != 0 {
		t.Fatalf("index: %s", errOut)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, "--index", idx, "--model", "none", "serve")
	cmd.Env = append(os.Environ(), "BRAID_TEST_MAIN=1")
	var stderr testenv.Buffer
	cmd.Stderr = &stderr
	stdin := testenv.Must1(cmd.StdinPipe())(t)
	stdout := testenv.Must1(cmd.StdoutPipe())(t)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	next := func(what string) string {
		t.Helper()
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("%s: the server closed stdout; stderr:\n%s", what, stderr.String())
			}
			return l
		case <-time.After(testenv.Guard):
			t.Fatalf("%s: no reply in %v; stderr:\n%s", what, testenv.Guard, stderr.String())
		}
		return ""
	}
	send := func(s string) {
		t.Helper()
		if _, err := stdin.Write([]byte(s + "\n")); err != nil {
			t.Fatal(err)
		}
	}
	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if l := next("initialize"); !strings.Contains(l, `"id":0,"result"`) {
		t.Fatalf("initialize: %s", l)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	type reply struct {
		ID    json.RawMessage
		Error *struct{ Code int }
	}
	tests := []struct {
		name string
		line string
		id   string // the id the error must carry
		code int
	}{
		{"batch", `[{"jsonrpc":"2.0","id":11,"method":"ping"}]`, "11", -32600},
		{"NUL in a line", "{\"jsonrpc\":\"2.0\",\"id\":12,\"method\":\"pi\x00ng\"}", "12", -32700},
		{"100k-deep nesting", `{"jsonrpc":"2.0","id":13,"method":"ping","params":` + strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000) + `}`, "13", -32700},
		{"not JSON", `{"jsonrpc":"2.0","method":`, "null", -32700},
		{"not a request", `"hello"`, "null", -32600},
	}
	for i, tc := range tests {
		send(tc.line)
		l := next(tc.name)
		var r reply
		if tc.name == "batch" {
			var rs []reply
			if err := json.Unmarshal([]byte(l), &rs); err != nil || len(rs) != 1 {
				t.Errorf("%s: reply %s, want an array of one error", tc.name, l)
				continue
			}
			r = rs[0]
		} else if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Errorf("%s: reply %s is not a JSON-RPC message", tc.name, l)
			continue
		}
		if string(r.ID) != tc.id || r.Error == nil || r.Error.Code != tc.code {
			t.Errorf("%s: reply %.300s, want error %d with id %s", tc.name, l, tc.code, tc.id)
		}
		// The server still answers the next request.
		id := strconv.Itoa(100 + i)
		send(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`)
		if l := next(tc.name + ", then ping"); !strings.Contains(l, `"id":`+id+`,"result"`) {
			t.Errorf("ping after %s: %s", tc.name, l)
		}
	}
	// A closed stdin ends the server, cleanly.
	stdin.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("braid serve after stdin closed: %v; stderr:\n%s", err, stderr.String())
		}
	case <-time.After(testenv.Guard):
		t.Errorf("braid serve did not end within %v of stdin closing", testenv.Guard)
	}
}
