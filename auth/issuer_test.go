package auth

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/google/go-cmp/cmp"

	"github.com/braidsearch/braid/internal/oidctest"
)

// resource is the braid server's public URL: the audience its tokens name.
const resource = "https://braid.example.com/mcp"

// startProvider starts a real OpenID provider (zitadel/oidc's op) with
// the clients the tests use.
func startProvider(t *testing.T) *oidctest.Provider {
	t.Helper()
	return oidctest.Start(t,
		oidctest.Client{ID: "alice", Groups: []string{"eng", "ops"}, Audience: []string{resource}},
		oidctest.Client{ID: "bob"}, // aud is the client's id, as some providers do
		oidctest.Client{ID: "carol", Audience: []string{"https://other.example.com"}},
	)
}

func newIssuer(t *testing.T, p *oidctest.Provider) *Issuer {
	t.Helper()
	iss, err := NewIssuer(t.Context(), IssuerOptions{URL: p.URL, Audiences: []string{resource, "bob"}})
	if err != nil {
		t.Fatalf("NewIssuer: %v", err)
	}
	return iss
}

// craft signs claims with key under kid and alg, as a forger (or, with the
// provider's key, the provider) would.
func craft(t *testing.T, alg jose.SignatureAlgorithm, key any, kid string, claims map[string]any) string {
	t.Helper()
	opts := (&jose.SignerOptions{}).WithType("at+jwt")
	if kid != "" {
		opts = opts.WithHeader(jose.HeaderKey("kid"), kid)
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: key}, opts)
	if err != nil {
		t.Fatalf("signer: %v", err)
	}
	tok, err := jwt.Signed(signer).Claims(claims).Serialize()
	if err != nil {
		t.Fatalf("sign: %v", err)
	}
	return tok
}

// claims are those of a good token of p for alice, changed by edit.
func claims(p *oidctest.Provider, edit func(map[string]any)) map[string]any {
	now := time.Now()
	c := map[string]any{
		"iss": p.URL, "sub": "alice", "aud": []string{resource},
		"iat": now.Unix(), "nbf": now.Unix(), "exp": now.Add(5 * time.Minute).Unix(),
		"scope": "braid", "groups": []string{"eng"},
	}
	if edit != nil {
		edit(c)
	}
	return c
}

func TestIssuerAcceptsProviderTokens(t *testing.T) {
	p := startProvider(t)
	iss := newIssuer(t, p)
	for _, tc := range []struct {
		name   string
		client string
		scopes []string
		want   *Principal
	}{
		{"aud the resource, groups and scopes", "alice", []string{"braid", "braid:write"},
			&Principal{Name: "alice", Groups: []string{"eng", "ops"}, Scopes: []string{"braid", "braid:write"}}},
		{"aud the client id, no scope", "bob", nil,
			&Principal{Name: "bob", Scopes: []string{}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := iss.Authenticate(t.Context(), p.Token(t, tc.client, tc.scopes...))
			if err != nil {
				t.Fatalf("Authenticate: %v", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("principal (-want +got):\n%s", diff)
			}
		})
	}
}

func TestIssuerRefusesTokens(t *testing.T) {
	p := startProvider(t)
	iss := newIssuer(t, p)
	kid, key := p.SigningKey()
	other, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	pubDER, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	pubPEM := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER})
	jwkJSON, err := json.Marshal(jose.JSONWebKey{Key: &key.PublicKey, KeyID: kid, Algorithm: "RS256", Use: "sig"})
	if err != nil {
		t.Fatal(err)
	}
	ago := func(d time.Duration) int64 { return time.Now().Add(-d).Unix() }

	for _, tc := range []struct {
		name  string
		token string
	}{
		{"not a JWT", "not-a-token"},
		{"provider token for another audience", p.Token(t, "carol", "braid")},
		{"expired past the skew", craft(t, jose.RS256, key, kid, claims(p, func(c map[string]any) {
			c["iat"], c["nbf"], c["exp"] = ago(time.Hour), ago(time.Hour), ago(2*time.Minute)
		}))},
		{"not yet valid past the skew", craft(t, jose.RS256, key, kid, claims(p, func(c map[string]any) {
			c["nbf"] = ago(-2 * time.Minute)
		}))},
		{"no exp", craft(t, jose.RS256, key, kid, claims(p, func(c map[string]any) { delete(c, "exp") }))},
		{"wrong audience", craft(t, jose.RS256, key, kid, claims(p, func(c map[string]any) {
			c["aud"] = []string{"https://braid.example.com/other"}
		}))},
		{"no audience", craft(t, jose.RS256, key, kid, claims(p, func(c map[string]any) { delete(c, "aud") }))},
		{"wrong issuer", craft(t, jose.RS256, key, kid, claims(p, func(c map[string]any) {
			c["iss"] = "https://evil.example.com"
		}))},
		{"issuer with a trailing slash", craft(t, jose.RS256, key, kid, claims(p, func(c map[string]any) {
			c["iss"] = p.URL + "/"
		}))},
		{"no subject", craft(t, jose.RS256, key, kid, claims(p, func(c map[string]any) { delete(c, "sub") }))},
		{"alg none", unsigned(t, kid, claims(p, nil))},
		{"re-signed by another key, same kid", craft(t, jose.RS256, other, kid, claims(p, nil))},
		{"re-signed by another key, its own kid", craft(t, jose.RS256, other, "forged-kid", claims(p, nil))},
		{"re-signed by another key, no kid", craft(t, jose.RS256, other, "", claims(p, nil))},
		{"HS256 keyed with the public key (DER)", craft(t, jose.HS256, pubDER, kid, claims(p, nil))},
		{"HS256 keyed with the public key (PEM)", craft(t, jose.HS256, pubPEM, kid, claims(p, nil))},
		{"HS256 keyed with the public JWK", craft(t, jose.HS256, jwkJSON, kid, claims(p, nil))},
		{"RS512, not an accepted algorithm", craft(t, jose.RS512, key, kid, claims(p, nil))},
		{"provider token with its signature cut", cut(p.Token(t, "alice", "braid"))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := iss.Authenticate(t.Context(), tc.token)
			if !errors.Is(err, ErrInvalidToken) {
				t.Fatalf("Authenticate = %+v, %v; want ErrInvalidToken", got, err)
			}
			if testing.Verbose() {
				t.Log(err)
			}
		})
	}

	// The same claims signed by the provider's key are accepted: the
	// refusals above are for what each case changed.
	t.Run("control", func(t *testing.T) {
		good := craft(t, jose.RS256, key, kid, claims(p, func(c map[string]any) {
			c["exp"] = ago(30 * time.Second) // expired, but within the skew
		}))
		if _, err := iss.Authenticate(t.Context(), good); err != nil {
			t.Fatalf("Authenticate: %v", err)
		}
	})
}

// unsigned returns a token of alg none.
func unsigned(t *testing.T, kid string, claims map[string]any) string {
	t.Helper()
	enc := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return base64.RawURLEncoding.EncodeToString(b)
	}
	return enc(map[string]string{"alg": "none", "typ": "JWT", "kid": kid}) + "." + enc(claims) + "."
}

// cut drops a token's signature's last bytes.
func cut(token string) string { return token[:len(token)-8] }

func TestIssuerKeyRotation(t *testing.T) {
	p := startProvider(t)
	iss := newIssuer(t, p)
	old := p.Token(t, "alice", "braid")
	before := p.KeyFetches()

	newKid := p.Rotate(t)
	tok := p.Token(t, "alice", "braid")
	if h := header(t, tok); h.KeyID != newKid {
		t.Fatalf("the provider signed with kid %q after rotating, want %q", h.KeyID, newKid)
	}
	if _, err := iss.Authenticate(t.Context(), tok); err != nil {
		t.Fatalf("a token of the new key: %v", err)
	}
	if got := p.KeyFetches() - before; got != 1 {
		t.Errorf("the issuer fetched the keys %d times for the new kid, want 1", got)
	}
	if _, err := iss.Authenticate(t.Context(), old); err != nil {
		t.Errorf("a token of the old key, still published: %v", err)
	}

	// A flood of unknown kids right after costs the provider nothing more.
	other, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		forged := craft(t, jose.RS256, other, "unknown-"+string(rune('a'+i)), claims(p, nil))
		if _, err := iss.Authenticate(t.Context(), forged); !errors.Is(err, ErrInvalidToken) {
			t.Fatalf("forged token %d: %v, want ErrInvalidToken", i, err)
		}
	}
	if got := p.KeyFetches() - before; got != 1 {
		t.Errorf("the issuer fetched the keys %d times in all, want 1 (the floor between refetches)", got)
	}
	if _, err := iss.Authenticate(t.Context(), p.Token(t, "alice")); err != nil {
		t.Errorf("a token of the new key after the flood: %v", err)
	}
}

func header(t *testing.T, token string) jose.Header {
	t.Helper()
	tok, err := jwt.ParseSigned(token, []jose.SignatureAlgorithm{jose.RS256})
	if err != nil {
		t.Fatal(err)
	}
	return tok.Headers[0]
}

func TestIssuerProviderOutOfReach(t *testing.T) {
	p := startProvider(t)
	iss := newIssuer(t, p)
	good := p.Token(t, "alice", "braid")
	p.Rotate(t)
	rotated := p.Token(t, "alice", "braid")
	p.Stop()

	// Kept keys keep working.
	if _, err := iss.Authenticate(t.Context(), good); err != nil {
		t.Errorf("a token of a kept key, provider down: %v", err)
	}
	// A new kid needs the provider: not the token's fault.
	_, err := iss.Authenticate(t.Context(), rotated)
	if err == nil || errors.Is(err, ErrInvalidToken) {
		t.Errorf("a token of a key not yet fetched, provider down: %v, want an error other than ErrInvalidToken", err)
	}
	if _, err := NewIssuer(t.Context(), IssuerOptions{URL: p.URL, Audiences: []string{resource}}); err == nil {
		t.Error("NewIssuer with the provider down: no error")
	}
}

func TestIssuerOptions(t *testing.T) {
	p := startProvider(t)
	for _, tc := range []struct {
		name string
		o    IssuerOptions
		want string // in the error
	}{
		{"alg none", IssuerOptions{URL: p.URL, Audiences: []string{resource}, Algorithms: []string{"RS256", "none"}}, `"none" refused`},
		{"HMAC", IssuerOptions{URL: p.URL, Audiences: []string{resource}, Algorithms: []string{"HS256"}}, `"HS256" refused`},
		{"no algorithm", IssuerOptions{URL: p.URL, Audiences: []string{resource}, Algorithms: []string{}}, "no signature algorithm"},
		{"no audience", IssuerOptions{URL: p.URL}, "audiences"},
		{"http off loopback", IssuerOptions{URL: "http://login.example.com", Audiences: []string{resource}}, "must be https"},
		{"not a URL", IssuerOptions{URL: "login.example.com", Audiences: []string{resource}}, "not an absolute"},
		{"negative skew", IssuerOptions{URL: p.URL, Audiences: []string{resource}, Skew: -time.Second}, "negative"},
		{"issuer named otherwise", IssuerOptions{URL: p.URL + "/", Audiences: []string{resource}}, "names the issuer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewIssuer(t.Context(), tc.o)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("NewIssuer: %v, want an error with %q", err, tc.want)
			}
		})
	}
}

func TestIssuerClaims(t *testing.T) {
	p := startProvider(t)
	kid, key := p.SigningKey()
	iss, err := NewIssuer(t.Context(), IssuerOptions{
		URL: p.URL, Audiences: []string{resource}, UserClaim: "preferred_username", GroupsClaim: "roles",
	})
	if err != nil {
		t.Fatal(err)
	}
	tok := craft(t, jose.RS256, key, kid, claims(p, func(c map[string]any) {
		c["preferred_username"] = "alice@example.com"
		c["roles"] = "admin"
		delete(c, "scope")
		c["scp"] = []string{"braid", "braid:write"}
	}))
	got, err := iss.Authenticate(t.Context(), tok)
	if err != nil {
		t.Fatal(err)
	}
	want := &Principal{Name: "alice@example.com", Groups: []string{"admin"}, Scopes: []string{"braid", "braid:write"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("principal (-want +got):\n%s", diff)
	}
}

// TestIssuerMiddleware checks an issuer's principal meets Middleware's
// scope check: a token without the required scope is 403, not let in.
func TestIssuerMiddleware(t *testing.T) {
	p := startProvider(t)
	h := Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		who, _ := From(r.Context())
		w.Write([]byte(who.Name))
	}), MiddlewareOptions{Authenticators: []Authenticator{newIssuer(t, p)}, ResourceMetadata: resource, Scopes: []string{"braid"}})
	for _, tc := range []struct {
		name   string
		token  string
		status int
	}{
		{"scope granted", p.Token(t, "alice", "braid"), http.StatusOK},
		{"scope missing", p.Token(t, "alice", "other"), http.StatusForbidden},
		{"no scope at all", p.Token(t, "bob"), http.StatusForbidden},
		{"another audience", p.Token(t, "carol", "braid"), http.StatusUnauthorized},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
			r.Header.Set("Authorization", "Bearer "+tc.token)
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != tc.status {
				t.Errorf("status %d, want %d (%s)", w.Code, tc.status, w.Body)
			}
		})
	}
}

func TestMetadataURLs(t *testing.T) {
	for _, tc := range []struct{ issuer, oidc, oauth string }{
		{"https://login.example.com", "https://login.example.com/.well-known/openid-configuration", "https://login.example.com/.well-known/oauth-authorization-server"},
		{"https://login.example.com/realms/team", "https://login.example.com/realms/team/.well-known/openid-configuration", "https://login.example.com/.well-known/oauth-authorization-server/realms/team"},
		{"https://login.example.com:8443/t/", "https://login.example.com:8443/t/.well-known/openid-configuration", "https://login.example.com:8443/.well-known/oauth-authorization-server/t"},
	} {
		u, err := url.Parse(tc.issuer)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{tc.oidc, tc.oauth}, metadataURLs(u)); diff != "" {
			t.Errorf("metadataURLs(%s) (-want +got):\n%s", tc.issuer, diff)
		}
	}
}

var _ Authenticator = (*Issuer)(nil)
