package auth

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// IssuerOptions say which identity provider's access tokens an Issuer
// accepts, and for whom.
type IssuerOptions struct {
	// URL is the issuer, exactly as its tokens' iss claim and its
	// metadata's issuer say it (https://login.example.com/realms/x). Its
	// metadata is read from /.well-known/openid-configuration, or RFC
	// 8414's /.well-known/oauth-authorization-server. It must be https,
	// or http on a loopback address.
	URL string
	// Audiences are the aud values accepted: the server's public URL
	// (its RFC 8707 resource), and any other the provider puts there
	// (some put the client's id). A token must name one. Required.
	Audiences []string
	// UserClaim names the claim that is the Principal's Name; "" means
	// "sub".
	UserClaim string
	// GroupsClaim names the claim that holds the Principal's Groups (a
	// list of strings, or one string); "" means "groups".
	GroupsClaim string
	// Algorithms are the signature algorithms accepted; nil means RS256,
	// ES256, PS256 and EdDSA. "none" and the HMAC ones (HS256…) are
	// refused: a resource server has no shared secret with the provider.
	Algorithms []string
	// Skew is the clock difference allowed on exp, nbf and iat; 0 means
	// one minute.
	Skew time.Duration
	// HTTPClient fetches the provider's metadata and keys; nil means a
	// client with a 10 second timeout.
	HTTPClient *http.Client
}

// Issuer accepts the JWT access tokens (RFC 9068) of one OAuth 2.1 /
// OpenID Connect identity provider: signed by a key of the provider's
// JWKS with an allowed algorithm, of its iss, for one of the accepted
// audiences, and within exp and nbf. It is an Authenticator and safe for
// concurrent use.
//
// The provider's keys are fetched once by NewIssuer and kept. A token
// whose kid is not among them makes the Issuer fetch the keys again (a
// rotation at the provider), but at most once per refetchFloor: a flood
// of tokens naming unknown kids costs the provider one request. Keys
// older than keysMaxAge are fetched again on the next token, so a key the
// provider withdrew stops being accepted; if that fetch fails the kept
// keys stay in use.
//
// Caveat: a provider's ID tokens are JWTs signed by the same keys, with
// the client's id as aud. Put a client id in Audiences only for a
// provider that cannot put the server's URL in its access tokens' aud:
// that client's ID tokens are then accepted too.
type Issuer struct {
	url       string
	audiences jwt.Audience
	user      string
	groups    string
	algs      []jose.SignatureAlgorithm
	skew      time.Duration
	client    *http.Client
	jwksURL   string

	fetchMu sync.Mutex // one fetch of the keys at a time

	mu          sync.Mutex
	keys        jose.JSONWebKeySet
	fetched     time.Time // the last successful fetch
	lastRefetch time.Time // the last fetch a token caused
}

const (
	// refetchFloor is the least time between two fetches of the keys
	// caused by tokens.
	refetchFloor = time.Minute
	// keysMaxAge is how long fetched keys are used before being fetched
	// again.
	keysMaxAge = time.Hour
	// maxDocument bounds the provider's metadata and key set.
	maxDocument = 1 << 20
)

// defaultAlgorithms are the signature algorithms an Issuer accepts when
// IssuerOptions.Algorithms is nil.
var defaultAlgorithms = []jose.SignatureAlgorithm{jose.RS256, jose.ES256, jose.PS256, jose.EdDSA}

// asymmetric are the algorithms an Issuer may accept.
var asymmetric = []jose.SignatureAlgorithm{
	jose.RS256, jose.RS384, jose.RS512,
	jose.PS256, jose.PS384, jose.PS512,
	jose.ES256, jose.ES384, jose.ES512,
	jose.EdDSA,
}

// NewIssuer checks o, reads the provider's metadata and fetches its keys.
// ctx bounds these first requests only.
func NewIssuer(ctx context.Context, o IssuerOptions) (*Issuer, error) {
	u, err := url.Parse(o.URL)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return nil, fmt.Errorf("auth: issuer URL %q is not an absolute http(s) URL", o.URL)
	}
	if u.Scheme == "http" && !loopback(u.Hostname()) {
		return nil, fmt.Errorf("auth: issuer URL %q must be https (http is allowed on loopback only)", o.URL)
	}
	if len(o.Audiences) == 0 || slices.Contains(o.Audiences, "") {
		return nil, errors.New("auth: an issuer needs its accepted audiences: the server's public URL, or what the provider puts in aud")
	}
	iss := &Issuer{
		url:       o.URL,
		audiences: jwt.Audience(slices.Clone(o.Audiences)),
		user:      cmp.Or(o.UserClaim, "sub"),
		groups:    cmp.Or(o.GroupsClaim, "groups"),
		algs:      defaultAlgorithms,
		skew:      o.Skew,
		client:    o.HTTPClient,
	}
	if o.Algorithms != nil {
		iss.algs = nil
		for _, a := range o.Algorithms {
			alg := jose.SignatureAlgorithm(a)
			if !slices.Contains(asymmetric, alg) {
				return nil, fmt.Errorf("auth: signature algorithm %q refused, want one of %v (never none or HMAC)", a, asymmetric)
			}
			iss.algs = append(iss.algs, alg)
		}
		if len(iss.algs) == 0 {
			return nil, errors.New("auth: no signature algorithm accepted: leave Algorithms nil for the defaults")
		}
	}
	if iss.skew == 0 {
		iss.skew = time.Minute
	}
	if iss.skew < 0 {
		return nil, fmt.Errorf("auth: clock skew %v is negative", o.Skew)
	}
	if iss.client == nil {
		iss.client = &http.Client{Timeout: 10 * time.Second}
	}
	if iss.jwksURL, err = iss.discover(ctx, u); err != nil {
		return nil, err
	}
	iss.fetchMu.Lock()
	defer iss.fetchMu.Unlock()
	if err := iss.fetch(ctx); err != nil {
		return nil, err
	}
	return iss, nil
}

// Authenticate implements Authenticator: the token's Principal, or an
// error wrapping ErrInvalidToken when the token is refused, or another
// error when the provider's keys are out of reach.
func (iss *Issuer) Authenticate(ctx context.Context, token string) (*Principal, error) {
	tok, err := jwt.ParseSigned(token, iss.algs)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidToken, err)
	}
	if len(tok.Headers) != 1 {
		return nil, fmt.Errorf("%w: %d signatures, want one", ErrInvalidToken, len(tok.Headers))
	}
	h := tok.Headers[0]
	key, err := iss.key(ctx, h.KeyID, h.Algorithm)
	if err != nil {
		return nil, err
	}
	var std jwt.Claims
	var all map[string]any
	if err := tok.Claims(key.Key, &std, &all); err != nil {
		return nil, fmt.Errorf("%w: not signed by the issuer's key %q: %v", ErrInvalidToken, key.KeyID, err)
	}
	if std.Expiry == nil {
		return nil, fmt.Errorf("%w: no exp", ErrInvalidToken)
	}
	if err := std.ValidateWithLeeway(jwt.Expected{Issuer: iss.url, AnyAudience: iss.audiences}, iss.skew); err != nil {
		return nil, fmt.Errorf("%w: %v (iss %q, aud %v)", ErrInvalidToken, err, std.Issuer, []string(std.Audience))
	}
	p := &Principal{Scopes: []string{}} // never nil: Middleware checks an issuer's scopes
	p.Name, _ = all[iss.user].(string)
	if p.Name == "" {
		return nil, fmt.Errorf("%w: no %s claim naming the user", ErrInvalidToken, iss.user)
	}
	p.Groups = stringsClaim(all[iss.groups], false)
	if s, ok := all["scope"].(string); ok {
		p.Scopes = append(p.Scopes, strings.Fields(s)...)
	} else {
		p.Scopes = append(p.Scopes, stringsClaim(all["scp"], true)...)
	}
	return p, nil
}

// key returns the provider's key of kid for alg, fetching the keys again
// when kid is unknown and the floor allows.
func (iss *Issuer) key(ctx context.Context, kid, alg string) (*jose.JSONWebKey, error) {
	iss.mu.Lock()
	k, known := iss.lookup(kid, alg)
	stale := time.Since(iss.fetched) > keysMaxAge
	iss.mu.Unlock()
	if known && !stale {
		return k, nil
	}
	iss.fetchMu.Lock()
	defer iss.fetchMu.Unlock()
	iss.mu.Lock()
	k, known = iss.lookup(kid, alg) // another token's fetch may have brought it
	stale = time.Since(iss.fetched) > keysMaxAge
	floor := time.Since(iss.lastRefetch) < refetchFloor
	iss.mu.Unlock()
	switch {
	case known && !stale:
		return k, nil
	case floor && known:
		return k, nil // stale, but a fetch was tried lately
	case floor:
		return nil, fmt.Errorf("%w: no key %q at the issuer (its keys were fetched less than %v ago)", ErrInvalidToken, kid, refetchFloor)
	}
	iss.mu.Lock()
	iss.lastRefetch = time.Now()
	iss.mu.Unlock()
	if err := iss.fetch(ctx); err != nil {
		if known {
			return k, nil // keep the kept keys while the provider is out of reach
		}
		return nil, err
	}
	iss.mu.Lock()
	defer iss.mu.Unlock()
	if k, known = iss.lookup(kid, alg); known {
		return k, nil
	}
	return nil, fmt.Errorf("%w: no key %q for %s at the issuer", ErrInvalidToken, kid, alg)
}

// lookup finds the key of kid (any key when kid is "" and the provider
// has one) usable with alg. iss.mu is held.
func (iss *Issuer) lookup(kid, alg string) (*jose.JSONWebKey, bool) {
	keys := iss.keys.Keys
	if kid != "" {
		keys = iss.keys.Key(kid)
	} else if len(keys) != 1 {
		return nil, false
	}
	for i := range keys {
		k := &keys[i]
		if (k.Use == "" || k.Use == "sig") && (k.Algorithm == "" || k.Algorithm == alg) && k.IsPublic() {
			return k, true
		}
	}
	return nil, false
}

// fetch reads the provider's key set. iss.fetchMu is held.
func (iss *Issuer) fetch(ctx context.Context) error {
	var set jose.JSONWebKeySet
	if err := iss.get(ctx, iss.jwksURL, &set); err != nil {
		return fmt.Errorf("auth: the issuer's keys: %w", err)
	}
	usable := set.Keys[:0]
	for _, k := range set.Keys {
		if k.Valid() && k.IsPublic() {
			usable = append(usable, k)
		}
	}
	set.Keys = usable
	iss.mu.Lock()
	defer iss.mu.Unlock()
	iss.keys = set
	iss.fetched = time.Now()
	return nil
}

// discover reads the provider's metadata, OpenID Connect's or RFC
// 8414's, and returns its jwks_uri.
func (iss *Issuer) discover(ctx context.Context, u *url.URL) (string, error) {
	var errs []error
	for _, at := range metadataURLs(u) {
		var meta struct {
			Issuer  string `json:"issuer"`
			JWKSURI string `json:"jwks_uri"`
		}
		if err := iss.get(ctx, at, &meta); err != nil {
			errs = append(errs, err)
			continue
		}
		if meta.Issuer != iss.url {
			return "", fmt.Errorf("auth: %s names the issuer %q, want %q: set the issuer URL exactly as the provider names itself", at, meta.Issuer, iss.url)
		}
		if meta.JWKSURI == "" {
			return "", fmt.Errorf("auth: %s has no jwks_uri: the issuer does not publish its signing keys", at)
		}
		return meta.JWKSURI, nil
	}
	return "", fmt.Errorf("auth: the issuer's metadata: %w", errors.Join(errs...))
}

// metadataURLs returns where the issuer u publishes its metadata: OpenID
// Connect Discovery's {u}/.well-known/openid-configuration, then RFC
// 8414's {host}/.well-known/oauth-authorization-server{path}.
func metadataURLs(u *url.URL) []string {
	path := strings.TrimSuffix(u.EscapedPath(), "/")
	root := url.URL{Scheme: u.Scheme, Host: u.Host}
	return []string{
		root.String() + path + "/.well-known/openid-configuration",
		root.String() + "/.well-known/oauth-authorization-server" + path,
	}
}

// get reads the JSON document at u into v.
func (iss *Issuer) get(ctx context.Context, u string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := iss.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", u, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxDocument+1))
	if err != nil {
		return fmt.Errorf("GET %s: %w", u, err)
	}
	if len(body) > maxDocument {
		return fmt.Errorf("GET %s: over %d bytes", u, maxDocument)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("GET %s: %w", u, err)
	}
	return nil
}

// stringsClaim reads a claim that is a list of strings, or one string
// (split on spaces when split is set).
func stringsClaim(v any, split bool) []string {
	switch v := v.(type) {
	case string:
		if split {
			return strings.Fields(v)
		}
		if v == "" {
			return nil
		}
		return []string{v}
	case []any:
		var out []string
		for _, e := range v {
			if s, ok := e.(string); ok && s != "" {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// loopback says whether host is a loopback address or localhost.
func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
