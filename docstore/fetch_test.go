package docstore_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/braidsearch/braid/docstore"
	"github.com/braidsearch/braid/download"
)

func TestFetch(t *testing.T) {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/docs/ferry.html":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, `<html><head><title>Ferry</title></head><body><p>The winter ferry leaves at nine.</p></body></html>`)
		case "/notes/":
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, "an index page\n")
		default:
			http.NotFound(w, r)
		}
	}))
	defer s.Close()
	ctx := context.Background()
	local := []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	host := strings.ReplaceAll(strings.TrimPrefix(s.URL, "http://"), ":", "_")

	if _, err := docstore.Fetch(ctx, docstore.DownloadRequest{URL: s.URL + "/docs/ferry.html"}); !errors.Is(err, download.ErrBlocked) {
		t.Fatalf("fetch from loopback without AllowNet: %v, want ErrBlocked", err)
	}
	f, err := docstore.Fetch(ctx, docstore.DownloadRequest{URL: s.URL + "/docs/ferry.html", AllowNet: local,
		Tags: []string{"travel"}, Collection: "web", Metadata: map[string]string{"lang": "en"}})
	if err != nil {
		t.Fatal(err)
	}
	want := docstore.AddRequest{Name: "web/" + host + "/docs/ferry.md", Tags: []string{"travel"}, Collection: "web",
		Metadata: map[string]string{"source_url": s.URL + "/docs/ferry.html", "media_type": "text/html", "lang": "en"}}
	got := f.Add
	got.Data = nil
	if diff := cmp.Diff(want, got); diff != "" || f.MediaType != "text/html" || f.Title != "Ferry" || !strings.Contains(string(f.Add.Data), "winter ferry") {
		t.Errorf("fetched %+v; add request (-want +got):\n%s", f, diff)
	}
	if f, err := docstore.Fetch(ctx, docstore.DownloadRequest{URL: s.URL + "/docs/ferry.html", AllowNet: local, Name: "mine.md"}); err != nil || f.Add.Name != "mine.md" {
		t.Errorf("a named fetch: %+v, %v; want the name kept", f, err)
	}
	f, err = docstore.Fetch(ctx, docstore.DownloadRequest{URL: s.URL + "/notes/", AllowNet: local})
	if err != nil || f.Add.Name != "web/"+host+"/notes/index.txt" {
		t.Errorf("a folder URL: %+v, %v; want web/HOST/notes/index.txt", f, err)
	}
	if _, err := docstore.Fetch(ctx, docstore.DownloadRequest{URL: s.URL + "/missing", AllowNet: local}); !errors.Is(err, download.ErrStatus) {
		t.Errorf("a 404: %v, want ErrStatus", err)
	}
}
