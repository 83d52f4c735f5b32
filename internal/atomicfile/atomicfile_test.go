package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

// Replace writes the new content and keeps the file's permissions; a
// file that is not there is an error.
func TestReplace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "note.md")
	if err := os.WriteFile(path, []byte("old\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := Replace(path, []byte("new\n")); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != "new\n" || info.Mode().Perm() != 0o640 {
		t.Errorf("after Replace: %q, mode %v; want \"new\\n\", -rw-r-----", data, info.Mode().Perm())
	}
	if err := Replace(filepath.Join(t.TempDir(), "gone.md"), nil); !os.IsNotExist(err) {
		t.Errorf("Replace of a missing file: %v, want not exist", err)
	}
}
