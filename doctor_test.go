package braid_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/braidsearch/braid"
)

// An engine holding its index for writing checks its own files through
// its open handles, where CheckFiles, opening them again, is refused
// (braid serve running doctor for another process; issue 20, 8d).
func TestDoctorFiles(t *testing.T) {
	e := indexed(t, nil, writeVault(t, vault))
	if _, err := braid.CheckFiles(e.Capabilities().Dir); !errors.Is(err, braid.ErrLocked) {
		t.Fatalf("CheckFiles beside a writer: error %v, want ErrLocked", err)
	}
	checks, err := e.Doctor(t.Context(), &braid.DoctorOptions{Files: true})
	if err != nil || len(checks) < 2 || !checks[0].OK || checks[0].Name != "files" || slices.ContainsFunc(checks[1:], func(c braid.Check) bool { return c.Name == "files" }) {
		t.Fatalf("Doctor with Files on the open engine: %+v, %v: want one passing files check, then the consistency checks", checks, err)
	}
	// A damaged file is a failed check naming it and its fix, and the
	// consistency checks are left out.
	if err := os.WriteFile(filepath.Join(e.Capabilities().Dir, "VERSION"), []byte("garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	checks, err = e.Doctor(t.Context(), &braid.DoctorOptions{Files: true})
	if err != nil || len(checks) != 1 || checks[0].OK || !strings.Contains(checks[0].Detail, "VERSION") || !strings.Contains(checks[0].Detail, "--repair") {
		t.Errorf("garbled VERSION: %+v, %v: want a failed check naming VERSION and doctor --repair", checks, err)
	}
}
