package cli

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/braidsearch/braid/auth"
)

// braid tokens add prints the token alone on stdout, and Tokens signs its
// user in with it; list shows names and groups, never a token or hash;
// revoke removes it, and a name without a token is an error.
func TestTokensCLI(t *testing.T) {
	file := filepath.Join(t.TempDir(), "tokens.json")
	// The index directory is never touched: a bad --index is no matter.
	run := func(args ...string) (string, string) {
		t.Helper()
		out, errOut, code := runCLI(t, append([]string{"--index", filepath.Join(t.TempDir(), "none")}, args...)...)
		if code != 0 {
			t.Fatalf("braid %v: exit %d: %s", args, code, errOut)
		}
		return out, errOut
	}
	out, errOut := run("tokens", "add", "alice", "--groups", "eng,ops", "--file", file)
	if !regexp.MustCompile(`^braid_[A-Za-z0-9_-]{43}\n$`).MatchString(out) {
		t.Fatalf("tokens add printed %q, want the token alone on one line", out)
	}
	if !strings.Contains(errOut, "shown this once") {
		t.Errorf("tokens add said %q on stderr, want a note that the token is shown once", errOut)
	}
	alice := strings.TrimSpace(out)
	tk, err := auth.OpenTokens(file)
	if err != nil {
		t.Fatal(err)
	}
	p, err := tk.Authenticate(context.Background(), alice)
	if err != nil || p.Name != "alice" || strings.Join(p.Groups, ",") != "eng,ops" {
		t.Fatalf("the token from tokens add: %+v, %v", p, err)
	}

	out, _ = run("--json", "tokens", "add", "bob", "--file", file)
	var added struct {
		Name   string
		Token  string
		Groups []string
	}
	if err := json.Unmarshal([]byte(out), &added); err != nil || added.Name != "bob" || !strings.HasPrefix(added.Token, "braid_") || added.Groups == nil {
		t.Fatalf("tokens add --json: %q (%+v, %v)", out, added, err)
	}

	out, _ = run("tokens", "list", "--file", file)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "NAME") || !regexp.MustCompile(`^alice\s+eng,ops\s+\d{4}-`).MatchString(lines[1]) || !regexp.MustCompile(`^bob\s+-\s+\d{4}-`).MatchString(lines[2]) {
		t.Errorf("tokens list:\n%s", out)
	}
	if strings.Contains(out, "braid_") {
		t.Errorf("tokens list shows a token:\n%s", out)
	}
	out, _ = run("--json", "tokens", "list", "--file", file)
	var list []map[string]any
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list) != 2 || list[0]["name"] != "alice" {
		t.Errorf("tokens list --json: %q, %v", out, err)
	}
	for _, item := range list {
		for k := range item {
			if k != "name" && k != "groups" && k != "created" {
				t.Errorf("tokens list --json has %q", k)
			}
		}
	}

	if out, _ := run("tokens", "revoke", "alice", "--file", file); !strings.Contains(out, "revoked the token of alice") {
		t.Errorf("tokens revoke: %q", out)
	}
	if _, err := tk.Authenticate(context.Background(), alice); !errors.Is(err, auth.ErrInvalidToken) {
		t.Errorf("alice's token after tokens revoke: %v, want ErrInvalidToken", err)
	}
	_, errOut, code := runCLI(t, "tokens", "revoke", "alice", "--file", file)
	if code == 0 || !strings.Contains(errOut, "no token of alice") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("tokens revoke of a name without a token: exit %d, %q", code, errOut)
	}
	_, errOut, code = runCLI(t, "tokens", "add", "bob", "--file", file)
	if code == 0 || !strings.Contains(errOut, "braid tokens revoke bob") {
		t.Errorf("tokens add of a name with a token: exit %d, %q", code, errOut)
	}

	if err := os.Chmod(file, 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code = runCLI(t, "tokens", "list", "--file", file)
	if code == 0 || !strings.Contains(errOut, "chmod 600") {
		t.Errorf("tokens list of a file open to others: exit %d, %q", code, errOut)
	}
}
