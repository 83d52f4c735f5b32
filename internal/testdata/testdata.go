// Package testdata finds the project's shared data folder (BEIR SciFact,
// the markdown vaults, the real tokenizers) for tests in any package.
package testdata

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// NoData is the first clause of the message a test skips with when the
// shared folder lacks what it needs (see internal/testenv).
const NoData = "no shared data"

// Dir returns sub inside the shared data folder: $BRAID_TESTDATA (make
// test sets it from DATA), else shared/data beside the repository. It
// skips the test, naming the path, when that is absent.
func Dir(tb testing.TB, sub string) string {
	tb.Helper()
	return need(tb, filepath.Join(dataRoot(), sub))
}

// Models returns sub inside the shared models folder (ModelsDir); it
// skips the test like Dir.
func Models(tb testing.TB, sub string) string {
	tb.Helper()
	return need(tb, filepath.Join(ModelsDir(), sub))
}

// ModelsDir is the shared models folder, models beside the shared data
// folder (shared/models), whether it exists or not.
func ModelsDir() string {
	return filepath.Join(filepath.Dir(filepath.Clean(dataRoot())), "models")
}

func dataRoot() string {
	if root := os.Getenv("BRAID_TESTDATA"); root != "" {
		return root
	}
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "data")
}

func need(tb testing.TB, p string) string {
	tb.Helper()
	if _, err := os.Stat(p); err != nil {
		tb.Skipf("%s: %s not found (set DATA for make, or BRAID_TESTDATA, to the shared data folder)", NoData, p)
	}
	return p
}
