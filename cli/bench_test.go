package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBenchKeep: --keep leaves the corpus and the index it built under
// DIR/<chunks>/, an index braid opens afterwards, and refuses a directory
// that already holds something.
func TestBenchKeep(t *testing.T) {
	keep := filepath.Join(t.TempDir(), "kept")
	args := []string{"--model", "none", "-q", "bench", "--chunks", "20", "--queries", "1", "--model-ingest", "0", "--rerankers", "none", "--json", "--keep", keep}
	if _, errOut, code := runCLI(t, args...); code != 0 {
		t.Fatalf("bench --keep: exit %d: %s", code, errOut)
	}
	note := filepath.Join(keep, "20", "corpus", "d000", "note-000000.md")
	if _, err := os.Stat(note); err != nil {
		t.Fatalf("the corpus was not kept: %v", err)
	}
	out, errOut, code := runCLI(t, "--model", "none", "--index", filepath.Join(keep, "20", "index"), "--json", "stats")
	if code != 0 || !strings.Contains(out, `"chunks": 20`) {
		t.Fatalf("the kept index did not open with its 20 chunks: exit %d\n%s%s", code, out, errOut)
	}
	_, errOut, code = runCLI(t, args...)
	if code == 0 || !strings.Contains(errOut, "not empty") {
		t.Fatalf("bench --keep into a used directory: exit %d, stderr %q; want a refusal naming it", code, errOut)
	}
}
