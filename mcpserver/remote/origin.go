package remote

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
)

// origin is u's origin as a browser sends it (scheme://host[:port],
// lower case, the scheme's default port left out) and its host name.
func origin(u string) (string, string, error) {
	p, err := url.Parse(u)
	if err != nil {
		return "", "", err
	}
	scheme := strings.ToLower(p.Scheme)
	if (scheme != "http" && scheme != "https") || p.Host == "" {
		return "", "", fmt.Errorf("%q is not an http or https URL", u)
	}
	host, port := strings.ToLower(p.Hostname()), p.Port()
	if (scheme == "https" && port == "443") || (scheme == "http" && port == "80") {
		port = ""
	}
	hp := host
	if strings.Contains(host, ":") {
		hp = "[" + host + "]"
	}
	if port != "" {
		hp += ":" + port
	}
	return scheme + "://" + hp, host, nil
}

// checkOrigin refuses (403) a request whose Origin header is present and
// not an allowed origin: a web page elsewhere must not drive /mcp with a
// user's browser. A request without Origin (every non-browser client) passes.
func (s *Server) checkOrigin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if o := r.Header.Get("Origin"); o != "" {
			norm, _, err := origin(o)
			if err != nil || !s.origins[norm] {
				s.metrics.rejected.WithLabelValues(rejectOrigin).Inc()
				http.Error(w, fmt.Sprintf("origin %q is not allowed; start braid serve with --allowed-origin %s to allow it", o, o), http.StatusForbidden)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// checkHost refuses (403) a request that came in on a loopback address
// with a Host header that is neither a loopback name nor the public URL's
// host: a page whose name was re-bound to 127.0.0.1 (DNS rebinding). A
// proxy on the same machine passes with either.
func (s *Server) checkHost(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
		if local != nil && loopback(local.String()) && !loopback(r.Host) {
			host := r.Host
			if h, _, err := net.SplitHostPort(r.Host); err == nil {
				host = h
			}
			if !s.hosts[strings.ToLower(strings.Trim(host, "[]"))] {
				http.Error(w, fmt.Sprintf("host %q is not this server's: a loopback server answers loopback names and its --public-url's host", r.Host), http.StatusForbidden)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// loopback says whether addr (host or host:port) names a loopback address.
func loopback(addr string) bool {
	host := addr
	if h, _, err := net.SplitHostPort(addr); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// statusWriter notes the status its handler answered, and whether the
// request got past sign-in (passed).
type statusWriter struct {
	http.ResponseWriter
	status int
	passed bool
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(p)
}

// Flush passes flushes on: SSE streams need them.
func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection's deadlines.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
