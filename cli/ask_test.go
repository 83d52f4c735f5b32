package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/braidsearch/braid"
)

func TestAskCLI(t *testing.T) {
	idx := filepath.Join(t.TempDir(), "idx")
	if _, errOut, code := runCLI(t, "--index", idx, "index", vaultDir(t, 6, "alpha")); code != 0 {
		t.Fatalf("index: %s", errOut)
	}
	out, errOut, code := runCLI(t, "--index", idx, "--model", "none", "ask", "note number alpha", "--budget", "300")
	if code != 0 {
		t.Fatalf("ask: code %d, stderr %q", code, errOut)
	}
	if !strings.Contains(out, "braid writes no answer") || !strings.Contains(out, "](note-000") || !strings.Contains(out, "\n> This is note number") {
		t.Errorf("ask text:\n%s", out)
	}
	out, errOut, code = runCLI(t, "--index", idx, "--model", "none", "--json", "ask", "note number alpha", "--budget", "300", "--path", "note-0001.md")
	var p braid.Pack
	if code != 0 || json.Unmarshal([]byte(out), &p) != nil {
		t.Fatalf("ask --json: code %d, stderr %q, out %q", code, errOut, out)
	}
	if p.Budget != 300 || p.Tokens > 300 || len(p.Documents) != 1 || p.Documents[0].Path != "note-0001.md" || p.Passages == 0 {
		t.Errorf("ask --json --path note-0001.md: %+v", p)
	}
	for _, ps := range p.Documents[0].Passages {
		if !strings.HasPrefix(ps.Tag, "[Note 1](note-0001.md#L") || ps.Text == "" {
			t.Errorf("passage %+v", ps)
		}
	}
}

func TestAskCLIBadInput(t *testing.T) {
	idx := filepath.Join(t.TempDir(), "idx")
	if _, errOut, code := runCLI(t, "--index", idx, "index", vaultDir(t, 2, "alpha")); code != 0 {
		t.Fatalf("index: %s", errOut)
	}
	empty := filepath.Join(t.TempDir(), "empty")
	if _, errOut, code := runCLI(t, "--index", empty, "index", t.TempDir()); code != 0 {
		t.Fatalf("index of an empty folder: %s", errOut)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"empty question", []string{"--index", idx, "ask", ""}, "braid: empty query"},
		{"no question", []string{"--index", idx, "ask"}, "expected \"<question>\""},
		{"too long", []string{"--index", idx, "ask", strings.Repeat("alpha ", 700)}, "the limit is 4096 bytes"},
		{"budget low", []string{"--index", idx, "ask", "alpha", "--budget", "99"}, "braid: --budget 99 tokens out of range, want 100..16000"},
		{"budget high", []string{"--index", idx, "ask", "alpha", "--budget", "16001"}, "want 100..16000"},
		{"budget not a number", []string{"--index", idx, "ask", "alpha", "--budget", "lots"}, "--budget"},
		{"nothing indexed", []string{"--index", empty, "ask", "alpha"}, "braid: no documents indexed yet in " + empty + "; run braid index PATH"},
		{"nothing indexed: search", []string{"--index", empty, "search", "alpha"}, "braid: no documents indexed yet in " + empty + "; run braid index PATH"},
		{"nothing indexed: search-keyword", []string{"--index", empty, "search-keyword", "alpha"}, "braid: no documents indexed yet in " + empty + "; run braid index PATH"},
		{"no index", []string{"--index", filepath.Join(t.TempDir(), "none"), "ask", "alpha"}, "no index here yet"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := runCLI(t, append([]string{"--model", "none"}, tc.args...)...)
			if code != 1 || out != "" || !strings.Contains(errOut, tc.want) || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
				t.Errorf("code %d, stdout %q, stderr %q; want exit 1 and one line containing %q", code, out, errOut, tc.want)
			}
		})
	}
}
