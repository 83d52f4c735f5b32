package cli

import (
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/alecthomas/kong"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/internal/testenv"
	"github.com/braidsearch/braid/lexical"
)

// commands lists every command braid has, as "braid name" or "braid name
// sub", from the parser itself.
func commands(t *testing.T) map[string]bool {
	t.Helper()
	parser, err := kong.New(&CLI{}, kong.Name("braid"), defaults)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	var walk func(prefix string, n *kong.Node)
	walk = func(prefix string, n *kong.Node) {
		for _, c := range n.Children {
			if c.Type != kong.CommandNode || c.Hidden {
				continue
			}
			name := prefix + " " + c.Name
			out[name] = true
			for _, a := range c.Aliases {
				out[prefix+" "+a] = true
			}
			walk(name, c)
		}
	}
	walk("braid", parser.Model.Node)
	return out
}

// TestDocsNameEveryCommand keeps docs/cli.md and README.md true to the
// parser: every command is documented, and every command they show exists.
func TestDocsNameEveryCommand(t *testing.T) {
	cmds := commands(t)
	cli, err := os.ReadFile("../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	for c := range cmds {
		top := strings.Join(strings.Fields(c)[:2], " ")
		if !strings.Contains(string(cli), "`"+c) && !strings.Contains(string(cli), "`"+top) {
			t.Errorf("docs/cli.md does not document %q", c)
		}
	}
	shown := regexp.MustCompile("(?m)(?:^    |`)braid ([a-z][a-z-]*)")
	for _, f := range []string{"../README.md", "../docs/cli.md", "../docs/mcp.md"} {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range shown.FindAllStringSubmatch(string(text), -1) {
			if !cmds["braid "+m[1]] && m[1] != "does" { // "braid does not delete source files" is a message
				t.Errorf("%s shows %q, which braid does not have", f, "braid "+m[1])
			}
		}
	}
	readme := testenv.Must1(os.ReadFile("../README.md"))(t)
	if len(readme) > 12<<10 {
		t.Errorf("README.md is %d bytes; keep the front door under 12 KB and move reference text to docs/", len(readme))
	}
	for _, want := range []string{"make demo", "make test"} {
		if !strings.Contains(string(readme), want) {
			t.Errorf("README.md lost %q, one of the two commands", want)
		}
	}
}

// TestDocsNameEveryJSONField keeps docs/cli.md's account of search --json
// whole: every field of a search's answer, its hits and their explain
// (issue 35, point 4f: doc_evidence, field_bonus and bm25 were missing).
func TestDocsNameEveryJSONField(t *testing.T) {
	doc, err := os.ReadFile("../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []any{braid.Results{}, braid.Hit{}, braid.Timings{}, braid.Explanation{}, lexical.BM25{}, lexical.TermBM25{}} {
		typ := reflect.TypeOf(v)
		for i := range typ.NumField() {
			name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
			if name == "" || name == "-" {
				continue
			}
			if !strings.Contains(string(doc), "`"+name+"`") && !strings.Contains(string(doc), `"`+name+`"`) {
				t.Errorf("docs/cli.md does not name %s's JSON field %q", typ, name)
			}
		}
	}
}
