package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/braidsearch/braid"
)

// A query that panics becomes that line's error; its worker and the
// other queries go on (issue 20, 8f). One worker: the worker that
// recovered answers the rest.
func TestBatchRecoversPanics(t *testing.T) {
	idx := filepath.Join(t.TempDir(), "idx")
	if _, errOut, code := runCLI(t, "--index", idx, "index", vaultDir(t, 3, "alpha")); code != 0 {
		t.Fatalf("index: %s", errOut)
	}
	defer func(f func(*braid.Engine, context.Context, string, braid.SearchOptions) (*braid.Results, error)) {
		batchSearch = f
	}(batchSearch)
	search := batchSearch
	batchSearch = func(e *braid.Engine, ctx context.Context, q string, opt braid.SearchOptions) (*braid.Results, error) {
		if q == "boom" {
			var m map[string]int
			m["boom"]++ // a nil map write: the kind of bug a panic is
		}
		return search(e, ctx, q, opt)
	}
	queries := filepath.Join(t.TempDir(), "q.jsonl")
	os.WriteFile(queries, []byte(`{"id":1,"query":"alpha"}`+"\n"+`{"id":"two","query":"boom"}`+"\n"+`{"id":3,"query":"alpha"}`+"\n"), 0o644)
	out, errOut, code := runCLI(t, "--index", idx, "batch", "--workers", "1", queries)
	if code != 1 || !strings.Contains(errOut, "line 2 panicked") || !strings.Contains(errOut, "1 failed") {
		t.Errorf("exit %d, stderr %.500q: want 1, the panic and the failure counted", code, errOut)
	}
	var got []string
	for l := range strings.Lines(out) {
		var a struct {
			ID      json.RawMessage `json:"id"`
			Line    int             `json:"line"`
			Error   string          `json:"error"`
			Results []struct{}      `json:"results"`
		}
		if err := json.Unmarshal([]byte(l), &a); err != nil {
			t.Fatalf("output %q: %v", l, err)
		}
		switch {
		case a.Error != "":
			got = append(got, string(a.ID)+" error line "+strconv.Itoa(a.Line)+": "+a.Error)
		default:
			got = append(got, string(a.ID)+" answered")
		}
	}
	if len(got) != 3 || got[0] != "1 answered" || got[2] != "3 answered" ||
		!strings.HasPrefix(got[1], `"two" error line 2: internal error: the search panicked`) {
		t.Errorf("answers %q: want 1 and 3 answered, two the panic as its error", got)
	}
}
