package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/braidsearch/braid/internal/testenv"
	"github.com/braidsearch/braid/settings"
)

// A search option out of its range gets the same one-line refusal from
// every front end — a flag, an MCP tool argument, a batch line and a
// setting — because all go through one check on one table of ranges
// (settings.Bound, braid.SearchOptions.Check).
func TestOptionRangesSameEverywhere(t *testing.T) {
	idx := filepath.Join(t.TempDir(), "idx")
	flags := []string{"--index", idx, "--model", "none"}
	if _, errOut, code := runCLI(t, append(flags, "index", vaultDir(t, 3, "alpha"))...); code != 0 {
		t.Fatalf("index: %s", errOut)
	}
	// braid config set writes: an index of its own, beside the one serve holds.
	cfg := []string{"--index", filepath.Join(t.TempDir(), "cfg"), "--model", "none"}
	if _, errOut, code := runCLI(t, append(cfg, "index", vaultDir(t, 1, "beta"))...); code != 0 {
		t.Fatalf("index: %s", errOut)
	}
	refusal := func(b settings.Bound, value string) string {
		return fmt.Sprintf("%s %q is out of range; want %s", b.Name, value, b.Allowed)
	}
	var serveErr testenv.Buffer
	c := serveClient(t, &serveErr, append(flags, "serve", "--read-only")...)
	for _, tc := range []struct {
		name  string
		want  string
		flags []string       // braid search's
		arg   map[string]any // the search tool's, where it has the option; nil where not
		line  string         // a batch line's fields
		set   []string       // braid config set's name and value, where it is a setting
	}{
		{"limit too high", refusal(settings.LimitBound, "5000"), []string{"--limit", "5000"}, map[string]any{"limit": 5000}, `"limit": 5000`, []string{"limit", "5000"}},
		{"limit negative", refusal(settings.LimitBound, "-1"), []string{"--limit=-1"}, map[string]any{"limit": -1}, `"limit": -1`, []string{"limit", "--", "-1"}},
		{"candidates too few", refusal(settings.CandidatesBound, "5"), []string{"--candidates", "5"}, nil, `"candidates": 5`, []string{"candidates", "5"}},
		{"vector weight above 1", refusal(settings.VectorWeightBound, "1.5"), []string{"--vector-weight", "1.5"}, map[string]any{"vector_weight": 1.5}, `"vector_weight": 1.5`, nil},
		{"similarity above 1", refusal(settings.SimilarityBound, "2"), []string{"--fuzzy", "--similarity", "2"}, map[string]any{"fuzzy": true, "similarity": 2}, `"fuzzy": true, "similarity": 2`, nil},
		{"fusion unknown", `fusion "max" is out of range; want linear or rrf`, []string{"--fusion", "max"}, map[string]any{"fusion": "max"}, `"fusion": "max"`, []string{"fusion", "max"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			check := func(front, got string) {
				t.Helper()
				if !strings.Contains(got, tc.want) || strings.Count(strings.TrimSpace(got), "\n") > 0 {
					t.Errorf("%s refused with %q, want one line holding %q", front, got, tc.want)
				}
			}
			_, errOut, code := runCLI(t, append(append(flags, "search"), append(tc.flags, "alpha")...)...)
			if code != 1 {
				t.Errorf("braid search %v: exit %d, want 1", tc.flags, code)
			}
			check("braid search", errOut)
			if tc.arg != nil {
				args := map[string]any{"query": "alpha"}
				for k, v := range tc.arg {
					args[k] = v
				}
				res, isErr := callTool(t, c, "search", args)
				if !isErr {
					t.Errorf("search tool %v: answered %q, want a refusal", tc.arg, res)
				}
				check("the search tool", res)
			}
			in := filepath.Join(t.TempDir(), "q.jsonl")
			if err := os.WriteFile(in, []byte(`{"id": 1, "query": "alpha", `+tc.line+"}\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			out, errOut, _ := runCLI(t, append(flags, "batch", in)...)
			var answer struct{ Error string }
			if err := json.Unmarshal([]byte(out), &answer); err != nil {
				t.Fatalf("braid batch: %q %s: %v", out, errOut, err)
			}
			check("a batch line", answer.Error)
			if tc.set != nil {
				_, errOut, code := runCLI(t, append(append(cfg, "config", "set"), tc.set...)...)
				if code != 1 {
					t.Errorf("braid config set %v: exit %d, want 1", tc.set, code)
				}
				check("braid config set", errOut)
			}
		})
	}
	// 0 leaves the limit to the index's setting, else 10.
	if out, errOut, code := runCLI(t, append(flags, "--json", "search", "--limit", "0", "alpha")...); code != 0 || !strings.Contains(out, `"results"`) {
		t.Errorf("braid search --limit 0: exit %d, %s %s; want the default limit", code, out, errOut)
	}
}
