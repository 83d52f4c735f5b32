package mcpserver_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/braidsearch/braid/mcpserver"
)

// docFile is the tool reference in docs/, made from the server's own tool
// definitions so that it cannot drift from them.
const docFile = "../docs/mcp-tools.md"

// TestToolsDoc checks docs/mcp-tools.md against the tools the server
// offers (every tool: writing tools allowed); go test ./mcpserver -update
// rewrites it.
func TestToolsDoc(t *testing.T) {
	_, c := lexicalServer(t, nil)
	res, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	got := toolsDoc(res.Tools)
	if *update {
		if err := os.MkdirAll(filepath.Dir(docFile), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(docFile, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(docFile)
	if err != nil {
		t.Fatalf("%v (run go test ./mcpserver -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s is out of date (-file +tools); run go test ./mcpserver -update:\n%s", docFile, diff)
	}
}

func toolsDoc(tools []mcp.Tool) string {
	sort.Slice(tools, func(i, j int) bool { return tools[i].Name < tools[j].Name })
	var b strings.Builder
	b.WriteString("# braid serve: MCP tool reference\n\n")
	b.WriteString("Generated from the server's own tool definitions by `go test ./mcpserver -update`; a test fails when it\n")
	b.WriteString("drifts from them. What each tool may touch is in [mcp.md](mcp.md#what-an-agent-can-and-cannot-do).\n\n")
	for _, tl := range tools {
		fmt.Fprintf(&b, "- [`%s`](#%s)\n", tl.Name, tl.Name)
	}
	for _, tl := range tools {
		fmt.Fprintf(&b, "\n## %s\n\n%s\n", tl.Name, tl.Description)
		if len(tl.InputSchema.Properties) == 0 {
			b.WriteString("\nNo arguments.\n")
			continue
		}
		b.WriteString("\n| argument | type | |\n|---|---|---|\n")
		names := make([]string, 0, len(tl.InputSchema.Properties))
		for n := range tl.InputSchema.Properties {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			p, _ := tl.InputSchema.Properties[n].(map[string]any)
			typ, _ := p["type"].(string)
			if typ == "array" {
				if items, ok := p["items"].(map[string]any); ok {
					typ = fmt.Sprintf("%v[]", items["type"])
				}
			}
			if enum, ok := p["enum"].([]any); ok {
				var vs []string
				for _, v := range enum {
					vs = append(vs, fmt.Sprint(v))
				}
				typ += " (" + strings.Join(vs, "\\|") + ")"
			}
			req := ""
			if slices.Contains(tl.InputSchema.Required, n) {
				req = " **required**"
			}
			desc, _ := p["description"].(string)
			if desc == "" {
				desc = "See the tool's description."
			}
			lo, hasLo := p["minimum"]
			hi, hasHi := p["maximum"]
			switch {
			case hasLo && hasHi:
				desc += fmt.Sprintf(" %v..%v.", lo, hi)
			case hasLo:
				desc += fmt.Sprintf(" At least %v.", lo)
			}
			if d, ok := p["default"]; ok {
				desc += fmt.Sprintf(" Default %v.", d)
			}
			fmt.Fprintf(&b, "| `%s`%s | %s | %s |\n", n, req, typ, strings.ReplaceAll(desc, "|", "\\|"))
		}
	}
	return b.String()
}

// docs/mcp.md's profile table lists the core profile's tools, every one
// the server offers and no other (issue 35, point 4g).
func TestMCPDocCoreProfile(t *testing.T) {
	doc, err := os.ReadFile("../docs/mcp.md")
	if err != nil {
		t.Fatal(err)
	}
	var row string
	for line := range strings.Lines(string(doc)) {
		if strings.HasPrefix(line, "| `core` (default) |") {
			row = strings.TrimPrefix(line, "| `core` (default) |")
		}
	}
	var documented []string
	for _, m := range regexp.MustCompile("`([a-z_]+)`").FindAllStringSubmatch(row, -1) {
		documented = append(documented, m[1])
	}
	_, idx := indexed(t, 1, nil)
	c := &clientT{connect(t, mcpserver.New(opener(idx, nil), nil)), t}
	list, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var offered []string
	for _, tl := range list.Tools {
		offered = append(offered, tl.Name)
	}
	slices.Sort(documented)
	slices.Sort(offered)
	if diff := cmp.Diff(offered, documented); diff != "" {
		t.Errorf("docs/mcp.md core row (-server +doc):\n%s", diff)
	}
}
