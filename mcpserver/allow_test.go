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

// A refusal says nothing of the disk outside the allowed folders: it reads
// the same for a folder or file that exists there and for one that does
// not, and never names where a link leads (issue 30, 7.3).
func TestRefusalsSayNothingOfTheDisk(t *testing.T) {
	vault, c := lexicalServer(t, &mcpserver.Options{Tools: "all"}) // only the vault, its one source, is allowed
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.md")
	if err := os.WriteFile(secret, []byte("secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(outside, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	links := map[string]string{
		"to-file.md":   secret,
		"to-folder":    outside,
		"to-missing":   filepath.Join(outside, "missing", "x.md"),
		"loop":         filepath.Join(vault, "loop"), // itself: ELOOP
		"to-proc-self": "/proc/self/exe",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(vault, name)); err != nil {
			t.Fatal(err)
		}
	}
	exe, err := filepath.EvalSymlinks("/proc/self/exe") // this test, the server
	if err != nil {
		t.Skip("no /proc/self/exe:", err)
	}
	paths := []string{
		outside,
		filepath.Join(outside, "sub"),
		secret,
		filepath.Join(outside, "missing"),
		filepath.Join(outside, "missing", "x.md"),
		filepath.Join(secret, "x"), // under a file: ENOTDIR
		filepath.Join(vault, "to-file.md"),
		filepath.Join(vault, "to-folder"),
		filepath.Join(vault, "to-folder", "sub"),
		filepath.Join(vault, "to-missing"),
		filepath.Join(vault, "loop"),
		filepath.Join(vault, "to-proc-self"),
		"/proc/self/exe",
	}
	for _, tc := range []struct {
		tool string
		args func(p string) map[string]any
	}{
		{"index_path", func(p string) map[string]any { return map[string]any{"path": p} }},
		{"add", func(p string) map[string]any { return map[string]any{"path": p, "name": "x.md"} }},
		{"grep", func(p string) map[string]any { return map[string]any{"pattern": "secret", "paths": []string{p}} }},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			first := ""
			for _, p := range paths {
				r := c.call(tc.tool, tc.args(p))
				msg := strings.ReplaceAll(r.Text, p, "PATH")
				if !r.IsError {
					t.Errorf("%s %s: %q, want a refusal", tc.tool, p, r.Text)
				}
				for _, leak := range []string{outside, exe, "/proc/self"} {
					if strings.Contains(msg, leak) {
						t.Errorf("%s %s: %q names %s", tc.tool, p, r.Text, leak)
					}
				}
				if first == "" {
					first = msg
					t.Log(msg)
				} else if diff := cmp.Diff(first, msg); diff != "" {
					t.Errorf("%s %s: the refusal differs from that for %s (-first +this):\n%s", tc.tool, p, paths[0], diff)
				}
			}
		})
	}
	// Inside the vault grep still tells a folder with nothing indexed, as
	// ripgrep would, from a path that does not exist.
	if err := os.Mkdir(filepath.Join(vault, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]string{
		filepath.Join(vault, "empty"):   "grep: no indexed documents under " + filepath.Join(vault, "empty"),
		filepath.Join(vault, "missing"): "grep: not an indexed file: " + filepath.Join(vault, "missing"),
	} {
		if r := c.call("grep", map[string]any{"pattern": "x", "paths": []string{p}}); !r.IsError || !strings.HasPrefix(r.Text, want) {
			t.Errorf("grep %s: %q, want %q", p, r.Text, want)
		}
	}
}
