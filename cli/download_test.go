package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/braidsearch/braid/internal/testenv"
)

func pageServer(t *testing.T) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/guide.html":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, "<title>Lighthouse guide</title><h1>Lighthouses</h1><p>The keeper trims the lamp wick at dusk.</p>")
		case "/meta":
			http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/iam", http.StatusFound)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

func TestDownloadCLI(t *testing.T) {
	s := pageServer(t)
	idx := filepath.Join(t.TempDir(), "idx")
	if _, errOut, code := runCLI(t, "--index", idx, "download", s.URL+"/guide.html"); code != 1 || !strings.Contains(errOut, "loopback") || !strings.Contains(errOut, "--allow-net") {
		t.Fatalf("download from loopback without --allow-net: code %d, %q", code, errOut)
	}
	out, errOut, code := runCLI(t, "--index", idx, "--json", "download", "--allow-net", "127.0.0.1/32", "--tag", "sea", s.URL+"/guide.html")
	if code != 0 {
		t.Fatalf("download: %s", errOut)
	}
	var r struct {
		ID, Name, URL, Title, SHA256 string
		MediaType                    string `json:"media_type"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil || r.Title != "Lighthouse guide" || r.MediaType != "text/html" || !strings.HasSuffix(r.Name, "/guide.md") || len(r.SHA256) != 64 {
		t.Fatalf("download --json: %s (%v)", out, err)
	}
	if out, _, code := runCLI(t, "--index", idx, "search-keyword", "keeper wick"); code != 0 || !strings.Contains(out, r.Name) {
		t.Errorf("search after download: %q", out)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{s.URL + "/meta"}, "link-local"},
		{[]string{"--sha256", strings.Repeat("ab", 32), s.URL + "/guide.html"}, "checksum mismatch"},
		{[]string{s.URL + "/nope"}, "404"},
		{[]string{"file:///etc/passwd"}, "want an http:// or https:// URL"},
		{[]string{"--allow-net", "bogus", s.URL}, "--allow-net"},
	} {
		args := append([]string{"--index", idx, "download", "--allow-net", "127.0.0.1"}, c.args...)
		if _, errOut, code := runCLI(t, args...); code != 1 || !strings.Contains(errOut, c.want) {
			t.Errorf("download %v: code %d, %q; want %q", c.args, code, errOut, c.want)
		}
	}
}

func TestDownloadOverMCP(t *testing.T) {
	s := pageServer(t)
	idx := filepath.Join(t.TempDir(), "idx")
	var errOut testenv.Buffer
	c := serveClient(t, &errOut, "--index", idx, "--model", "none", "serve", "--init", "--tools", "all")
	mustRefuse(t, c, "download", map[string]any{"url": s.URL + "/guide.html"}, "loopback")
	mustRefuse(t, c, "download", map[string]any{"url": "http://169.254.169.254/latest/meta-data/"}, "link-local")
	mustRefuse(t, c, "download", map[string]any{"url": "file:///etc/passwd"}, "http://")

	c2 := serveClient(t, &errOut, "--index", filepath.Join(t.TempDir(), "idx2"), "--model", "none", "serve", "--init", "--tools", "all", "--allow-net", "127.0.0.1/32")
	if out, isErr := callTool(t, c2, "download", map[string]any{"url": s.URL + "/guide.html", "collection": "web"}); isErr || !strings.Contains(out, `"title":"Lighthouse guide"`) {
		t.Fatalf("download with --allow-net: %q", out)
	}
	mustRefuse(t, c2, "download", map[string]any{"url": s.URL + "/meta"}, "link-local") // a redirect out of the allowed range
	if out, isErr := callTool(t, c2, "search_keyword", map[string]any{"query": "keeper wick"}); isErr || !strings.Contains(out, "guide.md") {
		t.Errorf("search after download: %q", out)
	}
}
