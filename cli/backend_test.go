package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/braidsearch/braid/internal/modeltest"
	"github.com/braidsearch/braid/internal/opensearchtest"
	"github.com/braidsearch/braid/internal/testenv"
)

// The CLI and the MCP server run unchanged on an OpenSearch cluster:
// index, hybrid search with explanations, sources, stats, an
// embedded-only command's error, and braid serve's search tool.
func TestBackendCommands(t *testing.T) {
	url := opensearchtest.Start(t, 1)
	t.Setenv("BRAID_ORT_LIB", modeltest.NeedRuntime(t))
	t.Setenv("BRAID_MODEL", modeltest.TinyDir())
	t.Setenv("BRAID_BACKEND", url)
	t.Setenv("BRAID_BACKEND_INDEX", "cli")
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // the kept mirror, not the user's
	vault := vaultDir(t, 6, "alpha")
	out, errOut, code := runCLI(t, "--json", "index", vault)
	var sum struct {
		Added, Chunks, Embedded int
	}
	if code != 0 || json.Unmarshal([]byte(out), &sum) != nil || sum.Added != 6 || sum.Embedded == 0 {
		t.Fatalf("index on the cluster: code %d, %s, %s", code, out, errOut)
	}

	out, errOut, code = runCLI(t, "--json", "search", "--vector-weight", "0.6", "--explain", "note number 3 alpha")
	var r searchJSON
	if code != 0 || json.Unmarshal([]byte(out), &r) != nil || len(r.Results) == 0 {
		t.Fatalf("search: code %d, %s, %s", code, out, errOut)
	}
	if h := r.Results[0]; h.Source != "hybrid" || !strings.Contains(out, `"lexical_rank"`) || !strings.Contains(out, `"vector_rank"`) {
		t.Errorf("search hit %+v: want a fused hybrid hit with its explanation\n%s", h, out)
	}
	if out, _, code := runCLI(t, "search-keyword", "alpha"); code != 0 || !strings.Contains(out, "note-0") {
		t.Errorf("search-keyword: code %d\n%s", code, out)
	}
	if out, _, code := runCLI(t, "--json", "stats"); code != 0 || !strings.Contains(out, `"documents": 6`) || !strings.Contains(out, `"backend": "`+url+`/cli"`) {
		t.Errorf("stats: code %d\n%s", code, out)
	}
	if out, errOut, code := runCLI(t, "doctor"); code != 0 || !strings.Contains(out, "green") || !strings.Contains(out, "6 documents") {
		t.Errorf("doctor on the cluster: code %d, stderr %q\n%s", code, errOut, out)
	}
	if out, _, code := runCLI(t, "sources"); code != 0 || !strings.Contains(out, vault) {
		t.Errorf("sources: code %d\n%s", code, out)
	}
	if out, errOut, code := runCLI(t, "links", "note-0001.md"); code != 0 || !strings.Contains(out, "note-0002") {
		t.Errorf("links on the cluster: code %d, stderr %q\n%s", code, errOut, out)
	}
	if out, errOut, code := runCLI(t, "ls"); code != 0 || !strings.Contains(out, "note-0005.md") {
		t.Errorf("ls on the cluster: code %d, stderr %q\n%s", code, errOut, out)
	}
	if out, errOut, code := runCLI(t, "grep", "number 4 with alpha"); code != 0 || !strings.Contains(out, "note-0004.md") || strings.Contains(out, "note-0003.md") {
		t.Errorf("grep on the cluster: code %d, stderr %q\n%s", code, errOut, out)
	}
	_, errOut, code = runCLI(t, "gaps")
	if code != 1 || !strings.Contains(errOut, "embedded index only") || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
		t.Errorf("gaps on the cluster: code %d, stderr %q; want one line saying it needs the embedded index", code, errOut)
	}

	var serveErr testenv.Buffer
	c := serveClient(t, &serveErr, "serve")
	res, isErr := callTool(t, c, "search", map[string]any{"query": "note number 2 alpha"})
	if isErr || json.Unmarshal([]byte(res), &r) != nil || len(r.Results) == 0 || r.Results[0].Source != "hybrid" {
		t.Errorf("MCP search on the cluster: %q (stderr %q)", res, serveErr.String())
	}
	res, isErr = callTool(t, c, "explore_links", map[string]any{"id": "note-0001.md"})
	if isErr || !strings.Contains(res, "note-0002") {
		t.Errorf("MCP explore_links on the cluster: error %v, %q; want the links of note 1", isErr, res)
	}

	_, errOut, code = runCLI(t, "--backend", "http://127.0.0.1:1", "search", "alpha")
	if code != 1 || !strings.Contains(errOut, "http://127.0.0.1:1") || !strings.Contains(errOut, "opensearch.sh start") {
		t.Errorf("an unreachable backend: code %d, stderr %q; want one line naming the URL and the fix", code, errOut)
	}
}
