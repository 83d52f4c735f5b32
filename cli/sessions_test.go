package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// braid sessions, org, contents and lineage: the seed tools' data on the
// command line, in text and --json.
func TestSessionsOrgContentsLineageCLI(t *testing.T) {
	vault := t.TempDir()
	if err := os.MkdirAll(filepath.Join(vault, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{"top.md": "# Top\n\ntop alpha\n", "sub/in.md": "# In\n\ninner alpha\n"} {
		if err := os.WriteFile(filepath.Join(vault, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	idx := filepath.Join(t.TempDir(), "idx")
	run := func(args ...string) string {
		t.Helper()
		out, errOut, code := runCLI(t, append([]string{"--index", idx, "--model", "none"}, args...)...)
		if code != 0 {
			t.Fatalf("braid %v: exit %d: %s", args, code, errOut)
		}
		return out
	}
	run("index", vault)
	if out := run("sessions"); !strings.Contains(out, "no sessions") {
		t.Errorf("sessions before any: %q", out)
	}
	if out := run("sessions", "start", "work", "--description", "inner notes"); !strings.Contains(out, "work  (current; 0 documents)  inner notes") {
		t.Errorf("sessions start: %q", out)
	}
	if out := run("sessions", "pin", "sub"); !strings.Contains(out, "changed sub; the pins given select 1 indexed documents now") {
		t.Errorf("sessions pin: %q", out)
	}
	if out := run("ls", "--session", "work", "--paths-only"); out != "sub/in.md\n" {
		t.Errorf("ls --session: %q", out)
	}
	if out := run("search-keyword", "alpha", "--session", "work", "--paths-only"); strings.Count(out, "\n") != 1 || !strings.HasSuffix(out, "sub/in.md\n") {
		t.Errorf("search-keyword --session: %q", out)
	}
	var list []struct {
		Name      string
		Pins      []string
		Current   bool
		Documents int
	}
	if err := json.Unmarshal([]byte(run("--json", "sessions")), &list); err != nil || len(list) != 1 || !list[0].Current || list[0].Documents != 1 {
		t.Errorf("sessions --json: %+v, %v", list, err)
	}
	run("sessions", "unpin", "sub")
	if out := run("sessions", "stop"); !strings.Contains(out, "work  (stopped; 0 documents)") {
		t.Errorf("sessions stop: %q", out)
	}
	if _, errOut, code := runCLI(t, "--index", idx, "sessions", "pin", "x"); code != 1 || !strings.Contains(errOut, "no session is current") {
		t.Errorf("pin with no session current: %d %q", code, errOut)
	}

	run("config", "set", "name", "Field notes")
	var org struct {
		ID, Name string
		Docs     int `json:"documents"`
	}
	if err := json.Unmarshal([]byte(run("--json", "org")), &org); err != nil || org.Name != "Field notes" || org.Docs != 2 || len(org.ID) != 36 {
		t.Errorf("org --json: %+v, %v", org, err)
	}
	out := run("contents", filepath.Base(vault))
	if !strings.Contains(out, "sub/  (1 documents)") || !strings.Contains(out, "top.md") {
		t.Errorf("contents: %q", out)
	}
	var hit struct {
		Results []struct {
			ChunkID string `json:"chunk_id"`
		}
	}
	if err := json.Unmarshal([]byte(run("--json", "search-keyword", "inner")), &hit); err != nil || len(hit.Results) == 0 {
		t.Fatalf("search-keyword --json: %v", err)
	}
	if out := run("lineage", hit.Results[0].ChunkID); !strings.Contains(out, "is in the index now") || !strings.Contains(out, "sub/in.md") {
		t.Errorf("lineage: %q", out)
	}
}
