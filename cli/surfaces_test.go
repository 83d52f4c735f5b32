package cli

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/braidsearch/braid/internal/testenv"
)

// On an index built without a model, the same query gives the same
// answer, warning included, on the command line and over MCP: both leave
// the vector weight to the one default in the library.
func TestNoModelSameOnCLIAndMCP(t *testing.T) {
	// --model none turns vectors off; without it, the default model is
	// simply not installed (TestMain points BRAID_MODELS at an empty
	// directory).
	for _, model := range [][]string{{"--model", "none"}, nil} {
		t.Run(fmt.Sprint(model), func(t *testing.T) { testSameOnCLIAndMCP(t, model) })
	}
}

func testSameOnCLIAndMCP(t *testing.T, model []string) {
	idx := filepath.Join(t.TempDir(), "idx")
	flags := append([]string{"--index", idx}, model...)
	if _, errOut, code := runCLI(t, append(flags, "index", vaultDir(t, 5, "alpha"))...); code != 0 {
		t.Fatalf("index: %s", errOut)
	}
	type answer struct {
		Results []struct {
			Path   string  `json:"path"`
			Score  float64 `json:"score"`
			Source string  `json:"source"`
		} `json:"results"`
		Warning string `json:"warning"`
	}
	out, errOut, code := runCLI(t, append(flags, "--json", "search", "--no-rerank", "note number alpha")...)
	var cli answer
	if code != 0 || json.Unmarshal([]byte(out), &cli) != nil || len(cli.Results) == 0 {
		t.Fatalf("CLI search: code %d, %s %s", code, out, errOut)
	}
	var serveErr testenv.Buffer
	c := serveClient(t, &serveErr, append(flags, "serve", "--read-only")...)
	res, isErr := callTool(t, c, "search", map[string]any{"query": "note number alpha", "rerank": false})
	var mcp answer
	if isErr || json.Unmarshal([]byte(res), &mcp) != nil {
		t.Fatalf("MCP search: %q", res)
	}
	if fmt.Sprint(cli) != fmt.Sprint(mcp) {
		t.Errorf("the same query differs:\nCLI %+v\nMCP %+v", cli, mcp)
	}
	if cli.Results[0].Source != "lexical" {
		t.Errorf("source %q without a model, want lexical", cli.Results[0].Source)
	}
}
