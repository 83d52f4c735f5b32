package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/braidsearch/braid/mcpserver/profile"
)

// CheckTools checks a --tools value (Options.Tools): a profile name, or a
// comma-separated list of profile and tool names. The error is one line
// that lists the valid ones and wraps profile.ErrBad.
func CheckTools(spec string) error {
	_, err := profile.Parse(spec, toolNames())
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
	ts, err := profile.Parse(s.opt.Tools, have)
	if err != nil {
		s.log.Printf("%v; offering the %s profile", err, profile.Default)
		ts, _ = profile.Parse(profile.Default, have)
	}
	names := ts.Names
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
			if args := ts.Args[name]; args != nil {
				t = s.renameArgs(t, args)
			}
			out = append(out, t)
			s.offered = append(s.offered, name)
		}
	}
	if len(missing) > 0 {
		s.log.Printf("tool profile %s names %s, which this braid does not have yet; skipped", ts.Spec, strings.Join(missing, ", "))
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
	if s.toolset.Names == nil {
		return ""
	}
	return fmt.Sprintf(" This server offers only the tools of its profile %q: %s.", s.toolset.Spec, strings.Join(s.offered, ", "))
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
	if writesOutside[name] && !s.opt.AllowWrites && (s.toolset.Names == nil || slices.Contains(s.toolset.Names, name)) {
		return fmt.Errorf("tool %q writes files outside the index, so braid serve offers it only when started with --allow-writes", name)
	}
	return fmt.Errorf("tool %q is not offered: braid serve runs with --tools %s (%s); restart it with --tools all, or --tools %s,%s to add it",
		name, s.toolset.Spec, strings.Join(s.offered, ", "), s.toolset.Spec, name)
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
