package profile

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Default is the profile of an empty Options.Tools.
const Default = "core"

// profile is a named set of tools.
type profile struct {
	name  string
	tools []string // nil: every tool
	// args gives, per tool, the seed's argument names for braid's:
	// seed name → braid name.
	args map[string]map[string]string
}

// ErrBad is the error of a --tools value that names no profile or
// tool braid has.
var ErrBad = errors.New("mcpserver: --tools")

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

// Set is a parsed Options.Tools: the tools to offer, in order.
type Set struct {
	Spec  string   // as given, or Default
	Names []string // nil: every tool
	// Args gives, per tool, the seed's argument names for braid's:
	// seed name → braid name.
	Args map[string]map[string]string
}

// Parse resolves spec, a profile name or a comma-separated list of
// profile and tool names, against the tools a server has (have). The error
// wraps ErrBad and is one line that lists the valid names.
func Parse(spec string, have []string) (Set, error) {
	spec = strings.TrimSpace(spec)
	if spec == "" {
		spec = Default
	}
	ts := Set{Spec: spec, Args: map[string]map[string]string{}}
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
					ts.Names = append(ts.Names, name)
				}
			}
			for tool, args := range p.args {
				ts.Args[tool] = args
			}
		case slices.Contains(have, item):
			if !seen[item] {
				seen[item] = true
				ts.Names = append(ts.Names, item)
			}
		default:
			var names []string
			for _, p := range profiles {
				names = append(names, p.name)
			}
			sorted := slices.Sorted(slices.Values(have))
			return Set{}, fmt.Errorf("%w: %q is neither a tool profile (%s) nor a tool (%s)", ErrBad, item,
				strings.Join(names, ", "), strings.Join(sorted, ", "))
		}
	}
	if every {
		ts.Names = nil
	}
	return ts, nil
}

// Tools names every tool braid's MCP server has, in the order it lists
// them: what a profile or a policy's tool list may name (package policy
// resolves its grants against it). mcpserver's tests keep it equal to the
// server's own list.
var Tools = []string{
	"search", "search_keyword", "grep", "read_node_content", "get_document", "read_around",
	"get", "find", "get_info", "cite", "view_chunk_image", "ask", "list_sources", "index_path", "remove_source",
	"get_stats", "configure", "explore_links", "find_gaps", "list_directory_structure", "inject_tags",
	"add", "download", "update", "delete_by_name", "list_versions", "compare_versions", "list", "list_collections",
	"create_snapshot", "list_snapshots", "restore", "scratchpad_list", "scratchpad_read",
	"search_documents", "search_knowledge", "read", "get_current_datetime", "status", "graph", "list_contents",
	"get_organization_info", "trace_chunk_lineage",
	"session_start", "session_stop", "session_pin", "session_unpin", "watch",
}
