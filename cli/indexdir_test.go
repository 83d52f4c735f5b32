package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/braidsearch/braid/internal/testenv"
)

// A first index that fails before writing anything leaves no index folder
// behind, nor the parents it made for it; a later good run works there
// (issue 20, 8b).
func TestFailedFirstIndexLeavesNoFolder(t *testing.T) {
	root := t.TempDir()
	missing := filepath.Join(root, "no-such-vault")
	for _, idx := range []string{filepath.Join(root, "idx"), filepath.Join(root, "a", "b", "idx")} {
		_, errOut, code := runCLI(t, "--index", idx, "index", missing)
		if code != 1 || !strings.Contains(errOut, "does not exist") {
			t.Errorf("index %s: exit %d, stderr %q: want 1 and the path named", missing, code, errOut)
		}
	}
	if ents := testenv.Must1(os.ReadDir(root))(t); len(ents) != 0 {
		t.Errorf("a failed first index left %v in %s", ents, root)
	}

	// An index that exists is kept when a later run fails.
	idx := filepath.Join(root, "idx")
	if _, errOut, code := runCLI(t, "--index", idx, "index", vaultDir(t, 2, "alpha")); code != 0 {
		t.Fatalf("index: %s", errOut)
	}
	if _, _, code := runCLI(t, "--index", idx, "index", missing); code != 1 {
		t.Fatalf("index %s: exit %d, want 1", missing, code)
	}
	if out, errOut, code := runCLI(t, "--index", idx, "search-keyword", "alpha"); code != 0 || !strings.Contains(out, "note-0000.md") {
		t.Errorf("search after a failed re-index: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// --index naming a file (or a path under one) is one clear line naming
// the flag, for every command that uses the index (issue 20, 8c).
func TestIndexFlagOnAFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "notes.txt")
	testenv.Must(t, os.WriteFile(file, []byte("not an index"), 0o644))
	vault := vaultDir(t, 1, "alpha")
	tests := []struct {
		name string
		idx  string
		args []string
		want string
	}{
		{"search", file, []string{"search", "alpha"}, "is a file, not a directory"},
		{"index", file, []string{"index", vault}, "is a file, not a directory"},
		{"doctor", file, []string{"doctor"}, "is a file, not a directory"},
		{"under a file", filepath.Join(file, "idx"), []string{"index", vault}, "which is a file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := runCLI(t, append([]string{"--index", tc.idx}, tc.args...)...)
			lines := strings.Split(strings.TrimSpace(errOut), "\n")
			if code != 1 || out != "" || len(lines) != 1 || !strings.Contains(errOut, tc.want) || !strings.Contains(errOut, "--index") ||
				strings.Contains(errOut, "not a directory:") {
				t.Errorf("exit %d, stdout %q, stderr %q: want 1 and one line naming --index and saying %q", code, out, errOut, tc.want)
			}
		})
	}
	if b, _ := os.ReadFile(file); string(b) != "not an index" {
		t.Errorf("the file became %q", b)
	}
	// Commands that never touch the index do not care.
	if _, errOut, code := runCLI(t, "--index", file, "version"); code != 0 {
		t.Errorf("version with --index on a file: exit %d, %s", code, errOut)
	}
}
