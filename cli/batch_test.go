package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/braidsearch/braid/internal/testenv"
)

func TestBatchAnswersInOrder(t *testing.T) {
	idx := filepath.Join(t.TempDir(), "idx")
	vault := vaultDir(t, 30, "alpha")
	if _, errOut, code := runCLI(t, "--index", idx, "index", vault); code != 0 {
		t.Fatalf("index: %s", errOut)
	}
	var in strings.Builder
	for i := range 40 {
		fmt.Fprintf(&in, `{"id": %d, "query": "note number %d", "limit": 3, "rerank": false}`+"\n", i, i%30)
		if i == 17 {
			in.WriteString("{broken\n\n") // a malformed line, then a blank one
		}
	}
	queries := filepath.Join(t.TempDir(), "q.jsonl")
	testenv.Must(t, os.WriteFile(queries, []byte(in.String()), 0o644))

	out, errOut, code := runCLI(t, "--index", idx, "batch", "--workers", "4", queries)
	if code != 1 {
		t.Errorf("exit %d, want 1 (a line failed); stderr %q", code, errOut)
	}
	if !strings.Contains(errOut, "41 queries") || !strings.Contains(errOut, "queries/s") || !strings.Contains(errOut, "1 failed") {
		t.Errorf("summary %q, want the count, the rate and the failure", errOut)
	}
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	n := 0
	for sc.Scan() {
		var a struct {
			ID      *int   `json:"id"`
			Line    int    `json:"line"`
			Error   string `json:"error"`
			Results []struct {
				Title string `json:"title"`
			} `json:"results"`
		}
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			t.Fatalf("output line %d: %v", n+1, err)
		}
		switch {
		case n == 18:
			if a.Error == "" || a.Line != 19 {
				t.Errorf("output 19: %+v, want the error for input line 19", a)
			}
		default:
			want := n
			if n > 18 {
				want = n - 1
			}
			if a.ID == nil || *a.ID != want || a.Error != "" || len(a.Results) == 0 {
				t.Fatalf("output %d: %+v, want the answer to query %d", n+1, a, want)
			}
			if title := fmt.Sprintf("Note %d", want%30); a.Results[0].Title != title {
				t.Errorf("query %d: top hit %q, want %q", want, a.Results[0].Title, title)
			}
		}
		n++
	}
	if n != 41 {
		t.Errorf("%d output lines, want 41 (40 queries and one error)", n)
	}
	// A clean batch exits 0; a missing file is an error naming the fix.
	clean := filepath.Join(t.TempDir(), "clean.jsonl")
	testenv.Must(t, os.WriteFile(clean, []byte(`{"id": "a", "query": "alpha", "rerank": false}`+"\n"), 0o644))
	if out, errOut, code := runCLI(t, "--index", idx, "-q", "batch", clean); code != 0 || strings.Count(out, "\n") != 1 {
		t.Errorf("clean batch: exit %d, %d lines, stderr %q", code, strings.Count(out, "\n"), errOut)
	}
	if _, errOut, code := runCLI(t, "--index", idx, "-q", "batch", filepath.Join(t.TempDir(), "missing.jsonl")); code != 1 || !strings.Contains(errOut, "JSONL") {
		t.Errorf("missing file: exit %d, stderr %q", code, errOut)
	}
}
