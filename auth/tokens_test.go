package auth

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func newTokens(t *testing.T) (*Tokens, string) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "tokens.json")
	tk, err := OpenTokens(file)
	if err != nil {
		t.Fatal(err)
	}
	return tk, file
}

func mustAdd(t *testing.T, tk *Tokens, name string, groups ...string) string {
	t.Helper()
	tok, err := tk.Add(name, groups)
	if err != nil {
		t.Fatalf("Add(%s): %v", name, err)
	}
	return tok
}

// Add, List, Authenticate and Revoke: each token signs in its own user
// with their groups; the file keeps the hashes only, mode 0600.
func TestTokensAddListRevoke(t *testing.T) {
	ctx := context.Background()
	tk, file := newTokens(t)
	alice := mustAdd(t, tk, "alice", "eng", "ops", "eng")
	bob := mustAdd(t, tk, "bob")
	if !strings.HasPrefix(alice, "braid_") || len(alice) != len("braid_")+43 || alice == bob {
		t.Fatalf("tokens %q and %q: want braid_ and 43 base64url characters, different", alice, bob)
	}
	if _, err := tk.Add("alice", nil); err == nil || !strings.Contains(err.Error(), "braid tokens revoke alice") {
		t.Errorf("Add of a name there already: %v, want an error naming braid tokens revoke", err)
	}
	for _, bad := range []string{"", "group:eng", "a b", "*", strings.Repeat("x", 200)} {
		if _, err := tk.Add(bad, nil); err == nil {
			t.Errorf("Add(%q): no error", bad)
		}
	}
	if _, err := tk.Add("carol", []string{"bad group"}); err == nil {
		t.Error("Add with a group \"bad group\": no error")
	}

	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), alice) || strings.Contains(string(data), strings.TrimPrefix(bob, "braid_")) {
		t.Errorf("the token file holds a token itself:\n%s", data)
	}
	if !strings.Contains(string(data), `"format": 1`) {
		t.Errorf("the token file has no format version:\n%s", data)
	}
	info, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Errorf("token file mode %v, want -rw-------", info.Mode().Perm())
	}

	list, err := tk.List()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, i := range list {
		got = append(got, fmt.Sprintf("%s %v", i.Name, i.Groups))
		if i.Created.IsZero() {
			t.Errorf("%s: no creation time", i.Name)
		}
	}
	if diff := cmp.Diff([]string{"alice [eng ops]", "bob []"}, got); diff != "" {
		t.Errorf("List (-want +got):\n%s", diff)
	}

	p, err := tk.Authenticate(ctx, alice)
	if err != nil {
		t.Fatalf("alice's token: %v", err)
	}
	if diff := cmp.Diff(&Principal{Name: "alice", Groups: []string{"eng", "ops"}}, p); diff != "" {
		t.Errorf("alice's principal (-want +got):\n%s", diff)
	}
	if p, err := tk.Authenticate(ctx, bob); err != nil || p.Name != "bob" || p.Scopes != nil {
		t.Errorf("bob's token: %+v, %v", p, err)
	}
	for _, bad := range []string{"", "braid_", alice + "x", alice[:len(alice)-1], "eyJhbGciOiJSUzI1NiJ9.e30.sig", "braid_" + strings.Repeat("A", 5000)} {
		if _, err := tk.Authenticate(ctx, bad); !errors.Is(err, ErrInvalidToken) {
			t.Errorf("Authenticate(%.20q…): %v, want ErrInvalidToken", bad, err)
		}
	}

	if ok, err := tk.Revoke("alice"); !ok || err != nil {
		t.Fatalf("Revoke(alice): %v, %v", ok, err)
	}
	if ok, err := tk.Revoke("alice"); ok || err != nil {
		t.Errorf("Revoke(alice) again: %v, %v; want false, nil", ok, err)
	}
	if _, err := tk.Authenticate(ctx, alice); !errors.Is(err, ErrInvalidToken) {
		t.Errorf("alice's revoked token: %v, want ErrInvalidToken", err)
	}
	if _, err := tk.Authenticate(ctx, bob); err != nil {
		t.Errorf("bob's token after alice's revocation: %v", err)
	}
	// A name revoked can have a new token; the old one stays refused.
	alice2 := mustAdd(t, tk, "alice")
	if _, err := tk.Authenticate(ctx, alice); !errors.Is(err, ErrInvalidToken) {
		t.Errorf("alice's old token after a new one: %v", err)
	}
	if p, err := tk.Authenticate(ctx, alice2); err != nil || p.Name != "alice" || len(p.Groups) != 0 {
		t.Errorf("alice's new token: %+v, %v", p, err)
	}
}

// A Tokens already open, as braid serve holds it, sees a revocation made
// by another (braid tokens revoke) on its next call, without reopening;
// and a token added meanwhile.
func TestTokensRevocationSeenWithoutReopen(t *testing.T) {
	ctx := context.Background()
	admin, file := newTokens(t)
	alice := mustAdd(t, admin, "alice")
	server, err := OpenTokens(file)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := server.Authenticate(ctx, alice); err != nil {
		t.Fatalf("alice before revocation: %v", err)
	}
	other, err := OpenTokens(file)
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := other.Revoke("alice"); !ok || err != nil {
		t.Fatalf("Revoke: %v, %v", ok, err)
	}
	if _, err := server.Authenticate(ctx, alice); !errors.Is(err, ErrInvalidToken) {
		t.Errorf("alice after revocation by another Tokens: %v, want ErrInvalidToken", err)
	}
	bob := mustAdd(t, other, "bob")
	if p, err := server.Authenticate(ctx, bob); err != nil || p.Name != "bob" {
		t.Errorf("bob, added by another Tokens: %+v, %v", p, err)
	}
}

// A file gone, opened to others, or replaced by a link refuses every
// token with an error that is not ErrInvalidToken (Middleware: 503) and
// says why; fixed, it signs in again.
func TestTokensFailClosed(t *testing.T) {
	ctx := context.Background()
	tk, file := newTokens(t)
	alice := mustAdd(t, tk, "alice")
	refused := func(what, want string) {
		t.Helper()
		p, err := tk.Authenticate(ctx, alice)
		if err == nil || errors.Is(err, ErrInvalidToken) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "every token") {
			t.Errorf("%s: %+v, %v; want a refusal naming %q and saying every token is refused", what, p, err, want)
		}
	}
	accepted := func(what string) {
		t.Helper()
		if _, err := tk.Authenticate(ctx, alice); err != nil {
			t.Errorf("%s: %v", what, err)
		}
	}
	if err := os.Chmod(file, 0o644); err != nil {
		t.Fatal(err)
	}
	refused("mode 0644", "chmod 600")
	if err := os.Chmod(file, 0o600); err != nil {
		t.Fatal(err)
	}
	accepted("mode 0600 again")

	moved := file + ".moved"
	if err := os.Rename(file, moved); err != nil {
		t.Fatal(err)
	}
	refused("file gone", "does not exist")
	refused("file still gone", "does not exist")
	if err := os.Symlink(moved, file); err != nil {
		t.Fatal(err)
	}
	refused("a symbolic link", "symbolic link")
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(moved, file); err != nil {
		t.Fatal(err)
	}
	accepted("file back")

	if err := os.WriteFile(file, []byte("{\"format\": 1, \"tokens\": [{\"name\": \"alice\""), 0o600); err != nil {
		t.Fatal(err)
	}
	refused("damaged JSON", "not a braid token file")
}

// OpenTokens refuses an unsafe or foreign file with an error that says
// what to do; a file that does not exist is an empty set.
func TestOpenTokensRefuses(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	tk, err := OpenTokens(good)
	if err != nil {
		t.Fatalf("OpenTokens of a file not there: %v", err)
	}
	if l, err := tk.List(); err != nil || len(l) != 0 {
		t.Errorf("List of a file not there: %v, %v", l, err)
	}
	mustAdd(t, tk, "alice")

	open := filepath.Join(dir, "open.json")
	data, _ := os.ReadFile(good)
	if err := os.WriteFile(open, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o644); err != nil { // whatever the umask
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(good, link); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(big, make([]byte, maxTokensFile+1), 0o600); err != nil {
		t.Fatal(err)
	}
	newer := filepath.Join(dir, "newer.json")
	if err := os.WriteFile(newer, []byte(`{"format": 2, "tokens": []}`), 0o600); err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(dir, "plain.json")
	if err := os.WriteFile(plain, []byte(`{"format": 1, "tokens": [{"name": "alice", "token": "braid_x", "sha256": ""}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	twice := filepath.Join(dir, "twice.json")
	h := strings.Repeat("ab", 32)
	if err := os.WriteFile(twice, fmt.Appendf(nil, `{"format": 1, "tokens": [{"name": "a", "sha256": %q}, {"name": "a", "sha256": %q}]}`, h, h), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, file, want string }{
		{"mode 0644", open, "chmod 600"},
		{"symbolic link", link, "symbolic link"},
		{"FIFO", fifo, "not a regular file"},
		{"directory", dir, "not a regular file"},
		{"huge", big, "bytes"},
		{"newer format", newer, "newer than"},
		{"a token in the clear", plain, "not a braid token file"},
		{"a name twice", twice, "twice"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := OpenTokens(c.file)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("OpenTokens: %v, want an error naming %q", err, c.want)
			}
			if c.file == open || c.file == link || c.file == fifo {
				if !errors.Is(err, ErrUnsafeTokens) {
					t.Errorf("%v: not ErrUnsafeTokens", err)
				}
			}
		})
	}
	// Add refuses to write over a file it would not read.
	tk2, err := OpenTokens(filepath.Join(dir, "x.json"))
	if err != nil {
		t.Fatal(err)
	}
	tk2.file = open
	if _, err := tk2.Add("bob", nil); !errors.Is(err, ErrUnsafeTokens) {
		t.Errorf("Add to a file open to others: %v, want ErrUnsafeTokens", err)
	}
}

// Authenticate while Revoke and Add rewrite the file: every call answers
// either signed in or ErrInvalidToken, never a read of a half-written
// file, and bob, never revoked, is always signed in (run with -race).
func TestTokensConcurrentAuthenticateRevoke(t *testing.T) {
	ctx := context.Background()
	admin, file := newTokens(t)
	bob := mustAdd(t, admin, "bob")
	server, err := OpenTokens(file)
	if err != nil {
		t.Fatal(err)
	}
	const rounds = 30
	tokens := make(chan string, rounds)
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(tokens)
		for i := range rounds {
			name := fmt.Sprintf("u%d", i)
			tok, err := admin.Add(name, nil)
			if err != nil {
				errs <- err
				return
			}
			tokens <- tok
			if _, err := admin.Revoke(name); err != nil {
				errs <- err
				return
			}
		}
	}()
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for tok := range tokens {
				for _, x := range []string{tok, bob} {
					p, err := server.Authenticate(ctx, x)
					if err != nil && (x == bob || !errors.Is(err, ErrInvalidToken)) {
						errs <- fmt.Errorf("Authenticate during rewrites: %v", err)
						return
					}
					if err == nil && x == bob && p.Name != "bob" {
						errs <- fmt.Errorf("bob signed in as %q", p.Name)
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	list, err := admin.List()
	if err != nil || len(list) != 1 || list[0].Name != "bob" {
		t.Errorf("after the rounds: %+v, %v; want bob alone", list, err)
	}
}

// FuzzOpenTokens: any content of a token file is read or refused with an
// error, never a panic; a file read signs in no token it does not hold.
func FuzzOpenTokens(f *testing.F) {
	f.Add([]byte(`{"format": 1, "tokens": [{"name": "alice", "groups": ["eng"], "sha256": "` + strings.Repeat("0a", 32) + `", "created": "2026-01-02T03:04:05Z"}]}`))
	f.Add([]byte(`{"format": 1, "tokens": null}`))
	f.Add([]byte(`{"format": 2}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		file := filepath.Join(t.TempDir(), "tokens.json")
		if err := os.WriteFile(file, data, 0o600); err != nil {
			t.Fatal(err)
		}
		tk, err := OpenTokens(file)
		if err != nil {
			return
		}
		if p, err := tk.Authenticate(context.Background(), "braid_"+strings.Repeat("A", 43)); err == nil {
			t.Errorf("a token not made by Add signed in as %+v", p)
		}
		if _, err := tk.List(); err != nil {
			t.Errorf("List of a file OpenTokens read: %v", err)
		}
	})
}
