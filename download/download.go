// Package download fetches a web page or file over HTTP(S) for the
// document store, and keeps the fetch from being turned against the
// machine it runs on: it connects only to public addresses unless told
// otherwise (checked on the address actually dialled, after DNS, for every
// redirect), follows a bounded number of redirects, reads a bounded number
// of bytes within a time limit, accepts text only (HTML is converted to
// markdown), and verifies a SHA-256 when given one.
//
// An agent can be talked into fetching http://169.254.169.254/ (a cloud's
// metadata service) or an admin page on localhost; Get refuses both unless
// Options.Allow names them.
package download

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/braidsearch/braid/extract"
)

// Defaults for the zero Options.
const (
	DefaultMaxBytes     = 8 << 20
	DefaultTimeout      = 30 * time.Second
	DefaultMaxRedirects = 5
)

var (
	// ErrBadURL is the error for a URL that is not absolute http(s).
	ErrBadURL = errors.New("download: bad URL")
	// ErrBlocked is the error for an address Get will not connect to:
	// loopback, private, link-local, multicast and other non-public ones.
	ErrBlocked = errors.New("download: address not allowed")
	// ErrTooLarge is the error for a body over Options.MaxBytes.
	ErrTooLarge = errors.New("download: over the size limit")
	// ErrNotText is the error for a response that is not text, markdown or
	// HTML, or not UTF-8.
	ErrNotText = errors.New("download: not text")
	// ErrChecksum is the error for a body whose SHA-256 is not the one
	// asked for.
	ErrChecksum = errors.New("download: checksum mismatch")
	// ErrRedirects is the error for more redirects than allowed, or one to
	// a scheme other than http(s).
	ErrRedirects = errors.New("download: too many redirects")
	// ErrStatus is the error for a response status other than 200.
	ErrStatus = errors.New("download: HTTP error")
)

// Options bound a Get. The zero value means the defaults.
type Options struct {
	// MaxBytes is the most bytes read from the body; zero means 8 MB.
	MaxBytes int64
	// Timeout bounds the whole fetch, redirects and body included; zero
	// means 30 seconds.
	Timeout time.Duration
	// MaxRedirects is how many redirects are followed; zero means 5, a
	// negative value none.
	MaxRedirects int
	// Allow lists address ranges that may be dialled although they are not
	// public (127.0.0.1/32 for a local server, say). An IPv4-mapped range
	// of 96 bits or more (::ffff:127.0.0.1/128) stands for its IPv4 range,
	// since addresses are checked unmapped.
	Allow []netip.Prefix
	// SHA256, when set, is the hex digest the body must have.
	SHA256 string
}

// ParseAllow reads address ranges for Options.Allow: CIDR prefixes
// (10.0.0.0/8) or single addresses (127.0.0.1, as 127.0.0.1/32), masked.
// An IPv4-mapped range becomes its IPv4 range (::ffff:10.0.0.0/104 is
// 10.0.0.0/8), as addresses are checked unmapped; an IPv6 range wider than
// ::ffff:0:0/96 that holds it (::/0, ::ffff:0:0/95) is refused, as it
// would allow every IPv4 address without saying so.
func ParseAllow(list []string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, s := range list {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			a, aerr := netip.ParseAddr(s)
			if aerr != nil {
				return nil, fmt.Errorf("download: Options.Allow %q: want an address range such as 127.0.0.1/32 or 10.0.0.0/8", s)
			}
			p = netip.PrefixFrom(a, a.BitLen())
		}
		p = unmap(p.Masked())
		if p.Addr().Is6() && p.Overlaps(mapped) {
			return nil, fmt.Errorf("download: Options.Allow %q holds ::ffff:0:0/96, every IPv4-mapped address, that is all of IPv4; name IPv4 ranges as IPv4 (0.0.0.0/0 for all of it) and IPv6 ranges that leave ::ffff:0:0/96 out", s)
		}
		out = append(out, p)
	}
	return out, nil
}

// mapped is the IPv4-mapped IPv6 range.
var mapped = netip.MustParsePrefix("::ffff:0:0/96")

// unmap turns an IPv4-mapped range of 96 bits or more into its IPv4 range
// (::ffff:127.0.0.1/128 into 127.0.0.1/32) and leaves any other as it is.
func unmap(p netip.Prefix) netip.Prefix {
	if !p.Addr().Is4In6() || p.Bits() < 96 {
		return p
	}
	return netip.PrefixFrom(p.Addr().Unmap(), p.Bits()-96)
}

// Page is what Get fetched.
type Page struct {
	URL       string // after redirects
	MediaType string // as served: text/html, text/markdown, text/plain, …
	Title     string // an HTML page's <title>; empty otherwise
	// Text is the content to store: the body as served, or for HTML the
	// page converted to markdown.
	Text   []byte
	Bytes  int64  // bytes read from the body
	SHA256 string // hex digest of the body as served
}

// Markdown reports whether Text is markdown (an HTML page converted, or a
// markdown file).
func (p *Page) Markdown() bool {
	switch p.MediaType {
	case "text/html", "application/xhtml+xml", "text/markdown", "text/x-markdown":
		return true
	}
	return false
}

// Get fetches rawURL within the limits of opt (nil means the defaults).
func Get(ctx context.Context, rawURL string, opt *Options) (*Page, error) {
	var o Options
	if opt != nil {
		o = *opt
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxRedirects == 0 {
		o.MaxRedirects = DefaultMaxRedirects
	}
	if o.SHA256 != "" {
		o.SHA256 = strings.ToLower(o.SHA256)
		if b, err := hex.DecodeString(o.SHA256); err != nil || len(b) != sha256.Size {
			return nil, fmt.Errorf("%w: sha256 %q is not 64 hex digits", ErrBadURL, o.SHA256)
		}
	}
	u, err := checkURL(rawURL)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	c := client(&o)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadURL, err)
	}
	req.Header.Set("Accept", "text/markdown, text/plain;q=0.9, text/html;q=0.8, text/*;q=0.5")
	req.Header.Set("User-Agent", "braid-download")
	resp, err := c.Do(req)
	if err != nil {
		return nil, explain(rawURL, err, &o)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%w: %s answered %s", ErrStatus, resp.Request.URL, resp.Status)
	}
	if resp.ContentLength > o.MaxBytes {
		return nil, fmt.Errorf("%w: %s is %d bytes, over the %d-byte limit", ErrTooLarge, resp.Request.URL, resp.ContentLength, o.MaxBytes)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, o.MaxBytes+1))
	if err != nil {
		return nil, explain(rawURL, err, &o)
	}
	if int64(len(body)) > o.MaxBytes {
		return nil, fmt.Errorf("%w: %s sent more than %d bytes", ErrTooLarge, resp.Request.URL, o.MaxBytes)
	}
	sum := sha256.Sum256(body)
	p := &Page{URL: resp.Request.URL.String(), Bytes: int64(len(body)), SHA256: hex.EncodeToString(sum[:])}
	if o.SHA256 != "" && o.SHA256 != p.SHA256 {
		return nil, fmt.Errorf("%w: %s has sha256 %s, want %s; nothing was stored", ErrChecksum, p.URL, p.SHA256, o.SHA256)
	}
	if p.MediaType, err = mediaType(resp.Header.Get("Content-Type"), body); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrNotText, p.URL, err)
	}
	if !utf8.Valid(body) || bytes.IndexByte(body, 0) >= 0 {
		return nil, fmt.Errorf("%w: %s is not UTF-8 text", ErrNotText, p.URL)
	}
	switch p.MediaType {
	case "text/html", "application/xhtml+xml":
		p.Title, p.Text, err = toMarkdown(body)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: convert HTML: %v", ErrNotText, p.URL, err)
		}
	default:
		p.Text = body
	}
	return p, nil
}

func checkURL(rawURL string) (*url.URL, error) {
	if len(rawURL) > 8192 {
		return nil, fmt.Errorf("%w: the URL is %d bytes long", ErrBadURL, len(rawURL))
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadURL, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("%w: %q; want an http:// or https:// URL", ErrBadURL, rawURL)
	}
	if u.Hostname() == "" {
		return nil, fmt.Errorf("%w: %q has no host", ErrBadURL, rawURL)
	}
	return u, nil
}

// client makes an HTTP client that dials only allowed addresses, uses no
// proxy (a proxy would dial for it, unchecked) and follows at most
// MaxRedirects redirects to http(s) URLs.
func client(o *Options) *http.Client {
	d := &net.Dialer{
		Timeout: 10 * time.Second,
		Control: func(network, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return fmt.Errorf("%w: cannot read the address %q", ErrBlocked, address)
			}
			return allowed(ap.Addr(), o.Allow)
		},
	}
	tr := &http.Transport{
		Proxy:                  nil,
		DialContext:            d.DialContext,
		TLSHandshakeTimeout:    10 * time.Second,
		ResponseHeaderTimeout:  o.Timeout,
		MaxResponseHeaderBytes: 64 << 10,
		DisableCompression:     false,
	}
	return &http.Client{
		Transport: tr,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if o.MaxRedirects < 0 || len(via) > o.MaxRedirects {
				return fmt.Errorf("%w: more than %d", ErrRedirects, max(o.MaxRedirects, 0))
			}
			if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
				return fmt.Errorf("%w: a redirect to %s, which is not http(s)", ErrRedirects, req.URL)
			}
			return nil
		},
	}
}

// special are the non-public ranges the netip predicates do not cover.
var special = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),      // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),  // carrier-grade NAT
	netip.MustParsePrefix("192.0.0.0/24"),   // IETF protocol assignments
	netip.MustParsePrefix("198.18.0.0/15"),  // benchmarking
	netip.MustParsePrefix("240.0.0.0/4"),    // reserved, broadcast
	netip.MustParsePrefix("64:ff9b::/96"),   // NAT64: can reach private IPv4
	netip.MustParsePrefix("64:ff9b:1::/48"), // local-use NAT64
	netip.MustParsePrefix("2001:db8::/32"),  // documentation
	netip.MustParsePrefix("::ffff:0:0/96"),  // IPv4-mapped (checked unmapped)
}

// allowed refuses an address that is not public, unless allow names it.
func allowed(a netip.Addr, allow []netip.Prefix) error {
	a = a.Unmap()
	for _, p := range allow {
		if unmap(p).Contains(a) {
			return nil
		}
	}
	why := ""
	switch {
	case a.IsLoopback():
		why = "a loopback"
	case a.IsPrivate():
		why = "a private"
	case a.IsLinkLocalUnicast():
		why = "a link-local (cloud metadata services live there)"
	case a.IsMulticast() || a.IsLinkLocalMulticast() || a.IsInterfaceLocalMulticast():
		why = "a multicast"
	case a.IsUnspecified():
		why = "an unspecified"
	default:
		for _, p := range special {
			if p.Contains(a) {
				why = "a reserved (" + p.String() + ")"
			}
		}
	}
	if why == "" {
		return nil
	}
	return fmt.Errorf("%w: %s is %s address; allow it with Options.Allow %s if you mean it", ErrBlocked, a, why, netip.PrefixFrom(a, a.BitLen()))
}

// explain unwraps the client's errors into ours, naming the URL.
func explain(rawURL string, err error, o *Options) error {
	for _, e := range []error{ErrBlocked, ErrRedirects} {
		if errors.Is(err, e) {
			var msg string
			var ue *url.Error
			if errors.As(err, &ue) {
				msg = ue.Err.Error()
				var oe *net.OpError
				if errors.As(ue.Err, &oe) && oe.Err != nil {
					msg = oe.Err.Error()
				}
			} else {
				msg = err.Error()
			}
			return fmt.Errorf("%w: %s: %s", e, rawURL, strings.TrimPrefix(msg, e.Error()+": "))
		}
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("download: %s: no complete answer within %v", rawURL, o.Timeout)
	}
	return fmt.Errorf("download: %s: %w", rawURL, err)
}

// mediaType is the response's media type, sniffed when the server names
// none, and refused unless it is text.
func mediaType(header string, body []byte) (string, error) {
	mt := ""
	if header != "" {
		var params map[string]string
		var err error
		if mt, params, err = mime.ParseMediaType(header); err != nil {
			return "", fmt.Errorf("content type %q: %v", header, err)
		}
		if cs := strings.ToLower(params["charset"]); cs != "" && cs != "utf-8" && cs != "utf8" && cs != "us-ascii" {
			return "", fmt.Errorf("charset %s; braid stores UTF-8 text", cs)
		}
	} else {
		mt, _, _ = mime.ParseMediaType(http.DetectContentType(body))
	}
	switch {
	case strings.HasPrefix(mt, "text/"), mt == "application/xhtml+xml", mt == "application/markdown":
		if mt == "application/markdown" {
			mt = "text/markdown"
		}
		return mt, nil
	}
	return "", fmt.Errorf("content type %s; braid stores text, markdown and HTML", mt)
}

// toMarkdown turns an HTML page into markdown, with its title, as braid
// index converts HTML files (package extract).
func toMarkdown(body []byte) (string, []byte, error) {
	return extract.HTMLMarkdown(body)
}
