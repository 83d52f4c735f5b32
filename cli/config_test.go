package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/braidsearch/braid"
)

func TestConfigCLI(t *testing.T) {
	idx := filepath.Join(t.TempDir(), "idx")
	if _, errOut, code := runCLI(t, "--index", idx, "--model", "none", "index", vaultDir(t, 6, "alpha")); code != 0 {
		t.Fatalf("index: %s", errOut)
	}
	if out, errOut, code := runCLI(t, "--index", idx, "config", "set", "limit", "2"); code != 0 || out != "limit = 2\n" {
		t.Fatalf("config set: %d %q %q", code, out, errOut)
	}
	out, _, _ := runCLI(t, "--index", idx, "--model", "none", "search-keyword", "alpha", "--paths-only")
	if n := strings.Count(out, "\n"); n != 2 {
		t.Errorf("search after config set limit 2: %d paths", n)
	}
	out, _, _ = runCLI(t, "--index", idx, "--model", "none", "search-keyword", "alpha", "--paths-only", "-n", "3")
	if n := strings.Count(out, "\n"); n != 3 {
		t.Errorf("search -n 3 with the limit set to 2: %d paths, want the flag to win", n)
	}
	if out, _, code := runCLI(t, "--index", idx, "config", "get", "limit"); code != 0 || out != "2\n" {
		t.Errorf("config get: %q", out)
	}
	out, _, code := runCLI(t, "--index", idx, "--json", "config", "list")
	var l struct {
		Settings []struct {
			Name, Value, Default string
			Set                  bool
		}
	}
	if code != 0 || json.Unmarshal([]byte(out), &l) != nil || len(l.Settings) != len(braid.SettingNames()) {
		t.Fatalf("config list --json: %s", out)
	}
	if out, _, _ := runCLI(t, "--index", idx, "stats"); !strings.Contains(out, "settings (braid config): limit=2") {
		t.Errorf("stats does not show the setting: %q", out)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"config", "set", "limit", "5000"}, "a whole number from 1 to 1000"},
		{[]string{"config", "set", "fusion", "max"}, "linear or rrf"},
		{[]string{"config", "set", "nope", "1"}, "unknown setting"},
		{[]string{"config", "get", "nope"}, "the settings are"},
		{[]string{"config", "set", "limit", " "}, "braid config reset limit"},
		{[]string{"config", "reset"}, "--all"},
	} {
		if _, errOut, code := runCLI(t, append([]string{"--index", idx}, c.args...)...); code != 1 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: code %d, %q; want %q", c.args, code, errOut, c.want)
		}
	}
	if out, _, code := runCLI(t, "--index", idx, "config", "reset", "--all"); code != 0 || !strings.Contains(out, "limit = 10") {
		t.Errorf("config reset --all: %q", out)
	}
}
