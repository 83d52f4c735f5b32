package docstore_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/braidsearch/braid/docstore"
)

// FuzzCleanName checks that every name the store accepts stays inside the
// directory restore writes to.
func FuzzCleanName(f *testing.F) {
	for _, s := range []string{"a.md", "notes/idea.md", "../x", "/etc/passwd", "a/../../b", "./a", "a//b", "C:\\x", "", " x ", "a\x00b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		n, err := docstore.CleanName(name)
		if err != nil {
			return
		}
		if !filepath.IsLocal(filepath.FromSlash(n)) || strings.Contains(n, "..") && strings.Contains("/"+n+"/", "/../") {
			t.Fatalf("CleanName(%q) = %q, which leaves the store", name, n)
		}
		out := filepath.Join("/out", filepath.FromSlash(n))
		if rel, err := filepath.Rel("/out", out); err != nil || !filepath.IsLocal(rel) {
			t.Fatalf("CleanName(%q) = %q writes to %s", name, n, out)
		}
		if again, err := docstore.CleanName(n); err != nil || again != n {
			t.Fatalf("CleanName is not idempotent on %q: %q, %v", n, again, err)
		}
	})
}
