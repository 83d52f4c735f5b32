package download

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"
)

var local = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}

// site is a real HTTP server on 127.0.0.1 with one handler per path.
func site(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/note.md", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
		fmt.Fprint(w, "# Note\n\nPlain markdown.\n")
	})
	mux.HandleFunc("/page.html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<html><head><title>Ferry Times</title><script>alert("x")</script></head><body><h2>Winter</h2><p>The <b>ferry</b> leaves at <a href="/nine">nine</a>.</p></body></html>`)
	})
	mux.HandleFunc("/plain", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "just text, no header set\n") })
	mux.HandleFunc("/image.png", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write([]byte("\x89PNG\r\n\x1a\n"))
	})
	mux.HandleFunc("/latin1", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=iso-8859-1")
		w.Write([]byte("caf\xe9"))
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.(http.Flusher).Flush() // no Content-Length: the limit must hold while reading
		for i := 0; i < 100; i++ {
			w.Write([]byte(strings.Repeat("x", 1024)))
		}
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(10 * time.Second):
		case <-r.Context().Done():
		}
	})
	mux.HandleFunc("/missing", http.NotFound)
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop", http.StatusFound) })
	mux.HandleFunc("/to-note", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/note.md", http.StatusFound) })
	mux.HandleFunc("/to-metadata", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
	})
	mux.HandleFunc("/to-other-loopback", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://127.0.0.2:"+strings.Split(r.Host, ":")[1]+"/note.md", http.StatusFound)
	})
	mux.HandleFunc("/to-file", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
	})
	s := httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

func TestGet(t *testing.T) {
	s := site(t)
	ctx := context.Background()
	sum := sha256.Sum256([]byte("# Note\n\nPlain markdown.\n"))
	good := hex.EncodeToString(sum[:])
	for _, tc := range []struct {
		name, path string
		opt        Options
		want       string // in Text
		mediaType  string
		err        error
	}{
		{"markdown", "/note.md", Options{}, "Plain markdown.", "text/markdown", nil},
		{"html to markdown", "/page.html", Options{}, "## Winter\n\nThe **ferry** leaves at [nine](/nine).", "text/html", nil},
		{"sniffed", "/plain", Options{}, "just text", "text/plain", nil},
		{"checksum", "/note.md", Options{SHA256: strings.ToUpper(good)}, "Plain", "text/markdown", nil},
		{"redirect", "/to-note", Options{}, "Plain markdown.", "text/markdown", nil},
		{"checksum mismatch", "/note.md", Options{SHA256: strings.Repeat("0", 64)}, "", "", ErrChecksum},
		{"image", "/image.png", Options{}, "", "", ErrNotText},
		{"latin1", "/latin1", Options{}, "", "", ErrNotText},
		{"over the limit while reading", "/big", Options{MaxBytes: 10_000}, "", "", ErrTooLarge},
		{"not found", "/missing", Options{}, "", "", ErrStatus},
		{"redirect loop", "/loop", Options{MaxRedirects: 3}, "", "", ErrRedirects},
		{"no redirects", "/to-note", Options{MaxRedirects: -1}, "", "", ErrRedirects},
		{"redirect to the metadata service", "/to-metadata", Options{}, "", "", ErrBlocked},
		{"redirect to another loopback address", "/to-other-loopback", Options{}, "", "", ErrBlocked},
		{"redirect to a file", "/to-file", Options{}, "", "", ErrRedirects},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opt := tc.opt
			opt.Allow = local
			p, err := Get(ctx, s.URL+tc.path, &opt)
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("err = %v, want %v", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(p.Text), tc.want) || p.MediaType != tc.mediaType {
				t.Errorf("got %s %q, want %s with %q", p.MediaType, p.Text, tc.mediaType, tc.want)
			}
		})
	}
	p, err := Get(ctx, s.URL+"/page.html", &Options{Allow: local})
	if err != nil || p.Title != "Ferry Times" || strings.Contains(string(p.Text), "alert") || !strings.HasPrefix(string(p.Text), "# Ferry Times\n") {
		t.Errorf("html page: %+v, %v; want the title as a heading and no script", p, err)
	}
}

func TestGetRefusesNonPublicAddresses(t *testing.T) {
	s := site(t)
	ctx := context.Background()
	port := strings.Split(s.Listener.Addr().String(), ":")[1]
	for _, u := range []string{
		s.URL + "/note.md", // loopback, not allowed here
		"http://localhost:" + port + "/note.md",
		"http://[::1]:" + port + "/",
		"http://169.254.169.254/latest/meta-data/",
		"http://10.0.0.1/", "http://192.168.1.1/", "http://172.16.0.1/", "http://100.64.0.1/",
		"http://0.0.0.0:" + port + "/", "http://224.0.0.1/", "http://[fe80::1]/", "http://[fc00::1]/",
		"http://[::ffff:127.0.0.1]:" + port + "/",
	} {
		start := time.Now()
		_, err := Get(ctx, u, &Options{Timeout: 5 * time.Second})
		if !errors.Is(err, ErrBlocked) {
			t.Errorf("Get(%s) = %v, want ErrBlocked", u, err)
		}
		if time.Since(start) > 3*time.Second {
			t.Errorf("Get(%s) took %v: refusing must not wait for a connection", u, time.Since(start))
		}
	}
	for _, u := range []string{"file:///etc/passwd", "ftp://example.com/x", "gopher://x", "/relative", "http://"} {
		if _, err := Get(ctx, u, nil); !errors.Is(err, ErrBadURL) {
			t.Errorf("Get(%q) = %v, want ErrBadURL", u, err)
		}
	}
}

func TestGetTimeout(t *testing.T) {
	s := site(t)
	start := time.Now()
	_, err := Get(context.Background(), s.URL+"/slow", &Options{Allow: local, Timeout: 300 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "within") {
		t.Errorf("slow server: %v, want a timeout naming the limit", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("timeout took %v", d)
	}
}

func FuzzAllowed(f *testing.F) {
	for _, s := range []string{"127.0.0.1", "10.1.2.3", "8.8.8.8", "::1", "fe80::1", "169.254.169.254", "::ffff:10.0.0.1", "2606:4700::1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := netip.ParseAddr(s)
		if err != nil {
			return
		}
		u := a.Unmap()
		public := !(u.IsLoopback() || u.IsPrivate() || u.IsLinkLocalUnicast() || u.IsMulticast() || u.IsUnspecified())
		if err := allowed(a, nil); err == nil && !public {
			t.Fatalf("%s allowed although not public", a)
		}
	})
}

func TestParseAllow(t *testing.T) {
	got, err := ParseAllow([]string{"10.1.2.3/8", "127.0.0.1", "::1"})
	if err != nil {
		t.Fatal(err)
	}
	want := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("127.0.0.1/32"), netip.MustParsePrefix("::1/128")}
	if !slices.Equal(got, want) {
		t.Errorf("ParseAllow = %v, want %v", got, want)
	}
	if _, err := ParseAllow([]string{"nowhere"}); err == nil || !strings.Contains(err.Error(), `download: Options.Allow "nowhere": want an address range`) {
		t.Errorf("ParseAllow(nowhere) = %v", err)
	}
}

// Addresses are checked unmapped, so IPv4-mapped ranges are read as the
// IPv4 ranges they stand for (issue 30, 7.2).
func TestParseAllowMapped(t *testing.T) {
	for _, tc := range []struct {
		in, want string
	}{
		{"::ffff:127.0.0.1/128", "127.0.0.1/32"},
		{"::ffff:127.0.0.1", "127.0.0.1/32"},
		{"::FFFF:10.1.2.3/104", "10.0.0.0/8"},
		{"::ffff:0:0/96", "0.0.0.0/0"},
		{"::ffff:192.168.1.1/120", "192.168.1.0/24"},
		{"::1/128", "::1/128"},
		{"fe80::/10", "fe80::/10"},
		{"2001:db8::/32", "2001:db8::/32"},
		{"::fffe:0:0/96", "::fffe:0:0/96"}, // beside the mapped range
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseAllow([]string{tc.in})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 || got[0] != netip.MustParsePrefix(tc.want) {
				t.Errorf("ParseAllow(%s) = %v, want %s", tc.in, got, tc.want)
			}
		})
	}
	for _, in := range []string{"::ffff:0:0/95", "::/0", "::/8", "::ffff:0.0.0.0/80"} {
		_, err := ParseAllow([]string{"127.0.0.1", in})
		if err == nil || !strings.Contains(err.Error(), `download: Options.Allow "`+in+`" holds ::ffff:0:0/96, every IPv4-mapped address`) {
			t.Errorf("ParseAllow(%s) = %v, want a refusal naming it", in, err)
		}
	}
}

// A download from 127.0.0.1 is allowed by the IPv4-mapped range of that
// address, parsed or set directly, and only by ranges that hold it.
func TestGetAllowsMappedRange(t *testing.T) {
	s := site(t)
	parsed, err := ParseAllow([]string{"::ffff:127.0.0.1/128"})
	if err != nil {
		t.Fatal(err)
	}
	for name, allow := range map[string][]netip.Prefix{
		"parsed":       parsed,
		"set directly": {netip.MustParsePrefix("::ffff:127.0.0.1/128")},
		"a /104":       {netip.MustParsePrefix("::ffff:127.0.0.0/104")},
	} {
		p, err := Get(context.Background(), s.URL+"/note.md", &Options{Allow: allow, Timeout: 5 * time.Second})
		if err != nil || !strings.Contains(string(p.Text), "Plain markdown") {
			t.Errorf("%s %v: %v, want the page", name, allow, err)
		}
	}
	if _, err := Get(context.Background(), s.URL+"/note.md", &Options{Allow: []netip.Prefix{netip.MustParsePrefix("::ffff:127.0.0.2/128")}, Timeout: 5 * time.Second}); !errors.Is(err, ErrBlocked) {
		t.Errorf("allowing ::ffff:127.0.0.2 only: %v, want ErrBlocked", err)
	}
}
