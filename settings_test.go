package braid_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/braidsearch/braid"
)

func TestSettings(t *testing.T) {
	ctx := context.Background()
	files := map[string]string{}
	for _, n := range []string{"a", "b", "c", "d", "e", "f"} {
		files[n+".md"] = "# " + n + "\n\nshared word " + n + "\n"
	}
	dir := writeVault(t, files)
	idx := filepath.Join(t.TempDir(), "idx")
	e, err := braid.Open(idx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Index(ctx, []braid.SourceSpec{{Path: dir}}, nil); err != nil {
		t.Fatal(err)
	}
	count := func(opt braid.SearchOptions) int {
		t.Helper()
		res, err := e.Search(ctx, "shared", opt)
		if err != nil {
			t.Fatal(err)
		}
		return len(res.Results)
	}
	if n := count(braid.SearchOptions{}); n != 6 {
		t.Fatalf("default limit: %d results, want all 6", n)
	}
	if _, err := e.Config().Set("limit", "2"); err != nil {
		t.Fatal(err)
	}
	if n := count(braid.SearchOptions{}); n != 2 {
		t.Errorf("limit setting 2: %d results", n)
	}
	if n := count(braid.SearchOptions{Limit: 4}); n != 4 {
		t.Errorf("a search's own limit must win over the setting: %d results, want 4", n)
	}
	for _, c := range []struct{ name, value, want string }{
		{"limit", "0", "a whole number from 1 to 1000"},
		{"limit", "x", "a whole number"},
		{"vector_weight", "1.5", "from 0"},
		{"vector_weight", "NaN", "from 0"},
		{"fusion", "max", "linear or rrf"},
		{"rerank_budget", "-1s", "from 0"},
		{"rerank_budget", "1h", "to 10s"},
		{"candidates", "5", "from 10 to 1000"},
	} {
		if _, err := e.Config().Set(c.name, c.value); !errors.Is(err, braid.ErrBadOption) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("set %s %q: %v, want a refusal naming %q", c.name, c.value, err, c.want)
		}
	}
	if _, err := e.Config().Set("colour", "blue"); !errors.Is(err, braid.ErrUnknownSetting) || !strings.Contains(err.Error(), "vector_weight") {
		t.Errorf("unknown setting: %v, want one listing the settings", err)
	}
	// A vector weight set in the index does not warn on an index without
	// vectors, as the built-in default does not.
	if _, err := e.Config().Set("vector_weight", "0.7"); err != nil {
		t.Fatal(err)
	}
	if res, err := e.Search(ctx, "shared", braid.SearchOptions{}); err != nil || res.Warning != "" {
		t.Errorf("search with the weight setting: %v, warning %q", err, res.Warning)
	}
	e.Close()

	// Kept across processes, and shown in stats.
	e, err = braid.Open(idx, &braid.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if n := count(braid.SearchOptions{}); n != 2 {
		t.Errorf("after reopening: %d results, want the limit setting 2", n)
	}
	st, err := e.Stats(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var set []string
	for _, s := range st.Settings {
		if s.Set {
			set = append(set, s.Name+"="+s.Value)
		}
	}
	if strings.Join(set, ",") != "vector_weight=0.7,limit=2" {
		t.Errorf("stats settings set: %v", set)
	}
	if _, err := e.Config().Set("limit", "3"); !errors.Is(err, braid.ErrReadOnly) {
		t.Errorf("set on a read-only engine: %v", err)
	}
	e.Close()

	// A damaged settings file is named, not ignored or a panic.
	if err := os.WriteFile(filepath.Join(idx, "settings.json"), []byte(`{"limit": 5000}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := braid.Open(idx, nil); err == nil || !strings.Contains(err.Error(), "settings.json") || !strings.Contains(err.Error(), "limit") {
		t.Errorf("open with limit 5000 in settings.json: %v", err)
	}
	if err := os.WriteFile(filepath.Join(idx, "settings.json"), []byte(`{"limit": `), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := braid.Open(idx, nil); err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Errorf("open with a truncated settings.json: %v", err)
	}
}
