package indexdir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMakeDirAndRemoveCreated(t *testing.T) {
	root := t.TempDir()
	for _, tc := range []struct {
		name, dir, want string
	}{
		{"existing", root, ""},
		{"one new", filepath.Join(root, "a"), filepath.Join(root, "a")},
		{"parents new", filepath.Join(root, "b", "c", "d"), filepath.Join(root, "b")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			created, err := MakeDir(tc.dir)
			if err != nil || created != tc.want {
				t.Fatalf("MakeDir(%s) = %q, %v; want %q", tc.dir, created, err, tc.want)
			}
			if fi, err := os.Stat(tc.dir); err != nil || !fi.IsDir() {
				t.Fatalf("MakeDir left no directory at %s: %v", tc.dir, err)
			}
			RemoveCreated(created)
			_, err = os.Stat(tc.dir)
			if gone := os.IsNotExist(err); gone != (tc.want != "") {
				t.Errorf("after RemoveCreated(%q), %s gone = %v", created, tc.dir, gone)
			}
		})
	}
	if _, err := os.Stat(root); err != nil {
		t.Fatalf("RemoveCreated took a directory it did not create: %v", err)
	}
}

func TestCheckDir(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, dir, want string
	}{
		{"directory", root, ""},
		{"missing", filepath.Join(root, "new", "idx"), ""},
		{"a file", file, "is a file, not a directory"},
		{"under a file", filepath.Join(file, "idx"), "lies under " + file},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckDir(tc.dir)
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("CheckDir(%s) = %v, want %q", tc.dir, err, tc.want)
			}
		})
	}
}
