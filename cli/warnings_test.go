package cli

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/braidsearch/braid/model"
)

// rerankPrefix is what a search puts before the reason it is not
// reranked.
const rerankPrefix = "results are not reranked: "

// Each reason a model cannot be used fits a warning of at most 120
// characters and suggests only commands that work without Hugging Face:
// a pull from the Maven Central mirror where the registry has one, else a
// pull --from a directory (issue 20, point 7).
func TestBriefReasons(t *testing.T) {
	long := strings.Repeat("/a/very/long/path ", 20)
	tests := []struct {
		name     string
		err      error
		model    string
		kind     model.Kind
		want     string // in the reason
		wantNot  string // never in it
		pullable string // the id the reason pulls, which must be a registry id
	}{
		{"default reranker missing", fmt.Errorf("%w: %s has no model.onnx; run `braid models pull X`", model.ErrNoModel, long), "", model.KindCrossEncoder,
			"--from DIR", "huggingface", "ms-marco-MiniLM-L-6-v2"},
		{"named reranker missing", fmt.Errorf("%w: x", model.ErrNoModel), "BAAI/bge-reranker-base:int8", model.KindCrossEncoder,
			"--from DIR", "huggingface", "bge-reranker-base:int8"},
		{"default embedder missing: Maven Central has it", fmt.Errorf("%w: x", model.ErrNoModel), "", model.KindEmbedder,
			"fetches it", "--from", "bge-small-en-v1.5"},
		{"no runtime", fmt.Errorf("%w (looked in %s); run make ort", model.ErrNoRuntime, long), "", model.KindCrossEncoder,
			"BRAID_ORT_LIB", "make ort", ""},
		{"runtime too old", fmt.Errorf("%w: 1.16", model.ErrRuntimeTooOld), "", model.KindEmbedder, "1.24", "", ""},
		{"damaged files", fmt.Errorf("%w: %s", model.ErrChecksum, long), "", model.KindCrossEncoder, "braid models verify", "", ""},
		{"anything else", errors.New("model: " + long), "", model.KindEmbedder, "braid doctor", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := brief(tc.err, tc.model, tc.kind)
			if n := len(rerankPrefix + got); n > 120 {
				t.Errorf("warning of %d characters, want at most 120: %q", n, rerankPrefix+got)
			}
			if !strings.Contains(got, tc.want) || tc.wantNot != "" && strings.Contains(got, tc.wantNot) {
				t.Errorf("reason %q: want it to say %q and not %q", got, tc.want, tc.wantNot)
			}
			if tc.pullable != "" {
				if !strings.Contains(got, "braid models pull "+tc.pullable) {
					t.Errorf("reason %q does not pull %s", got, tc.pullable)
				}
				if _, ok := model.Lookup(tc.pullable); !ok {
					t.Errorf("braid models pull %s: not a registry id", tc.pullable)
				}
			}
		})
	}
}

// Searches in one process without a cross-encoder say so once, briefly:
// two queries of one braid batch (issue 20, point 7).
func TestBatchWarnsOnceWithoutReranker(t *testing.T) {
	idx := filepath.Join(t.TempDir(), "idx")
	if _, errOut, code := runCLI(t, "--index", idx, "--model", "none", "index", vaultDir(t, 3, "alpha")); code != 0 {
		t.Fatalf("index: %s", errOut)
	}
	queries := filepath.Join(t.TempDir(), "q.jsonl")
	os.WriteFile(queries, []byte(`{"id":1,"query":"alpha"}`+"\n"+`{"id":2,"query":"note"}`+"\n"+`{"id":3,"query":"gardens"}`+"\n"), 0o644)
	out, errOut, code := runCLI(t, "--index", idx, "--model", "none", "batch", "--workers", "2", queries)
	if code != 0 {
		t.Fatalf("batch: exit %d, %s", code, errOut)
	}
	var warnings []string
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var a struct{ Warning string }
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			t.Fatal(err)
		}
		if a.Warning != "" {
			warnings = append(warnings, a.Warning)
		}
	}
	if len(warnings) != 1 || !strings.HasPrefix(warnings[0], rerankPrefix) || len(warnings[0]) > 120 {
		t.Errorf("warnings %q: want one, saying briefly (120 characters at most) that results are not reranked", warnings)
	}
	// A single search says it too, on one short line.
	_, errOut, code = runCLI(t, "--index", idx, "--model", "none", "search", "alpha")
	if line := strings.TrimSpace(errOut); code != 0 || !strings.Contains(line, rerankPrefix) || strings.Contains(line, "\n") || len(line) > 120+len("braid: warning: ") {
		t.Errorf("search: exit %d, stderr %q: want one short warning line", code, errOut)
	}
}

// Over MCP, the first search's reply says it is not reranked, in at most
// 120 characters, and later replies do not repeat it.
func TestServeWarnsOnceWithoutReranker(t *testing.T) {
	idx := filepath.Join(t.TempDir(), "idx")
	if _, errOut, code := runCLI(t, "--index", idx, "--model", "none", "index", vaultDir(t, 3, "alpha")); code != 0 {
		t.Fatalf("index: %s", errOut)
	}
	var serveErr syncBuffer
	c := serveClient(t, &serveErr, "--index", idx, "--model", "none", "serve")
	var clauses []string
	for _, q := range []string{"alpha", "note", "gardens"} {
		out, isErr := callTool(t, c, "search", map[string]any{"query": q})
		var r struct{ Warning string }
		if isErr || json.Unmarshal([]byte(out), &r) != nil {
			t.Fatalf("search %q: %.300s", q, out)
		}
		if i := strings.Index(r.Warning, rerankPrefix); i >= 0 {
			clauses = append(clauses, r.Warning[i:])
		} else if strings.Contains(r.Warning, "rerank") {
			clauses = append(clauses, r.Warning)
		}
	}
	if len(clauses) != 1 || len(clauses[0]) > 120 {
		t.Errorf("rerank warnings %q: want one of at most 120 characters", clauses)
	}
}
