package mcpserver_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/braidsearch/braid/mcpserver"
)

func TestCheckAllow(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "note.md")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := mcpserver.CheckAllow([]string{dir, "s3://notes/team/"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{dir, "s3://notes/team"}, got); diff != "" {
		t.Errorf("CheckAllow (-want +got):\n%s", diff)
	}
	for _, tc := range []struct{ name, val, want string }{
		{"a file", file, "Options.Allow " + file + ": want an existing folder or an s3://bucket[/prefix] URL"},
		{"a missing folder", filepath.Join(dir, "missing"), "want an existing folder"},
		{"a URL without bucket", "s3://", "Options.Allow s3://: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := mcpserver.CheckAllow([]string{tc.val}); err == nil || !strings.HasPrefix(err.Error(), "mcpserver: ") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("CheckAllow(%s) = %v, want %q", tc.val, err, tc.want)
			}
		})
	}
}
