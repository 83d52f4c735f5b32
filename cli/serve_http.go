package cli

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/braidsearch/braid/auth"
	"github.com/braidsearch/braid/mcpserver"
	"github.com/braidsearch/braid/mcpserver/remote"
	"github.com/braidsearch/braid/policy"
)

// httpFlags are braid serve's flags for serving over HTTP (--http).
type httpFlags struct {
	HTTP          string        `name:"http" help:"Serve MCP over Streamable HTTP on this address (e.g. 127.0.0.1:8080, :8443) at /mcp, for many users, instead of on stdin and stdout. An address beyond loopback needs --auth-tokens or --auth-issuer. See docs/server.md." placeholder:"ADDR"`
	PublicURL     string        `name:"public-url" help:"The server's URL as clients reach it (e.g. https://braid.example.com; the endpoint is then …/mcp): the resource the sign-in metadata names, the audience of --auth-issuer's tokens, and the one browser origin allowed besides --allowed-origin." placeholder:"URL"`
	AuthIssuer    string        `name:"auth-issuer" help:"Accept access tokens (JWT) from this OAuth 2.1 / OpenID Connect identity provider, checked against its published keys; needs --public-url." placeholder:"URL"`
	AuthAudience  []string      `name:"auth-audience" help:"An audience --auth-issuer's tokens may carry besides --public-url (some providers put the client id there) (repeatable)." placeholder:"AUD"`
	AuthScope     []string      `name:"auth-scope" help:"An OAuth scope every access token must carry; without it a request is answered 403 insufficient_scope (repeatable)." placeholder:"SCOPE"`
	AuthTokens    string        `name:"auth-tokens" help:"Accept the tokens of this token file (braid tokens add); revoking one takes effect without a restart." type:"path" placeholder:"FILE"`
	Policy        string        `help:"The grants file: which sources and tools each user or group gets (docs/server.md). Without it every signed-in user gets every source and the server's whole tool set." type:"path" placeholder:"FILE"`
	Audit         string        `help:"Append one JSON line per tool call to this file: time, user, tool, sources, result count, status, duration." type:"path" placeholder:"FILE"`
	AuditQueries  bool          `name:"audit-queries" help:"Put each call's query text in the --audit log too."`
	Rate          float64       `help:"Each user's requests a second on /mcp; past it a request is answered 429 with Retry-After (default 0: no limit)." placeholder:"N"`
	MaxInflight   int           `name:"max-inflight" help:"The most /mcp requests answered at once; one more waits at most 50 ms for a slot, then is answered 503 with Retry-After (default 4 per CPU core: searches are CPU work, and more at once only wait longer)." placeholder:"N"`
	MaxLag        time.Duration `name:"max-lag" help:"Answer /mcp requests 503 with Retry-After, before any work, while the server is this far behind (its goroutines waiting for a core): the bound for a server whose CPU is the limit, where requests wait unread in the sockets, out of --max-inflight's sight (default 0: none; e.g. 50ms)." placeholder:"DURATION"`
	MaxBody       ByteSize      `name:"max-body" help:"The largest request body; a larger one is answered 413." default:"4MiB" placeholder:"SIZE"`
	TLSCert       string        `name:"tls-cert" help:"Serve HTTPS with this certificate (PEM; with --tls-key). Without it, serve plain HTTP behind a TLS proxy." type:"path" placeholder:"FILE"`
	TLSKey        string        `name:"tls-key" help:"The private key of --tls-cert (PEM)." type:"path" placeholder:"FILE"`
	AllowedOrigin []string      `name:"allowed-origin" help:"A browser origin (scheme://host[:port]) allowed to call /mcp besides --public-url's; a request with any other Origin header is refused 403 (repeatable)." placeholder:"ORIGIN"`
	Drain         time.Duration `help:"On SIGTERM or Ctrl-C: how long the requests under way get to finish before they are cancelled and the index closes." default:"10s" placeholder:"DURATION"`
	SessionKey    string        `name:"session-key" help:"The key that signs 2025-11-25 clients' session ids, created (32 random bytes) if missing; give every server behind one load balancer the same file, and a session holds on any of them (default: a fresh key each start, so sessions hold on this server alone)." type:"path" placeholder:"FILE"`
}

// openTokens opens the token file --auth-tokens names, refusing one that
// holds no token: a server no one can sign in to is a mistake.
func openTokens(file string) (auth.Authenticator, error) {
	t, err := auth.OpenTokens(file)
	if err != nil {
		return nil, fmt.Errorf("--auth-tokens: %w", err)
	}
	list, err := t.List()
	if err != nil {
		return nil, fmt.Errorf("--auth-tokens: %w", err)
	}
	if len(list) == 0 {
		return nil, fmt.Errorf("--auth-tokens %s holds no token: add one with braid tokens add NAME --file %s", file, file)
	}
	return t, nil
}

// newIssuer accepts the access tokens of the identity provider at issuer
// whose audience is one of audiences.
func newIssuer(ctx context.Context, issuer string, audiences []string) (auth.Authenticator, error) {
	a, err := auth.NewIssuer(ctx, auth.IssuerOptions{URL: issuer, Audiences: audiences})
	if err != nil {
		return nil, fmt.Errorf("--auth-issuer: %w", err)
	}
	return a, nil
}

// loadPolicy reads the grants file into opt and returns, for the audit
// log, the sources a user's grants give ("*" for all).
func loadPolicy(file string, opt *mcpserver.Options) (func(*auth.Principal) []string, error) {
	p, err := policy.Load(file)
	if err != nil {
		return nil, fmt.Errorf("--policy: %w", err)
	}
	opt.Policy = p
	return func(who *auth.Principal) []string {
		a := p.For(who)
		if a.AllSources {
			return []string{"*"}
		}
		return a.Sources
	}, nil
}

// check refuses flags that need --http without it, and an --http server
// that would be open to the network without sign-in.
func (f *httpFlags) check() error {
	if f.HTTP == "" {
		for flag, set := range map[string]bool{"--public-url": f.PublicURL != "", "--auth-issuer": f.AuthIssuer != "",
			"--auth-audience": len(f.AuthAudience) > 0, "--auth-scope": len(f.AuthScope) > 0, "--auth-tokens": f.AuthTokens != "",
			"--policy": f.Policy != "", "--audit": f.Audit != "", "--audit-queries": f.AuditQueries, "--rate": f.Rate != 0,
			"--tls-cert": f.TLSCert != "", "--tls-key": f.TLSKey != "", "--allowed-origin": len(f.AllowedOrigin) > 0,
			"--session-key": f.SessionKey != ""} {
			if set {
				return fmt.Errorf("%s is for serving over HTTP: add --http ADDR", flag)
			}
		}
		return nil
	}
	host, _, err := net.SplitHostPort(f.HTTP)
	if err != nil {
		return fmt.Errorf("--http %s: want host:port, e.g. 127.0.0.1:8080 or :8443", f.HTTP)
	}
	if !loopbackHost(host) && f.AuthIssuer == "" && f.AuthTokens == "" {
		return fmt.Errorf("--http %s is reachable beyond this machine, so it needs sign-in: pass --auth-tokens FILE or --auth-issuer URL (or listen on 127.0.0.1)", f.HTTP)
	}
	if f.AuthIssuer != "" && f.PublicURL == "" {
		return errors.New("--auth-issuer needs --public-url: the server's URL is the audience its tokens must name")
	}
	if (f.TLSCert == "") != (f.TLSKey == "") {
		return errors.New("--tls-cert and --tls-key go together: pass both, or neither to serve plain HTTP")
	}
	if f.Rate < 0 || f.MaxInflight < 0 || f.MaxBody < 1 || f.Drain < 0 || f.MaxLag < 0 {
		return errors.New("--rate, --drain, --max-inflight, --max-lag want 0 or more; --max-body 1 or more")
	}
	if !f.AuditQueries || f.Audit != "" {
		return nil
	}
	return errors.New("--audit-queries puts queries in the --audit log: add --audit FILE")
}

// loopbackHost says whether a listening host reaches only this machine.
func loopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(strings.Trim(host, "[]"))
	return err == nil && ip.IsLoopback()
}

// serveHTTP serves srv on --http until the process is told to stop, then
// drains and closes it. Its log lines (the address first) go to logs.
func (f *httpFlags) serveHTTP(ctx context.Context, srv *mcpserver.Server, logs io.Writer, grants func(*auth.Principal) []string) (err error) {
	opt := &remote.Options{PublicURL: f.PublicURL, Scopes: f.AuthScope, AllowedOrigins: f.AllowedOrigin, Rate: f.Rate,
		MaxInFlight: f.MaxInflight, MaxLag: f.MaxLag, MaxBody: int64(f.MaxBody), Drain: f.Drain, TLSCert: f.TLSCert, TLSKey: f.TLSKey,
		AuditQueries: f.AuditQueries, Grants: grants, Log: logs}
	closeAll := func() { _ = srv.Close() } // what ends the engine if serving never starts
	defer func() {
		if closeAll != nil {
			closeAll()
		}
	}()
	if f.AuthTokens != "" {
		a, err := openTokens(f.AuthTokens)
		if err != nil {
			return err
		}
		opt.Authenticators = append(opt.Authenticators, a)
	}
	if f.AuthIssuer != "" {
		a, err := newIssuer(ctx, f.AuthIssuer, append([]string{f.PublicURL}, f.AuthAudience...))
		if err != nil {
			return err
		}
		opt.Authenticators = append(opt.Authenticators, a)
		opt.Issuers = []string{f.AuthIssuer}
	}
	if f.SessionKey != "" {
		if opt.SessionKey, err = sessionKey(f.SessionKey); err != nil {
			return err
		}
	}
	if f.Audit != "" {
		a, err := os.OpenFile(f.Audit, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			return fmt.Errorf("--audit: %w", err)
		}
		defer a.Close()
		opt.Audit = a
	}
	rs, err := remote.New(srv, opt)
	if err != nil {
		return errors.New(strings.TrimPrefix(err.Error(), "remote: "))
	}
	ln, err := net.Listen("tcp", f.HTTP)
	if err != nil {
		return fmt.Errorf("--http: %w", err)
	}
	scheme := "http"
	if f.TLSCert != "" {
		scheme = "https"
	}
	signIn := "no sign-in (loopback only)"
	if len(opt.Authenticators) > 0 {
		signIn = "sign-in required"
	}
	fmt.Fprintf(logs, "braid serve: MCP on %s://%s/mcp, %s; /healthz, /metrics\n", scheme, ln.Addr(), signIn)
	closeAll = nil // Serve closes the engine
	return rs.Serve(ctx, ln)
}

// sessionKey reads the session key file, creating it with 32 random bytes
// (only its owner may read it) when it does not exist. The key is written
// to a temporary file linked into place, so that a server starting at the
// same moment never reads a file that is not written yet.
func sessionKey(file string) ([]byte, error) {
	key, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		key = make([]byte, 32)
		_, _ = rand.Read(key)
		f, err := os.CreateTemp(filepath.Dir(file), ".session-key-*") // mode 0600
		if err != nil {
			return nil, fmt.Errorf("--session-key: %w", err)
		}
		defer os.Remove(f.Name())
		_, werr := f.Write(key)
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr == nil {
			werr = os.Link(f.Name(), file)
		}
		if errors.Is(werr, fs.ErrExist) { // another server made it first
			return sessionKey(file)
		}
		if werr != nil {
			return nil, fmt.Errorf("--session-key: %w", werr)
		}
		return key, nil
	}
	if err != nil {
		return nil, fmt.Errorf("--session-key: %w", err)
	}
	if len(key) < 32 {
		return nil, fmt.Errorf("--session-key %s holds %d bytes, want 32 or more; remove it and braid serve makes a new one", file, len(key))
	}
	return key, nil
}
