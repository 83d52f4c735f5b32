package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
)

// A tool profile is the set of tools a server offers (Options.Tools, braid
// serve --tools). Every tool listed costs an agent context on every turn,
// so the default, core, offers the everyday few. A seed profile offers
// exactly the tool names of one system braid was designed from, so a
// client written for that system works unchanged; where braid has the
// seed's tool under another name it is offered under the seed's name (an
// alias, alias_tools.go and seed_tools.go), with the seed's argument
// names where they differ (profile.args).
//
// Seed tools braid cannot provide are left out, not faked (and listed,
// with why, in testdata/seed_tools.json, which the tests check tools/list
// against):
//   - amalfa (github.com/pjsvis/amalfa, src/mcp/index.ts and docs/MCP-TOOLS.md): none.
//   - yams (github.com/trvon/yams, src/mcp/mcp_server.cpp before its
//     February 2026 "code mode" folded the tools into query, execute and
//     session; docs/api/mcp_tools.md): mcp.echo (a protocol test). Its
//     sessions are session_tools.go.
//   - ks (github.com/knowledgestack/ks-mcp, src/ks_mcp/tools/): none.
//   - alloy (github.com/periplon/alloy v0.2.0, src/mcp/server.rs, the
//     version braid was designed from; later versions added dozens of
//     tools for backups, ACLs, webhooks and GTD): none; configure is named
//     for when braid has it.

// DefaultProfile is the profile of an empty Options.Tools.
const DefaultProfile = "core"

// profile is a named set of tools.
type profile struct {
	name  string
	tools []string // nil: every tool
	// args gives, per tool, the seed's argument names for braid's:
	// seed name → braid name.
	args map[string]map[string]string
}

var profiles = []profile{
	{name: "core", tools: []string{"search", "search_keyword", "grep", "read", "get", "read_around", "explore_links", "list", "ask",
		"scratchpad_read"}}, // truncated replies point to scratchpad_read
	{name: "all"},
	{name: "amalfa", tools: []string{"search_documents", "read_node_content", "explore_links", "list_directory_structure",
		"find_gaps", "inject_tags", "scratchpad_read", "scratchpad_list"}},
	{name: "yams", tools: []string{"search", "grep", "download", "add", "get", "list", "status", "delete_by_name", "update",
		"restore", "list_collections", "list_snapshots", "graph", "session_start", "session_stop", "session_pin", "session_unpin",
		"watch"},
		args: map[string]map[string]string{
			"search":  {"path_pattern": "path"},
			"restore": {"include_patterns": "include", "exclude_patterns": "exclude"},
		}},
	{name: "ks", tools: []string{"search_knowledge", "search_keyword", "read", "read_around", "cite", "view_chunk_image", "ask", "list_contents", "find",
		"get_info", "get_organization_info", "get_current_datetime", "trace_chunk_lineage", "compare_versions"},
		args: map[string]map[string]string{
			"search_knowledge": {"top_k": "limit"},
			"search_keyword":   {"top_k": "limit"},
			"read":             {"path_part_id": "id"},
			"get_info":         {"path_part_id": "id"},
			"find":             {"parent_path_part_id": "parent"},
			"compare_versions": {"document_id": "id", "from_version_id": "from", "to_version_id": "to"},
		}},
	{name: "alloy", tools: []string{"index_path", "search", "get_document", "list_sources", "remove_source", "get_stats", "configure"}},
}

func profileNamed(name string) (profile, bool) {
	for _, p := range profiles {
		if p.name == name {
			return p, true
		}
	}
	return profile{}, false
}

// toolset is a parsed Options.Tools: the tools to offer, in order.
type toolset struct {
	spec  string   // as given, or DefaultProfile
	names []string // nil: every tool
	args  map[string]map[string]string
}

// ErrBadTools is the error of a --tools value that names no profile or
// tool braid has.
var ErrBadTools = errors.New("mcpserver: --tools")

// CheckTools checks a --tools value (Options.Tools): a profile name, or a
// comma-separated list of profile and tool names. The error is one line
// that lists the valid ones.
func CheckTools(spec string) error {
	_, err := parseTools(spec, toolNames())
	return err
}

// toolNames are the names of every tool a server has.
func toolNames() []string {
	var names []string
	for _, t := range (&Server{}).tools() {
		names = append(names, t.def.Name)
	}
	return names
}

// parseTools resolves spec against the tools a server has (have).
func parseTools(spec string, have []string) (toolset, error) {
	spec = strings.TrimSpace(spec)
	if spec == "" {
		spec = DefaultProfile
	}
	ts := toolset{spec: spec, args: map[string]map[string]string{}}
	seen := map[string]bool{}
	every := false
	for item := range strings.SplitSeq(spec, ",") {
		item = strings.TrimSpace(item)
		p, isProfile := profileNamed(item)
		switch {
		case isProfile && p.tools == nil:
			every = true // all: the other items only add argument names
		case isProfile:
			for _, name := range p.tools {
				if !seen[name] {
					seen[name] = true
					ts.names = append(ts.names, name)
				}
			}
			for tool, args := range p.args {
				ts.args[tool] = args
			}
		case slices.Contains(have, item):
			if !seen[item] {
				seen[item] = true
				ts.names = append(ts.names, item)
			}
		default:
			var names []string
			for _, p := range profiles {
				names = append(names, p.name)
			}
			sorted := slices.Sorted(slices.Values(have))
			return toolset{}, fmt.Errorf("%w: %q is neither a tool profile (%s) nor a tool (%s)", ErrBadTools, item,
				strings.Join(names, ", "), strings.Join(sorted, ", "))
		}
	}
	if every {
		ts.names = nil
	}
	return ts, nil
}

// offer picks the tools of the server's profile from all, in the
// profile's order, with the profile's argument names; tools that write
// outside the index are left out without Options.AllowWrites. A tool the
// profile names that this server does not have is skipped with a log line.
func (s *Server) offer(all []tool) []tool {
	have := make([]string, len(all))
	byName := map[string]tool{}
	for i, t := range all {
		have[i] = t.def.Name
		byName[t.def.Name] = t
	}
	ts, err := parseTools(s.opt.Tools, have)
	if err != nil {
		s.log.Printf("%v; offering the %s profile", err, DefaultProfile)
		ts, _ = parseTools(DefaultProfile, have)
	}
	names := ts.names
	if names == nil {
		names = have
	}
	s.toolset = ts
	s.known = map[string]bool{}
	for _, name := range have {
		s.known[name] = true
	}
	s.offered = nil
	var missing []string
	var out []tool
	for _, name := range names {
		t, ok := byName[name]
		switch {
		case !ok:
			missing = append(missing, name)
		case writesOutside[name] && !s.opt.AllowWrites:
			// offered only with --allow-writes, in any profile
		default:
			if args := ts.args[name]; args != nil {
				t = s.renameArgs(t, args)
			}
			out = append(out, t)
			s.offered = append(s.offered, name)
		}
	}
	if len(missing) > 0 {
		s.log.Printf("tool profile %s names %s, which this braid does not have yet; skipped", ts.spec, strings.Join(missing, ", "))
	}
	if !s.sessions() {
		for i := range out {
			out[i] = withoutSessionArgs(out[i])
		}
	}
	return out
}

// profileNote ends the server's instructions when it offers fewer than
// all its tools.
func (s *Server) profileNote() string {
	if s.toolset.names == nil {
		return ""
	}
	return fmt.Sprintf(" This server offers only the tools of its profile %q: %s.", s.toolset.spec, strings.Join(s.offered, ", "))
}

// refuseOutside answers a tools/call of a braid tool the profile does not
// offer with a protocol error that names the profile and how to widen it.
// Names braid has no tool for are left to mcp-go (unknown tool).
func (s *Server) refuseOutside(_ context.Context, _ any, message any) error {
	raw, ok := message.(json.RawMessage)
	if !ok || !bytes.Contains(raw, []byte(`"tools/call"`)) {
		return nil
	}
	var m struct {
		Method string `json:"method"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	if json.Unmarshal(raw, &m) != nil || m.Method != string(mcp.MethodToolsCall) {
		return nil
	}
	name := m.Params.Name
	if !s.known[name] || slices.Contains(s.offered, name) {
		return nil
	}
	if writesOutside[name] && !s.opt.AllowWrites && (s.toolset.names == nil || slices.Contains(s.toolset.names, name)) {
		return fmt.Errorf("tool %q writes files outside the index, so braid serve offers it only when started with --allow-writes", name)
	}
	return fmt.Errorf("tool %q is not offered: braid serve runs with --tools %s (%s); restart it with --tools all, or --tools %s,%s to add it",
		name, s.toolset.spec, strings.Join(s.offered, ", "), s.toolset.spec, name)
}

// renameArgs offers t under the argument names a seed's clients use:
// args maps a seed name to t's own. Both names are accepted; giving both
// is an error.
func (s *Server) renameArgs(t tool, args map[string]string) tool {
	def := t.def
	schema := def.InputSchema
	schema.Properties = maps.Clone(schema.Properties)
	schema.Required = slices.Clone(schema.Required)
	order := slices.Clone(schema.PropertyOrder)
	if order == nil {
		order = slices.Sorted(maps.Keys(t.def.InputSchema.Properties))
	}
	for _, seed := range slices.Sorted(maps.Keys(args)) {
		own := args[seed]
		prop, ok := schema.Properties[own].(map[string]any)
		if !ok {
			continue
		}
		p := maps.Clone(prop)
		desc, _ := p["description"].(string)
		p["description"] = fmt.Sprintf("The same as %s, under the name other systems' clients use; give one of the two. %s", own, desc)
		schema.Properties[seed] = p
		if i := slices.Index(order, own); i >= 0 {
			order = slices.Insert(order, i+1, seed)
		} else {
			order = append(order, seed)
		}
		schema.Required = slices.DeleteFunc(schema.Required, func(r string) bool { return r == own })
	}
	schema.PropertyOrder = order
	def.InputSchema = schema
	inner := t.handler
	name := def.Name
	return tool{def, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		obj := map[string]json.RawMessage{}
		raw := bytes.TrimSpace(req.Params.RawArguments)
		if len(raw) == 0 && req.Params.Arguments != nil {
			var err error
			if raw, err = json.Marshal(req.Params.Arguments); err != nil {
				return inner(ctx, req) // the handler reports it
			}
		}
		if len(raw) == 0 || json.Unmarshal(raw, &obj) != nil {
			return inner(ctx, req)
		}
		renamed := false
		for seed, own := range args {
			v, ok := obj[seed]
			if !ok {
				continue
			}
			if _, both := obj[own]; both {
				return s.fail(name, argError(seed, "is another name for %s; give one of the two", own)), nil
			}
			delete(obj, seed)
			obj[own] = v
			renamed = true
		}
		if renamed {
			b, err := json.Marshal(obj)
			if err != nil {
				return nil, err
			}
			req.Params.RawArguments, req.Params.Arguments = b, nil
		}
		return inner(ctx, req)
	}}
}
