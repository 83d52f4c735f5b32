// Package testdata finds the project's shared data folder (BEIR SciFact,
// the markdown vaults) for tests in any package.
package testdata

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Dir returns sub inside the shared data folder: $BRAID_TESTDATA, else
// shared/data beside the repository. It skips the test, naming the path,
// when that is absent.
func Dir(tb testing.TB, sub string) string {
	tb.Helper()
	root := os.Getenv("BRAID_TESTDATA")
	if root == "" {
		_, file, _, _ := runtime.Caller(0)
		root = filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "data")
	}
	p := filepath.Join(root, sub)
	if _, err := os.Stat(p); err != nil {
		tb.Skipf("test data %s not found (set BRAID_TESTDATA to the shared data folder): %v", p, err)
	}
	return p
}
