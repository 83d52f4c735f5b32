package braid_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/braidsearch/braid"
)

// An engine holding its index for writing checks its own files through
// its open handles, where CheckFiles, opening them again, is refused
// (braid serve running doctor for another process; issue 20, 8d).
func TestEngineCheckFiles(t *testing.T) {
	e := indexed(t, nil, writeVault(t, vault))
	if _, err := braid.CheckFiles(e.Capabilities().Dir); !errors.Is(err, braid.ErrLocked) {
		t.Fatalf("CheckFiles beside a writer: error %v, want ErrLocked", err)
	}
	checks, err := e.CheckFiles()
	if err != nil || len(checks) != 1 || !checks[0].OK || checks[0].Name != "files" {
		t.Fatalf("CheckFiles on the open engine: %+v, %v: want one passing files check", checks, err)
	}
	// A damaged file is a failed check naming it and its fix.
	if err := os.WriteFile(filepath.Join(e.Capabilities().Dir, "VERSION"), []byte("garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	checks, err = e.CheckFiles()
	if err != nil || len(checks) != 1 || checks[0].OK || !strings.Contains(checks[0].Detail, "VERSION") || !strings.Contains(checks[0].Detail, "--repair") {
		t.Errorf("garbled VERSION: %+v, %v: want a failed check naming VERSION and doctor --repair", checks, err)
	}
}
