package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/braidsearch/braid/internal/testenv"
)

// Plain doctor only reads, so it works while braid serve holds the index:
// the server runs it on its own engine. --repair needs the index to itself
// and says who holds it (issue 20, 8d).
func TestDoctorBesideServe(t *testing.T) {
	idx := filepath.Join(t.TempDir(), "idx")
	if _, errOut, code := runCLI(t, "--index", idx, "--model", "none", "index", vaultDir(t, 4, "alpha")); code != 0 {
		t.Fatalf("index: %s", errOut)
	}
	var serveErr testenv.Buffer
	c := serveClient(t, &serveErr, "--index", idx, "--model", "none", "serve")
	waitForSocket(t, idx)

	out, errOut, code := runCLI(t, "--index", idx, "--model", "none", "--json", "doctor")
	var rep struct {
		Healthy bool
		Checks  []struct {
			Name string
			OK   bool
		}
	}
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil || !rep.Healthy {
		t.Fatalf("doctor beside serve: exit %d, stderr %q, stdout %.500q", code, errOut, out)
	}
	names := map[string]bool{}
	for _, ch := range rep.Checks {
		names[ch.Name] = true
	}
	for _, want := range []string{"files", "commits", "lexical", "chunks"} {
		if !names[want] {
			t.Errorf("doctor beside serve has no %q check: %+v", want, rep.Checks)
		}
	}
	if _, errOut, code := runCLI(t, "--index", idx, "doctor", "--repair"); code != 1 || !strings.Contains(errOut, "braid serve") {
		t.Errorf("doctor --repair beside serve: exit %d, %q: want 1 naming braid serve", code, errOut)
	}
	// The server is still there and answers.
	if out, isErr := callTool(t, c, "search_keyword", map[string]any{"query": "alpha"}); isErr {
		t.Errorf("search after doctor: %.300q", out)
	}
	if t.Failed() {
		t.Logf("serve stderr:\n%s", serveErr.String())
	}
}
