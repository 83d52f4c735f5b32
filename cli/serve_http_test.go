package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/braidsearch/braid/internal/testenv"
)

// serve --http refuses, in one line, what it cannot serve safely.
func TestServeHTTPRefusals(t *testing.T) {
	idx := filepath.Join(t.TempDir(), "idx")
	for _, tc := range []struct {
		name string
		args []string
		want []string // the line names these
	}{
		{"open to the network", []string{"--http", "0.0.0.0:0"}, []string{"--auth-tokens", "--auth-issuer"}},
		{"all interfaces", []string{"--http", ":8080"}, []string{"--auth-tokens", "--auth-issuer"}},
		{"HTTP flag on stdio", []string{"--audit", "a.log"}, []string{"--audit", "--http"}},
		{"issuer without its URL", []string{"--http", "127.0.0.1:0", "--auth-issuer", "https://id.example.com"}, []string{"--public-url"}},
		{"half the TLS", []string{"--http", "127.0.0.1:0", "--tls-cert", "c.pem"}, []string{"--tls-key"}},
	} {
		_, errOut, code := runCLI(t, append([]string{"--index", idx, "serve", "--init"}, tc.args...)...)
		if code == 0 {
			t.Errorf("%s: exit 0", tc.name)
		}
		if lines := strings.Count(strings.TrimSpace(errOut), "\n") + 1; lines != 1 {
			t.Errorf("%s: %d lines, want 1:\n%s", tc.name, lines, errOut)
		}
		for _, w := range tc.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("%s: %q does not name %s", tc.name, errOut, w)
			}
		}
	}
}

// braid serve --http, as a process: the address on stderr, nothing on
// stdout; alice and bob sign in with their tokens and search; a request
// without one is 401; SIGTERM ends it cleanly, the audit log written.
func TestServeHTTP(t *testing.T) {
	dir := t.TempDir()
	idx := filepath.Join(dir, "idx")
	if _, errOut, code := runCLI(t, "--index", idx, "index", vaultDir(t, 4, "alpha")); code != 0 {
		t.Fatalf("index: %s", errOut)
	}
	tokens := filepath.Join(dir, "tokens")
	tok := addTokens(t, tokens, []string{"alice"}, []string{"bob"})
	audit := filepath.Join(dir, "audit.log")
	p := startServeHTTP(t, "--index", idx, "serve", "--http", "127.0.0.1:0", "--auth-tokens", tokens, "--audit", audit,
		"--session-key", filepath.Join(dir, "session.key"))
	url, errLog := p.url, p.log
	for _, user := range []string{"alice", "bob"} {
		tr, err := transport.NewStreamableHTTP(url+"/mcp", transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + tok[user]}))
		if err != nil {
			t.Fatal(err)
		}
		c := client.NewClient(tr)
		ctx, cancel := context.WithTimeout(context.Background(), testenv.Guard)
		if err := c.Start(ctx); err != nil {
			t.Fatal(err)
		}
		var init mcp.InitializeRequest
		init.Params.ClientInfo = mcp.Implementation{Name: "braid-test", Version: "1"}
		if _, err := c.Initialize(ctx, init); err != nil {
			t.Fatalf("%s: initialize: %v (stderr %s)", user, err, errLog.String())
		}
		var req mcp.CallToolRequest
		req.Params.Name = "search"
		req.Params.Arguments = map[string]any{"query": "alpha"}
		res, err := c.CallTool(ctx, req)
		cancel()
		if err != nil || res.IsError {
			t.Fatalf("%s: search: %v %+v", user, err, res)
		}
		c.Close()
	}
	res, err := http.Post(url+"/mcp", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusUnauthorized {
		t.Errorf("no token: status %d, want 401", res.StatusCode)
	}
	p.stop(t)
	b, err := os.ReadFile(audit)
	if err != nil {
		t.Fatal(err)
	}
	var users []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var e struct{ User, Tool, Status string }
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("audit line %q: %v", line, err)
		}
		users = append(users, e.User+" "+e.Tool+" "+e.Status)
	}
	if got, want := strings.Join(users, ", "), "alice search ok, bob search ok"; got != want {
		t.Errorf("audit log: %s, want %s", got, want)
	}
}

// serveProc is a braid serve --http process a test started.
type serveProc struct {
	url    string // http://127.0.0.1:PORT, the endpoint being url + "/mcp"
	cmd    *exec.Cmd
	log    *testenv.Buffer // its stderr
	stdout bytes.Buffer
	exited bool
}

// startServeHTTP starts braid with args (a serve --http on port 0) as a
// process of its own and returns once it says where it listens; it is
// killed at the test's end unless stop ended it.
// addTokens adds a token for each user to the token file (each a name,
// then braid tokens add's flags for it) and returns them by name.
func addTokens(t *testing.T, file string, users ...[]string) map[string]string {
	t.Helper()
	tok := map[string]string{}
	for _, add := range users {
		out, errOut, code := runCLI(t, append([]string{"tokens", "add", "--file", file}, add...)...)
		if code != 0 {
			t.Fatalf("tokens add %s: %s", add[0], errOut)
		}
		tok[add[0]] = strings.TrimSpace(out)
	}
	return tok
}

func startServeHTTP(t *testing.T, args ...string) *serveProc {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	p := &serveProc{cmd: exec.Command(self, args...), log: &testenv.Buffer{}}
	p.cmd.Env = append(os.Environ(), "BRAID_TEST_MAIN=1")
	p.cmd.Stdout = &p.stdout
	stderr, err := p.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if !p.exited {
			p.cmd.Process.Kill()
			p.cmd.Wait()
		}
	})
	if p.url, err = testenv.ServeAddr(stderr, p.log); err != nil {
		t.Fatal(err)
	}
	return p
}

// stop sends SIGTERM and waits: the server must end cleanly, having
// written nothing on stdout.
func (p *serveProc) stop(t *testing.T) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	werr := p.cmd.Wait()
	p.exited = true
	if werr != nil {
		t.Errorf("braid serve --http after SIGTERM: %v\n%s", werr, p.log.String())
	}
	if p.stdout.Len() > 0 {
		t.Errorf("braid serve --http wrote to stdout: %q", p.stdout.String())
	}
}
