package download

import (
	"strings"
	"testing"
)

func TestPageName(t *testing.T) {
	for _, tc := range []struct {
		url, media, want string
	}{
		{"https://example.com/docs/ferry.html", "text/html", "web/example.com/docs/ferry.md"},
		{"https://example.com/notes/", "text/plain", "web/example.com/notes/index.txt"},
		{"https://example.com", "text/html", "web/example.com/index.md"},
		{"http://127.0.0.1:8080/a/../b.markdown", "text/markdown", "web/127.0.0.1_8080/b.md"},
		{"http://[::1]:9/readme", "text/markdown", "web/__1_9/readme.md"},
		{"https://example.com/data.csv", "text/csv", "web/example.com/data.csv"},
		{"https://example.com/notes.txt", "text/html", "web/example.com/notes.txt.md"},
	} {
		p := &Page{URL: tc.url, MediaType: tc.media}
		if got, err := p.Name(); err != nil || got != tc.want {
			t.Errorf("Page{%s, %s}.Name() = %q, %v; want %q", tc.url, tc.media, got, err, tc.want)
		}
	}
	long := &Page{URL: "https://example.com/" + strings.Repeat("a", 2000), MediaType: "text/plain"}
	if got, _ := long.Name(); len(got) != 1000 {
		t.Errorf("a long URL's name is %d bytes, want 1000", len(got))
	}
	if _, err := (&Page{URL: "http://a b/%zz"}).Name(); err == nil {
		t.Error("a URL that does not parse: no error")
	}
}
