package remote

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/server"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/braidsearch/braid/auth"
	"github.com/braidsearch/braid/mcpserver"
)

// Options say how a Server serves. The zero value serves without sign-in,
// limits or audit, with the defaults below.
type Options struct {
	// PublicURL is the server's canonical URL as its clients reach it
	// (https://braid.example.com; the MCP endpoint is PublicURL + /mcp
	// when nothing in front rewrites paths). It is the resource of the
	// RFC 9728 metadata and the one origin browsers may send besides
	// AllowedOrigins. Empty means http://<listening address>.
	PublicURL string
	// Authenticators sign requests in (auth.Middleware); nil serves /mcp
	// without sign-in, which only a loopback address should do.
	Authenticators []auth.Authenticator
	// Issuers are the authorization servers the metadata names (the
	// identity provider behind an Issuer authenticator).
	Issuers []string
	// Scopes every token must carry (403 insufficient_scope without).
	Scopes []string
	// AllowedOrigins are further origins (scheme://host[:port]) whose
	// browsers may call /mcp; a request with any other Origin header is
	// refused 403. A request without one is allowed.
	AllowedOrigins []string
	// SessionKey signs the session ids of 2025-11-25 clients; servers
	// sharing a key accept each other's sessions (for the same user).
	// Nil means a random key, so sessions hold on this server alone.
	SessionKey []byte
	// Rate is each user's requests per second on /mcp (a token bucket of
	// Burst); past it a request is answered 429 with Retry-After. Zero
	// means no limit. Without sign-in every client shares one bucket.
	Rate float64
	// Burst is the bucket's size; zero means Rate rounded up, at least 1.
	Burst int
	// MaxInFlight bounds the /mcp requests answered at once; one more
	// waits at most 50 ms for a slot, then is answered 503 with
	// Retry-After. Zero means 4 per CPU (GOMAXPROCS).
	MaxInFlight int
	// MaxLag, when above zero, has a request answered 503 with
	// Retry-After at once while the server's goroutines wait longer than
	// MaxLag for a core (watchLag, the 90th percentile over 10 ms): the
	// bound that holds where the CPU, not MaxInFlight, is what requests
	// wait for. Zero means no such bound.
	MaxLag time.Duration
	// MaxBody bounds a request body; a larger one is answered 413. Zero
	// means 4 MiB.
	MaxBody int64
	// RequestTimeout bounds one /mcp request, tool call included: its
	// context ends then. Zero means 10 minutes.
	RequestTimeout time.Duration
	// Drain bounds how long Serve waits, once ctx ends, for the requests
	// under way before it cancels them. Zero means 10 seconds.
	Drain time.Duration
	// TLSCert and TLSKey, both set, serve HTTPS with that certificate.
	TLSCert, TLSKey string
	// Audit receives one JSON line (Entry) per tool call; nil keeps none.
	Audit io.Writer
	// AuditQueries puts each call's query text in the audit log.
	AuditQueries bool
	// Grants says which sources a user's calls are limited to (the
	// policy's grants), for the audit log; nil, or a list holding "*",
	// means every source.
	Grants func(*auth.Principal) []string
	// Log receives the server's log lines; nil discards them. Never the
	// process's stdout.
	Log io.Writer
}

const (
	// inFlightPerCPU is the default bound per CPU: searches are CPU
	// work, so more at once only queue inside the Go scheduler, past the
	// bound's reach (make bench-serve at twice the sustainable rate on one
	// core: 64 at once held accepted requests' p99 at 5.7 s, 4 at 0.63 s).
	inFlightPerCPU = 4
	// slotWait is how long a request waits for a free slot before it is
	// refused: 16 clients at 300 BM25 searches a second on one core
	// (make bench-serve) had 1 of 3,001 refused without it, p99 36 ms.
	slotWait              = 50 * time.Millisecond
	defaultMaxBody        = 4 << 20
	defaultRequestTimeout = 10 * time.Minute
	defaultDrain          = 10 * time.Second
	bodyReadTimeout       = 30 * time.Second // a client has this long to send its body
	readHeaderTimeout     = 10 * time.Second
	sessionIdleTTL        = time.Hour // a 2025-11-25 session's state is dropped after this idle
)

// ErrDrainTimeout is Serve's error when requests were still running
// Options.Drain after it began shutting down; they were cancelled.
var ErrDrainTimeout = errors.New("remote: requests still running when the drain time ended")

// Server serves one mcpserver.Server, and the one engine it holds, to
// every user over MCP's Streamable HTTP transport. Its handler is safe for
// concurrent use; build one Server per mcpserver.Server (New adds its tool
// middleware to it).
type Server struct {
	mcp     *mcpserver.Server
	opt     Options
	log     *log.Logger
	stream  *server.StreamableHTTPServer
	metrics *metrics
	audit   *audit
	limits  *limiters
	// lastLag is watchLag's last measure, in nanoseconds.
	lastLag  atomic.Int64
	slots    chan struct{}
	origins  map[string]bool
	hosts    map[string]bool // Host headers a loopback connection may carry besides loopback names
	resource string          // the metadata's resource
	metaURL  string          // where the metadata is, for WWW-Authenticate
	handler  http.Handler
}

// New returns a Server for srv. It checks opt's URLs and adds the tool
// middleware that counts, times and audits calls to srv.MCP().
func New(srv *mcpserver.Server, opt *Options) (*Server, error) {
	s := &Server{mcp: srv, origins: map[string]bool{}, hosts: map[string]bool{}}
	if opt != nil {
		s.opt = *opt
	}
	if s.opt.MaxInFlight <= 0 {
		s.opt.MaxInFlight = inFlightPerCPU * runtime.GOMAXPROCS(0)
	}
	if s.opt.MaxBody <= 0 {
		s.opt.MaxBody = defaultMaxBody
	}
	if s.opt.RequestTimeout <= 0 {
		s.opt.RequestTimeout = defaultRequestTimeout
	}
	if s.opt.Drain <= 0 {
		s.opt.Drain = defaultDrain
	}
	if (s.opt.TLSCert == "") != (s.opt.TLSKey == "") {
		return nil, errors.New("remote: TLS needs both a certificate and its key (--tls-cert and --tls-key)")
	}
	w := s.opt.Log
	if w == nil {
		w = io.Discard
	}
	s.log = log.New(w, "braid serve: ", log.LstdFlags)
	if s.opt.PublicURL != "" {
		o, host, err := origin(s.opt.PublicURL)
		if err != nil {
			return nil, fmt.Errorf("remote: public URL: %w", err)
		}
		s.origins[o] = true
		s.hosts[host] = true
		s.resource = strings.TrimSuffix(s.opt.PublicURL, "/")
		s.metaURL = o + server.ProtectedResourceMetadataPath(s.resource)
	}
	for _, a := range s.opt.AllowedOrigins {
		o, _, err := origin(a)
		if err != nil {
			return nil, fmt.Errorf("remote: allowed origin: %w", err)
		}
		s.origins[o] = true
	}
	key := s.opt.SessionKey
	if len(key) == 0 {
		key = make([]byte, 32)
		_, _ = rand.Read(key)
	}
	s.limits = newLimiters(s.opt.Rate, s.opt.Burst)
	s.slots = make(chan struct{}, s.opt.MaxInFlight)
	s.metrics = newMetrics(srv)
	if s.opt.Audit != nil {
		s.audit = &audit{w: s.opt.Audit, queries: s.opt.AuditQueries}
	}
	srv.MCP().Use(s.toolMiddleware)
	s.stream = server.NewStreamableHTTPServer(srv.MCP(),
		server.WithSessionIdManagerResolver(&sessions{key: key}),
		server.WithHTTPContextFunc(withPrincipal),
		server.WithDisableStreaming(true),           // no standalone GET stream: it would tie a client to one server
		server.WithDisableLocalhostProtection(true), // checkHost does it, knowing the public URL
		server.WithSessionIdleTTL(sessionIdleTTL),
		server.WithStreamableHTTPLogger(slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelWarn}))),
	)
	s.handler = s.routes()
	return s, nil
}

// withPrincipal hands the signed-in user from the HTTP request to the MCP
// request's context, where the tools read it with auth.From.
func withPrincipal(ctx context.Context, r *http.Request) context.Context {
	if p, ok := auth.From(r.Context()); ok {
		return auth.WithPrincipal(ctx, p)
	}
	return ctx
}

// Handler answers /mcp (MCP, behind sign-in when there are
// authenticators), /healthz (no sign-in: 200 once the index is open, 503
// before), /metrics (Prometheus text, behind the same sign-in as /mcp)
// and the RFC 9728 metadata at /.well-known/oauth-protected-resource.
func (s *Server) Handler() http.Handler { return s.handler }

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	var mcpH http.Handler = s.guard(s.stream)
	var metricsH http.Handler = promhttp.HandlerFor(s.metrics.reg, promhttp.HandlerOpts{})
	if len(s.opt.Authenticators) > 0 {
		signIn := func(h http.Handler) http.Handler {
			return auth.Middleware(h, auth.MiddlewareOptions{Authenticators: s.opt.Authenticators, ResourceMetadata: s.metaURL, Scopes: s.opt.Scopes,
				Log: func(err error) { s.log.Printf("sign-in could not be checked: %v", err) }})
		}
		mcpH = s.counted(signIn(mcpH))
		metricsH = signIn(metricsH)
		meta := server.NewProtectedResourceMetadataHandler(server.ProtectedResourceMetadataConfig{
			Resource:               s.resource,
			AuthorizationServers:   s.opt.Issuers,
			ScopesSupported:        s.opt.Scopes,
			BearerMethodsSupported: []string{"header"},
			ResourceName:           "braid",
		})
		mux.Handle(server.WellKnownProtectedResourcePath, meta)
		if p := server.ProtectedResourceMetadataPath(s.resource); p != server.WellKnownProtectedResourcePath {
			mux.Handle(p, meta)
		}
	}
	mux.Handle("/mcp", s.admit(s.checkOrigin(mcpH)))
	mux.Handle("/metrics", metricsH)
	mux.HandleFunc("/healthz", s.health)
	return s.checkHost(mux)
}

// health is 200 once the engine is open, 503 before (and after Close).
func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	if !s.mcp.Ready() {
		retryAfter(w, time.Second)
		http.Error(w, "opening the index", http.StatusServiceUnavailable)
		return
	}
	_, _ = io.WriteString(w, "ok\n")
}

// counted counts sign-in refusals (401, 403) among next's answers.
func (s *Server) counted(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sw := &statusWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r)
		if sw.status == http.StatusUnauthorized || (sw.status == http.StatusForbidden && !sw.passed) {
			s.metrics.rejected.WithLabelValues(rejectAuth).Inc()
		}
	})
}

// admit answers a request to /mcp 503 with Retry-After at once while the
// server is behind by more than MaxLag. It comes first, before the sign-in
// and everything else a request costs: on a saturated server a refusal
// must cost next to nothing, or the work of refusing delays the requests
// admitted.
func (s *Server) admit(next http.Handler) http.Handler {
	if s.opt.MaxLag <= 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if lag := s.lag(); lag > s.opt.MaxLag {
			s.metrics.rejected.WithLabelValues(rejectLag).Inc()
			retryAfter(w, time.Second)
			http.Error(w, fmt.Sprintf("busy: the server is %v behind, more than --max-lag %v", lag.Round(time.Millisecond), s.opt.MaxLag), http.StatusServiceUnavailable)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// slot takes one of the MaxInFlight slots, waiting at most slotWait for
// one: a burst a moment over the bound is answered, a server that stays
// full refuses.
func (s *Server) slot() bool {
	select {
	case s.slots <- struct{}{}:
		return true
	default:
	}
	t := time.NewTimer(slotWait)
	defer t.Stop()
	select {
	case s.slots <- struct{}{}:
		return true
	case <-t.C:
		return false
	}
}

// guard applies the limits to a signed-in request, in order: the user's
// rate (429), the body's size (413), a free slot (503, once slotWait
// passed); then bounds the request's time and hands it to next. The slot
// is taken after the sign-in and the body: a client that sends its body
// slowly, or cannot sign in, never holds one.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if sw, ok := w.(*statusWriter); ok {
			sw.passed = true // what follows is not the sign-in's answer
		}
		user := ""
		if p, ok := auth.From(r.Context()); ok {
			user = p.Name
		}
		if ok, wait := s.limits.allow(user, time.Now()); !ok {
			s.metrics.rejected.WithLabelValues(rejectRate).Inc()
			retryAfter(w, wait)
			http.Error(w, fmt.Sprintf("too many requests: the limit is %g a second for each user", s.opt.Rate), http.StatusTooManyRequests)
			return
		}
		if r.Method == http.MethodPost && r.Body != nil {
			body, err := s.readBody(w, r)
			if err != nil {
				var tooBig *http.MaxBytesError
				if errors.As(err, &tooBig) {
					s.metrics.rejected.WithLabelValues(rejectBody).Inc()
					http.Error(w, fmt.Sprintf("request body over %d bytes", s.opt.MaxBody), http.StatusRequestEntityTooLarge)
					return
				}
				http.Error(w, fmt.Sprintf("reading the request body: %v", err), http.StatusBadRequest)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		if !s.slot() {
			s.metrics.rejected.WithLabelValues(rejectBusy).Inc()
			retryAfter(w, time.Second)
			http.Error(w, fmt.Sprintf("busy: %d requests under way, the most this server answers at once", s.opt.MaxInFlight), http.StatusServiceUnavailable)
			return
		}
		defer func() { <-s.slots }()
		s.metrics.inFlight.Inc()
		defer s.metrics.inFlight.Dec()
		ctx, cancel := context.WithTimeout(r.Context(), s.opt.RequestTimeout)
		defer cancel()
		w.Header().Set("X-Accel-Buffering", "no") // a proxy in front must not buffer SSE streams
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// readBody reads r's body whole, at most MaxBody bytes, within
// bodyReadTimeout.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(bodyReadTimeout))
	defer rc.SetReadDeadline(time.Time{}) //nolint:errcheck // not every connection supports deadlines
	return io.ReadAll(http.MaxBytesReader(w, r.Body, s.opt.MaxBody))
}

// Serve answers requests on ln until ctx ends. Then it stops accepting
// connections, gives the requests under way Options.Drain to end (past it
// they are cancelled, and Serve returns ErrDrainTimeout), and closes the
// engine. It starts opening the engine at once, in the background.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	if s.opt.PublicURL == "" {
		// The listener's own address is the one origin a browser may send.
		o, host, err := origin("http://" + ln.Addr().String())
		if err == nil {
			s.origins[o] = true
			s.hosts[host] = true
		}
	}
	s.mcp.Start()
	base, cancelAll := context.WithCancel(context.Background())
	defer cancelAll()
	if s.opt.MaxLag > 0 {
		go s.watchLag(base)
	}
	hs := &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: readHeaderTimeout, // never a WriteTimeout: it would cut SSE streams
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          s.log,
		BaseContext:       func(net.Listener) context.Context { return base },
	}
	served := make(chan error, 1)
	go func() {
		if s.opt.TLSCert != "" {
			served <- hs.ServeTLS(ln, s.opt.TLSCert, s.opt.TLSKey)
		} else {
			served <- hs.Serve(ln)
		}
	}()
	var err error
	select {
	case err = <-served:
		err = fmt.Errorf("remote: serve %s: %w", ln.Addr(), err)
	case <-ctx.Done():
	}
	drain, cancel := context.WithTimeout(context.Background(), s.opt.Drain)
	defer cancel()
	if serr := hs.Shutdown(drain); serr != nil {
		cancelAll() // the calls still running end now
		_ = hs.Close()
		s.log.Printf("requests still running %v after shutdown began; cancelled them", s.opt.Drain)
		if err == nil {
			err = fmt.Errorf("%w (%v)", ErrDrainTimeout, s.opt.Drain)
		}
	}
	_ = s.stream.Shutdown(context.Background()) // its session sweeper
	if cerr := s.mcp.Close(); err == nil {
		err = cerr
	}
	return err
}
