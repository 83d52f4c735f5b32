package auth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fixed is an Authenticator that knows a few tokens, and fails to check
// any token while down.
type fixed struct {
	tokens map[string]*Principal
	down   bool
}

func (f *fixed) Authenticate(_ context.Context, token string) (*Principal, error) {
	if f.down {
		return nil, errors.New("the identity provider's keys are out of reach")
	}
	if p, ok := f.tokens[token]; ok {
		return p, nil
	}
	return nil, fmt.Errorf("%w: unknown", ErrInvalidToken)
}

// seen is what the handler behind Middleware saw of a request.
type seen struct {
	Principal     *Principal
	Signed        bool
	Authorization string
}

// serve starts a real server on loopback with Middleware in front of a
// handler that reports what it saw, and returns its address and the
// channel the handler writes to.
func serve(t *testing.T, o MiddlewareOptions) (string, <-chan seen) {
	t.Helper()
	got := make(chan seen, 1)
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, ok := From(r.Context())
		got <- seen{p, ok, r.Header.Get("Authorization")}
		io.WriteString(w, "ok")
	})
	srv := httptest.NewServer(Middleware(next, o))
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp", got
}

type answer struct {
	Status    int
	Challenge string
}

func post(t *testing.T, url, authorization string) answer {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	return answer{resp.StatusCode, resp.Header.Get("WWW-Authenticate")}
}

const metadata = "https://braid.example/.well-known/oauth-protected-resource"

// The answers of Middleware, over HTTP: 401 with the challenge and the
// metadata's address, 403 for a missing scope, 503 when the check could
// not be made, and the request through with its principal otherwise.
func TestMiddlewareAnswers(t *testing.T) {
	alice := &Principal{Name: "alice", Groups: []string{"eng"}}
	jwtUser := &Principal{Name: "carol", Scopes: []string{"braid:read"}}
	full := &Principal{Name: "dave", Scopes: []string{"openid", "braid:read", "braid:write"}}
	noScopes := &Principal{Name: "erin", Scopes: []string{}}
	idp := &fixed{tokens: map[string]*Principal{"t-alice": alice, "t-carol": jwtUser, "t-dave": full, "t-erin": noScopes}}
	url, got := serve(t, MiddlewareOptions{Authenticators: []Authenticator{idp}, ResourceMetadata: metadata, Scopes: []string{"braid:read", "braid:write"}})

	for _, c := range []struct {
		name, authorization string
		want                answer
	}{
		{"no header", "", answer{401, `Bearer resource_metadata="` + metadata + `"`}},
		{"another scheme", "Basic YWxpY2U6cHc=", answer{401, `Bearer resource_metadata="` + metadata + `"`}},
		{"Bearer and no token", "Bearer ", answer{401, `Bearer resource_metadata="` + metadata + `"`}},
		{"bad token", "Bearer nope", answer{401, `Bearer resource_metadata="` + metadata + `", error="invalid_token"`}},
		{"a scope missing", "Bearer t-carol", answer{403, `Bearer error="insufficient_scope", scope="braid:read braid:write", resource_metadata="` + metadata + `"`}},
		{"no scope at all", "Bearer t-erin", answer{403, `Bearer error="insufficient_scope", scope="braid:read braid:write", resource_metadata="` + metadata + `"`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if diff := cmp.Diff(c.want, post(t, url, c.authorization)); diff != "" {
				t.Errorf("answer (-want +got):\n%s", diff)
			}
			select {
			case s := <-got:
				t.Errorf("the handler ran: %+v", s)
			default:
			}
		})
	}

	for _, c := range []struct {
		name, authorization string
		want                *Principal
	}{
		{"a token file's user, exempt from scopes", "Bearer t-alice", alice},
		{"every scope", "bearer  t-dave ", full},
	} {
		t.Run(c.name, func(t *testing.T) {
			if a := post(t, url, c.authorization); a.Status != 200 {
				t.Fatalf("answer %+v, want 200", a)
			}
			s := <-got
			if diff := cmp.Diff(seen{c.want, true, ""}, s); diff != "" {
				t.Errorf("what the handler saw (-want +got):\n%s", diff)
			}
		})
	}

	idp.down = true
	if a := post(t, url, "Bearer t-alice"); a.Status != http.StatusServiceUnavailable || a.Challenge != "" {
		t.Errorf("authenticator down: %+v, want 503 and no challenge", a)
	}
}

// One authenticator down does not refuse a token the next accepts; a
// token none accepts while one is down is 503 (it may be good), not 401.
// The token file and a provider, as braid serve has them.
func TestMiddlewareAuthenticatorDown(t *testing.T) {
	tk, err := OpenTokens(filepath.Join(t.TempDir(), "gone.json")) // never made: down
	if err != nil {
		t.Fatal(err)
	}
	carol := &Principal{Name: "carol", Scopes: []string{"braid"}}
	idp := &fixed{tokens: map[string]*Principal{"jwt-carol": carol}}
	url, got := serve(t, MiddlewareOptions{Authenticators: []Authenticator{tk, idp}, ResourceMetadata: metadata, Scopes: []string{"braid"}})

	if a := post(t, url, "Bearer jwt-carol"); a.Status != 200 {
		t.Fatalf("the provider's token with the token file gone: %+v, want 200", a)
	}
	if s := <-got; s.Principal.Name != "carol" {
		t.Errorf("signed in as %+v", s.Principal)
	}
	if a := post(t, url, "Bearer braid_AAAA"); a.Status != http.StatusServiceUnavailable {
		t.Errorf("a token-file token with the file gone: %+v, want 503", a)
	}
	if a := post(t, url, "Bearer junk"); a.Status != 401 || !strings.Contains(a.Challenge, `error="invalid_token"`) {
		t.Errorf("a token neither could take: %+v, want 401 invalid_token", a)
	}

	// The provider first and down, the token file good: its user signs in.
	good, _ := newTokens(t)
	bob := mustAdd(t, good, "bob")
	down := &fixed{down: true}
	url2, got2 := serve(t, MiddlewareOptions{Authenticators: []Authenticator{down, good}, ResourceMetadata: metadata})
	if a := post(t, url2, "Bearer "+bob); a.Status != 200 {
		t.Fatalf("a token file's token with the provider down: %+v, want 200", a)
	}
	if s := <-got2; s.Principal.Name != "bob" {
		t.Errorf("signed in as %+v", s.Principal)
	}
	if a := post(t, url2, "Bearer braid_unknown"); a.Status != http.StatusServiceUnavailable {
		t.Errorf("an unknown token with the provider down: %+v, want 503", a)
	}
}

// A token from a token file signs in over HTTP; revoked, it is refused on
// the next request, the server unchanged. No metadata address: no empty
// resource_metadata in the challenge.
func TestMiddlewareTokensRevocation(t *testing.T) {
	tk, _ := newTokens(t)
	alice := mustAdd(t, tk, "alice", "eng")
	url, got := serve(t, MiddlewareOptions{Authenticators: []Authenticator{tk}})
	if a := post(t, url, "Bearer "+alice); a.Status != 200 {
		t.Fatalf("alice: %+v", a)
	}
	if s := <-got; s.Principal.Name != "alice" || s.Authorization != "" {
		t.Errorf("the handler saw %+v", s)
	}
	if _, err := tk.Revoke("alice"); err != nil {
		t.Fatal(err)
	}
	if a := post(t, url, "Bearer "+alice); a != (answer{401, `Bearer error="invalid_token"`}) {
		t.Errorf("alice revoked: %+v, want 401 Bearer error=\"invalid_token\"", a)
	}
}
