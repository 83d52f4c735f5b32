package mcpserver_test

import (
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/internal/testenv"
	"github.com/braidsearch/braid/mcpserver"
)

// The instructions sent at initialize are fixed before the engine opens,
// so they must hold with or without models: reranking and vectors are
// promised only when their models are installed (issue 20, point 7).
func TestInstructionsPromiseOnlyWhatHolds(t *testing.T) {
	_, idx := indexed(t, 2, nil)
	c, stop := serve(t, mcpserver.New(opener(idx, &braid.Options{NoRerank: "no cross-encoder installed"}), nil))
	defer stop()
	ctx, cancel := context.WithTimeout(context.Background(), testenv.Guard)
	defer cancel()
	res, err := c.Initialize(ctx, initRequest())
	if err != nil {
		t.Fatal(err)
	}
	in := res.Instructions
	if !strings.Contains(in, "reranked when a cross-encoder is") || !strings.Contains(in, "when an embedding model is installed") ||
		strings.Contains(in, "reranked)") {
		t.Errorf("instructions %q: want reranking and vectors promised only when installed", in)
	}
}

// profileNames are the --tools profiles (package profile).
var profileNames = []string{"core", "all", "amalfa", "yams", "ks", "alloy"}

// What a profile's server tells an agent names only tools it offers: a
// tool it does not offer costs the agent a turn on a -32600 refusal. And
// the default profile's tools/list stays small, since an agent pays for it
// on every turn (issue 35, point 3).
func TestProfilesNameOnlyTheirTools(t *testing.T) {
	_, idx := indexed(t, 2, nil)
	var every []string
	for _, profile := range profileNames {
		t.Run(profile, func(t *testing.T) {
			c := &clientT{connect(t, mcpserver.New(opener(idx, nil), &mcpserver.Options{Tools: profile, AllowWrites: true})), t}
			ctx, cancel := context.WithTimeout(context.Background(), testenv.Guard)
			defer cancel()
			init, err := c.Initialize(ctx, initRequest())
			if err != nil {
				t.Fatal(err)
			}
			list, err := c.ListTools(ctx, mcp.ListToolsRequest{})
			if err != nil {
				t.Fatal(err)
			}
			var offered []string
			for _, tl := range list.Tools {
				offered = append(offered, tl.Name)
			}
			if profile == "all" {
				every = offered
			}
			known := every
			if known == nil {
				known = allToolNames(t, idx)
			}
			// The instructions avoid English words that are tool names
			// (instructions()), so any tool name counts; descriptions use
			// argument names such as graph and list, so there only names
			// no English word has (with an underscore) count.
			for _, name := range known {
				if !slices.Contains(offered, name) && regexp.MustCompile(`\b`+name+`\b`).MatchString(init.Instructions) {
					t.Errorf("instructions name %s, which profile %s does not offer (%v):\n%s", name, profile, offered, init.Instructions)
				}
				if profile != "core" || slices.Contains(offered, name) || !strings.Contains(name, "_") {
					continue
				}
				for _, tl := range list.Tools {
					if regexp.MustCompile(`\b` + name + `\b`).MatchString(tl.Description) {
						t.Errorf("%s's description names %s, which profile core does not offer:\n%s", tl.Name, name, tl.Description)
					}
				}
			}
			for _, name := range offered { // the profile note lists them
				if profile != "all" && !regexp.MustCompile(`\b`+name+`\b`).MatchString(init.Instructions) {
					t.Errorf("instructions do not name %s, which profile %s offers:\n%s", name, profile, init.Instructions)
				}
			}
			if profile != "core" {
				return
			}
			b, err := json.Marshal(list)
			if err != nil {
				t.Fatal(err)
			}
			if len(b) >= 8000 {
				t.Errorf("core's tools/list is %d characters of JSON, want under 8000", len(b))
			}
			if t.Failed() {
				for _, tl := range list.Tools {
					tb := testenv.Must1(json.Marshal(tl))(t)
					t.Logf("%-16s %5d characters", tl.Name, len(tb))
				}
			}
		})
	}
}

// allToolNames lists every tool a server has.
func allToolNames(t *testing.T, idx string) []string {
	c := &clientT{connect(t, mcpserver.New(opener(idx, nil), &mcpserver.Options{Tools: "all", AllowWrites: true})), t}
	list, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range list.Tools {
		names = append(names, tl.Name)
	}
	return names
}
