// Package oidctest runs a real OpenID provider on 127.0.0.1 for tests:
// zitadel/oidc's op package (a certified OpenID Connect provider library)
// over its example in-memory storage, extended with service clients that
// get JWT access tokens by the client-credentials grant and with a signing
// key the test can rotate. Nothing in it fakes the provider's protocol:
// discovery, the JWKS and the token endpoint are the library's own.
//
// API:
//
//	p := oidctest.Start(t, oidctest.Client{ID: "alice", Groups: []string{"eng"}, Audience: []string{resourceURL}})
//	p.URL                        // the issuer (http://127.0.0.1:port), also its discovery base
//	tok := p.Token(t, "alice", "braid")  // a client-credentials access token (a JWT, RS256)
//	kid, key := p.SigningKey()   // the key the provider signs with now, to craft tokens
//	p.Rotate(t)                  // a new signing key; the JWKS publishes the new and the old
//	p.KeyFetches()               // how many times the JWKS was served
//	p.Stop()                     // the provider out of reach (also done by t.Cleanup)
//
// An access token's claims: iss (p.URL), sub (the client's ID), aud (the
// client's Audience, or its ID when none), exp (five minutes on), iat,
// nbf, jti, client_id, scope (the requested scopes, space-separated) and
// groups (the client's Groups). The provider is shut down by t.Cleanup.
package oidctest

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/google/uuid"
	"github.com/zitadel/oidc/v3/example/server/storage"
	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
	"golang.org/x/text/language"
)

// Client is a service client of the provider: it gets access tokens by
// the client-credentials grant, with its ID as their subject.
type Client struct {
	// ID is the client's id and its tokens' sub.
	ID string
	// Secret is the client's secret; empty means ID + "-secret".
	Secret string
	// Groups go into its tokens' groups claim (omitted when empty).
	Groups []string
	// Audience is its tokens' aud; empty means the client's ID.
	Audience []string
}

// Provider is a running OpenID provider.
type Provider struct {
	// URL is the issuer: the iss of its tokens and the base of its
	// /.well-known/openid-configuration.
	URL string

	store   *store
	fetches atomic.Int64
	srv     *http.Server
}

// Start starts a provider on 127.0.0.1 with the given service clients,
// and stops it when the test ends.
func Start(t testing.TB, clients ...Client) *Provider {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("oidctest: listen: %v", err)
	}
	issuer := "http://" + ln.Addr().String()
	s := &store{
		Storage: storage.NewStorage(storage.NewUserStore(issuer)),
		clients: map[string]Client{},
	}
	for _, c := range clients {
		if c.Secret == "" {
			c.Secret = c.ID + "-secret"
		}
		s.clients[c.ID] = c
	}
	s.rotate()
	config := &op.Config{
		CryptoKey:          sha256.Sum256([]byte("oidctest")),
		CodeMethodS256:     true,
		AuthMethodPost:     true,
		SupportedUILocales: []language.Tag{language.English},
	}
	provider, err := op.NewProvider(config, s, op.StaticIssuer(issuer), op.WithAllowInsecure())
	if err != nil {
		t.Fatalf("oidctest: new provider: %v", err)
	}
	p := &Provider{URL: issuer, store: s}
	keys := op.DefaultEndpoints.JwksURI.Relative()
	p.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == keys {
			p.fetches.Add(1)
		}
		provider.ServeHTTP(w, r)
	})}
	go p.srv.Serve(ln) //nolint:errcheck // ends with Close
	t.Cleanup(p.Stop)
	return p
}

// Stop shuts the provider down (its address then refuses connections), as
// a provider out of reach; the test's end does it too.
func (p *Provider) Stop() { p.srv.Close() }

// Token returns an access token the provider issues to the client by the
// client-credentials grant, asking for scopes.
func (p *Provider) Token(t testing.TB, clientID string, scopes ...string) string {
	t.Helper()
	tok, err := p.token(clientID, scopes)
	if err != nil {
		t.Fatalf("oidctest: token for %s: %v", clientID, err)
	}
	return tok
}

func (p *Provider) token(clientID string, scopes []string) (string, error) {
	c, ok := p.store.client(clientID)
	if !ok {
		return "", fmt.Errorf("no client %q: pass it to Start", clientID)
	}
	form := url.Values{"grant_type": {string(oidc.GrantTypeClientCredentials)}, "scope": {strings.Join(scopes, " ")}}
	req, err := http.NewRequest(http.MethodPost, op.DefaultEndpoints.Token.Absolute(p.URL), strings.NewReader(form.Encode()))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(url.QueryEscape(c.ID), url.QueryEscape(c.Secret))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("token endpoint: %s: %s", resp.Status, body)
	}
	var r oidc.AccessTokenResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return "", err
	}
	if r.AccessToken == "" {
		return "", errors.New("token endpoint: no access_token")
	}
	return r.AccessToken, nil
}

// SigningKey returns the key the provider signs tokens with now, and its
// kid, so a test can craft tokens the provider could have issued.
func (p *Provider) SigningKey() (kid string, key *rsa.PrivateKey) {
	k := p.store.current()
	return k.id, k.key
}

// Rotate makes a new signing key current and returns its kid. The JWKS
// publishes it beside the old ones, as a provider does in a rotation.
func (p *Provider) Rotate(t testing.TB) string {
	t.Helper()
	return p.store.rotate().id
}

// KeyFetches returns how many times the provider has served its JWKS.
func (p *Provider) KeyFetches() int { return int(p.fetches.Load()) }

// store is the example storage with service clients issuing JWT access
// tokens with groups and scope claims, and rotating signing keys.
type store struct {
	*storage.Storage
	clients map[string]Client // read-only after Start

	mu   sync.Mutex
	keys []*signingKey // the last is current
}

func (s *store) client(id string) (Client, bool) {
	c, ok := s.clients[id]
	return c, ok
}

func (s *store) rotate() *signingKey {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(fmt.Sprintf("oidctest: generate key: %v", err))
	}
	k := &signingKey{id: uuid.NewString(), key: key}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.keys = append(s.keys, k)
	return k
}

func (s *store) current() *signingKey {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.keys[len(s.keys)-1]
}

// SigningKey implements op.Storage: the current key.
func (s *store) SigningKey(context.Context) (op.SigningKey, error) { return s.current(), nil }

// SignatureAlgorithms implements op.Storage.
func (s *store) SignatureAlgorithms(context.Context) ([]jose.SignatureAlgorithm, error) {
	return []jose.SignatureAlgorithm{jose.RS256}, nil
}

// KeySet implements op.Storage: every key, old and current.
func (s *store) KeySet(context.Context) ([]op.Key, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	keys := make([]op.Key, len(s.keys))
	for i, k := range s.keys {
		keys[i] = publicKey{k}
	}
	return keys, nil
}

// ClientCredentials implements op.ClientCredentialsStorage.
func (s *store) ClientCredentials(_ context.Context, clientID, clientSecret string) (op.Client, error) {
	c, ok := s.client(clientID)
	if !ok || c.Secret != clientSecret {
		return nil, errors.New("wrong client id or secret")
	}
	return serviceClient{storage.WebClient(c.ID, c.Secret)}, nil
}

// ClientCredentialsTokenRequest implements op.ClientCredentialsStorage.
func (s *store) ClientCredentialsTokenRequest(_ context.Context, clientID string, scopes []string) (op.TokenRequest, error) {
	c, ok := s.client(clientID)
	if !ok {
		return nil, errors.New("wrong client id")
	}
	return &oidc.JWTTokenRequest{Subject: c.ID, Audience: c.Audience, Scopes: scopes}, nil
}

// GetPrivateClaimsFromScopes implements op.Storage: the claims a JWT
// access token carries beside the registered ones.
func (s *store) GetPrivateClaimsFromScopes(_ context.Context, userID, clientID string, scopes []string) (map[string]any, error) {
	claims := map[string]any{}
	if len(scopes) > 0 {
		claims["scope"] = strings.Join(scopes, " ")
	}
	if c, ok := s.client(clientID); ok && len(c.Groups) > 0 {
		claims["groups"] = c.Groups
	}
	return claims, nil
}

// serviceClient is a client of the client-credentials grant whose access
// tokens are JWTs.
type serviceClient struct{ *storage.Client }

func (serviceClient) GrantTypes() []oidc.GrantType {
	return []oidc.GrantType{oidc.GrantTypeClientCredentials}
}
func (serviceClient) AccessTokenType() op.AccessTokenType { return op.AccessTokenTypeJWT }
func (serviceClient) IsScopeAllowed(string) bool          { return true }

type signingKey struct {
	id  string
	key *rsa.PrivateKey
}

func (k *signingKey) SignatureAlgorithm() jose.SignatureAlgorithm { return jose.RS256 }
func (k *signingKey) Key() any                                    { return k.key }
func (k *signingKey) ID() string                                  { return k.id }

type publicKey struct{ k *signingKey }

func (p publicKey) ID() string                         { return p.k.id }
func (p publicKey) Algorithm() jose.SignatureAlgorithm { return jose.RS256 }
func (p publicKey) Use() string                        { return "sig" }
func (p publicKey) Key() any                           { return &p.k.key.PublicKey }
