package braid_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/docstore"
	"github.com/braidsearch/braid/download"
)

func TestFetchAndAdd(t *testing.T) {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/docs/ferry.html":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, `<html><head><title>Ferry</title></head><body><p>The winter ferry leaves at nine. See <a href="/docs/port">the port</a>.</p></body></html>`)
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
	e := openEngine(t, nil)

	if _, err := docstore.Fetch(ctx, docstore.DownloadRequest{URL: s.URL + "/docs/ferry.html"}); !errors.Is(err, download.ErrBlocked) {
		t.Fatalf("fetch from loopback without AllowNet: %v, want ErrBlocked", err)
	}
	f, err := docstore.Fetch(ctx, docstore.DownloadRequest{URL: s.URL + "/docs/ferry.html", AllowNet: local, Tags: []string{"travel"}, Collection: "web"})
	if err != nil {
		t.Fatal(err)
	}
	host := strings.ReplaceAll(strings.TrimPrefix(s.URL, "http://"), ":", "_")
	if want := "web/" + host + "/docs/ferry.md"; f.Add.Name != want || f.MediaType != "text/html" || f.Title != "Ferry" {
		t.Errorf("fetched %+v; want name %s", f, want)
	}
	res, err := e.Store().Add(ctx, f.Add)
	if err != nil {
		t.Fatal(err)
	}
	hits, err := e.Search(ctx, "winter ferry", braid.SearchOptions{})
	if err != nil || len(hits.Results) != 1 || hits.Results[0].ID != res.ID || hits.Results[0].Title != "Ferry" {
		t.Fatalf("search after download: %+v, %v", hits, err)
	}
	hits, err = e.Search(ctx, "ferry", braid.SearchOptions{Metadata: map[string]string{"source_url": s.URL + "/docs/ferry.html"}})
	if err != nil || len(hits.Results) != 1 {
		t.Errorf("search by source_url: %+v, %v; want the page", hits, err)
	}
	f, err = docstore.Fetch(ctx, docstore.DownloadRequest{URL: s.URL + "/notes/", AllowNet: local})
	if err != nil || f.Add.Name != "web/"+host+"/notes/index.txt" {
		t.Errorf("a folder URL: %+v, %v; want web/HOST/notes/index.txt", f, err)
	}
	if _, err := docstore.Fetch(ctx, docstore.DownloadRequest{URL: s.URL + "/missing", AllowNet: local}); !errors.Is(err, download.ErrStatus) {
		t.Errorf("a 404: %v, want ErrStatus", err)
	}
}
