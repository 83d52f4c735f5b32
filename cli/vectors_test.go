package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/braidsearch/braid/internal/modeltest"
	"github.com/braidsearch/braid/internal/testenv"
)

type searchJSON struct {
	Results []struct {
		Path    string `json:"path"`
		Source  string `json:"source"`
		Explain *struct {
			LexicalRank  int     `json:"lexical_rank"`
			VectorRank   int     `json:"vector_rank"`
			VectorScore  float64 `json:"vector_score"`
			VectorWeight float64 `json:"vector_weight"`
			Fusion       string  `json:"fusion"`
		} `json:"explain"`
	} `json:"results"`
	Warning string `json:"warning"`
}

func decodeSearch(t *testing.T, out string) searchJSON {
	t.Helper()
	var r searchJSON
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("search --json printed %q: %v", out, err)
	}
	return r
}

// Without a runtime or model, a vector weight falls back to BM25 with one
// warning line on stderr and a warning field in JSON.
func TestSearchWithoutModelWarnsOnce(t *testing.T) {
	t.Setenv("BRAID_ORT_LIB", filepath.Join(t.TempDir(), "missing", "libonnxruntime.so.1"))
	idx := filepath.Join(t.TempDir(), "idx")
	vault := vaultDir(t, 3, "alpha")
	_, errOut, code := runCLI(t, "--index", idx, "index", vault)
	if code != 0 || !strings.Contains(errOut, "indexing without embeddings") || !strings.Contains(errOut, "BRAID_ORT_LIB") {
		t.Fatalf("index: code %d, stderr %q; want success with a warning naming BRAID_ORT_LIB", code, errOut)
	}
	out, errOut, code := runCLI(t, "--index", idx, "--json", "search", "--vector-weight", "0.7", "alpha")
	if code != 0 {
		t.Fatalf("search failed: %s", errOut)
	}
	r := decodeSearch(t, out)
	if len(r.Results) == 0 || r.Results[0].Source != "lexical" || !strings.Contains(r.Warning, "lexical") {
		t.Errorf("JSON %+v, want lexical results and a warning", r)
	}
	if lines := strings.Split(strings.TrimSpace(errOut), "\n"); len(lines) != 1 || !strings.HasPrefix(lines[0], "braid: warning: ") {
		t.Errorf("stderr %q, want exactly one warning line", errOut)
	}
	// No weight asked for and no reranking: lexical, silently.
	out, errOut, _ = runCLI(t, "--index", idx, "--json", "search", "--no-rerank", "alpha")
	if r := decodeSearch(t, out); r.Warning != "" || errOut != "" {
		t.Errorf("default search without a model: warning %q stderr %q, want neither", r.Warning, errOut)
	}
	// Reranking is on by default, but its model was not asked for: silent.
	out, errOut, _ = runCLI(t, "--index", idx, "--json", "search", "alpha")
	if r := decodeSearch(t, out); r.Warning != "" || errOut != "" {
		t.Errorf("default search without a reranker: warning %q stderr %q, want neither", r.Warning, errOut)
	}
	// Asked for: one warning says why not.
	out, errOut, _ = runCLI(t, "--index", idx, "--json", "search", "--rerank", "alpha")
	if r := decodeSearch(t, out); !strings.Contains(r.Warning, "not reranked") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("search --rerank without a reranker: warning %q stderr %q, want one rerank warning", r.Warning, errOut)
	}
	// doctor names what is missing and the fix.
	// doctor names what is missing and the fix; the index itself is healthy.
	out, _, code = runCLI(t, "--index", idx, "doctor")
	if code != 0 || !strings.Contains(out, "warn runtime") || !strings.Contains(out, "make ort") || !strings.Contains(out, "BM25 only") {
		t.Errorf("doctor: code %d, output %q; want a runtime warning naming make ort", code, out)
	}
}

func TestHybridSearchCLI(t *testing.T) {
	t.Setenv("BRAID_ORT_LIB", modeltest.NeedRuntime(t))
	t.Setenv("BRAID_MODEL", modeltest.TinyDir())
	t.Setenv("BRAID_RERANKER", modeltest.TinyCrossDir())
	idx := filepath.Join(t.TempDir(), "idx")
	vault := vaultDir(t, 4, "alpha")
	out, errOut, code := runCLI(t, "--index", idx, "--json", "index", vault)
	if code != 0 {
		t.Fatalf("index: %s", errOut)
	}
	var sum struct{ Chunks, Embedded int }
	testenv.Must(t, json.Unmarshal([]byte(out), &sum))
	if sum.Embedded == 0 || sum.Embedded != sum.Chunks {
		t.Errorf("index embedded %d of %d chunks", sum.Embedded, sum.Chunks)
	}
	for _, fusion := range []string{"linear", "rrf"} {
		out, errOut, code = runCLI(t, "--index", idx, "--json", "search", "--vector-weight", "0.7", "--fusion", fusion, "--explain", "note number alpha")
		if code != 0 {
			t.Fatalf("search --fusion %s: %s", fusion, errOut)
		}
		r := decodeSearch(t, out)
		if len(r.Results) != 4 || r.Warning != "" {
			t.Fatalf("%s: %+v, want 4 hybrid results", fusion, r)
		}
		x := r.Results[0].Explain
		if r.Results[0].Source != "hybrid+rerank" || x == nil || x.Fusion != fusion || x.VectorWeight != 0.7 || x.VectorRank == 0 || x.LexicalRank == 0 {
			t.Errorf("%s: first hit %+v explain %+v", fusion, r.Results[0], x)
		}
	}
	out, _, code = runCLI(t, "--index", idx, "search", "--vector-weight", "0.7", "--explain", "alpha")
	if code != 0 || !strings.Contains(out, "cosine") || !strings.Contains(out, "linear fused") || !strings.Contains(out, "rerank") || !strings.Contains(out, "reranked 8 of 8") {
		t.Errorf("text explain: %q", out)
	}
	out, _, code = runCLI(t, "--index", idx, "doctor")
	if code != 0 || !strings.Contains(out, "vectors") {
		t.Errorf("doctor with a model: code %d\n%s", code, out)
	}
	// An explicit model that does not exist is an error, not a fallback.
	_, errOut, code = runCLI(t, "--index", idx, "--model", "no/such-model", "search", "alpha")
	if code != 1 || !strings.Contains(errOut, "braid models list") && !strings.Contains(errOut, "registry") {
		t.Errorf("unknown model: code %d, stderr %q", code, errOut)
	}
}

func TestModelsCommands(t *testing.T) {
	models := t.TempDir()
	t.Setenv("BRAID_MODELS", models)
	out, _, code := runCLI(t, "--json", "models", "list")
	var list struct {
		Dir    string `json:"models_dir"`
		Models []struct {
			ID        string `json:"id"`
			Default   bool   `json:"default"`
			Installed bool   `json:"installed"`
			Kind      string `json:"kind"`
		} `json:"models"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &list) != nil || list.Dir != models {
		t.Fatalf("models list --json: code %d, %q", code, out)
	}
	defaults := 0
	for _, m := range list.Models {
		if m.Installed {
			t.Errorf("%s installed in an empty directory", m.ID)
		}
		if m.Default && m.Kind == "embedder" {
			defaults++
			if m.ID != "BAAI/bge-small-en-v1.5:int8" {
				t.Errorf("default embedder %s, want BAAI/bge-small-en-v1.5:int8", m.ID)
			}
		}
	}
	if defaults != 1 {
		t.Errorf("%d default embedders, want 1", defaults)
	}
	out, _, code = runCLI(t, "models", "path", "BAAI/bge-small-en-v1.5:int8")
	if code != 0 || strings.TrimSpace(out) != filepath.Join(models, "BAAI--bge-small-en-v1.5-int8") {
		t.Errorf("models path: %q", out)
	}
	// A mirror directory with the wrong bytes installs nothing.
	mirror := t.TempDir()
	testenv.Must(t, os.WriteFile(filepath.Join(mirror, "model.onnx"), []byte("not the model"), 0o644))
	testenv.Must(t, os.WriteFile(filepath.Join(mirror, "tokenizer.json"), []byte("{}"), 0o644))
	_, errOut, code := runCLI(t, "models", "pull", "--from", mirror, "BAAI/bge-small-en-v1.5:int8")
	if code != 1 || !strings.Contains(errOut, "checksum") {
		t.Errorf("pull of wrong bytes: code %d, stderr %q; want a checksum failure", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(models, "BAAI--bge-small-en-v1.5-int8", "model.onnx")); err == nil {
		t.Error("a file with the wrong checksum was installed")
	}
	_, errOut, code = runCLI(t, "models", "pull", "no/such")
	if code != 1 || !strings.Contains(errOut, "braid models list") {
		t.Errorf("pull of an unknown id: code %d, stderr %q", code, errOut)
	}
	_, errOut, code = runCLI(t, "models", "verify")
	if code != 1 || !strings.Contains(errOut, "braid models pull") {
		t.Errorf("verify with nothing installed: code %d, stderr %q", code, errOut)
	}
}
