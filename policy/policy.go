package policy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/braidsearch/braid/auth"
	"github.com/braidsearch/braid/mcpserver/profile"
)

// ErrBad is the error of a policy file that cannot be applied as written.
var ErrBad = errors.New("policy")

// maxFile bounds a policy file: a few thousand grants at most.
const maxFile = 4 << 20

// Policy is a loaded policy file: its grants. It is not changed after
// Load and is safe for concurrent use.
type Policy struct {
	grants []grant
}

// grant is one checked grant.
type grant struct {
	who        string // a user, "group:NAME" or "*"
	sources    []string
	allSources bool
	tools      []string // nil: every tool
	writes     bool
}

// Access is what one user may do: the union of the grants naming them.
type Access struct {
	// AllSources grants every source, those registered later included.
	AllSources bool
	// Sources are the names (or ids) of the sources granted, sorted,
	// without repeats; empty with AllSources.
	Sources []string
	// AllTools grants every tool the server offers.
	AllTools bool
	// Tools are the tools granted, sorted, without repeats; empty with
	// AllTools.
	Tools []string
	// Writes says whether some grant naming the user lets them write.
	Writes bool
	// AllWriteSources lets the user write every source: a grant of
	// every source with writes.
	AllWriteSources bool
	// WriteSources are the sources the user may write, those of the
	// grants with writes, sorted, without repeats; empty with
	// AllWriteSources. A write stays within these sources.
	WriteSources []string
}

// Tool says whether the access grants the tool named name.
func (a Access) Tool(name string) bool { return a.AllTools || slices.Contains(a.Tools, name) }

// Source says whether the access grants the source named (or of id) ref.
func (a Access) Source(ref string) bool { return a.AllSources || slices.Contains(a.Sources, ref) }

// WritesTo says whether the access lets the user write the source named
// (or of id) ref.
func (a Access) WritesTo(ref string) bool {
	return a.AllWriteSources || slices.Contains(a.WriteSources, ref)
}

// rawGrant is a grant as the file writes it.
type rawGrant struct {
	Who     *string         `json:"who"`
	Sources []string        `json:"sources"`
	Tools   json.RawMessage `json:"tools"`
	Writes  bool            `json:"writes"`
}

// Load reads the policy file at file. See the package documentation for
// its form; an error wraps ErrBad (or the file's read error) and names
// the grant and the field at fault.
func Load(file string) (*Policy, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("policy: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxFile+1))
	if err != nil {
		return nil, fmt.Errorf("policy: read %s: %w", file, err)
	}
	if len(b) > maxFile {
		return nil, fmt.Errorf("%w: %s is over %d MB; a policy file is a list of grants", ErrBad, file, maxFile>>20)
	}
	p, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%w (in %s)", err, file)
	}
	return p, nil
}

// Parse reads a policy from its JSON, as Load does from a file.
func Parse(data []byte) (*Policy, error) {
	var raw struct {
		Grants *[]rawGrant `json:"grants"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("%w: not the JSON of a policy: %v; want {\"grants\": [{\"who\": ..., \"sources\": [...], \"tools\": ..., \"writes\": false}]}", ErrBad, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: more than one JSON value; want one object {\"grants\": [...]}", ErrBad)
	}
	if raw.Grants == nil {
		return nil, fmt.Errorf("%w: no \"grants\" list; want {\"grants\": [...]} (an empty list grants nothing to anyone)", ErrBad)
	}
	p := &Policy{}
	for i, r := range *raw.Grants {
		g, err := check(r)
		if err != nil {
			return nil, fmt.Errorf("%w: grants[%d].%v", ErrBad, i, err)
		}
		p.grants = append(p.grants, g)
	}
	return p, nil
}

// check checks one grant; the error starts with the field at fault.
func check(r rawGrant) (grant, error) {
	var g grant
	switch {
	case r.Who == nil:
		return g, errors.New(`who: missing; want a user name, "group:NAME" or "*"`)
	case strings.TrimSpace(*r.Who) == "" || *r.Who != strings.TrimSpace(*r.Who):
		return g, fmt.Errorf(`who: %q is empty or has spaces around it; want a user name, "group:NAME" or "*"`, *r.Who)
	case *r.Who == "group:" || (strings.HasPrefix(*r.Who, "group:") && strings.TrimSpace(strings.TrimPrefix(*r.Who, "group:")) == ""):
		return g, fmt.Errorf(`who: %q names no group; want "group:NAME"`, *r.Who)
	}
	g.who, g.writes = *r.Who, r.Writes
	if r.Sources == nil {
		return g, errors.New(`sources: missing; want a list of source names as braid sources shows them, ["*"] for every source, or [] for none`)
	}
	for j, s := range r.Sources {
		if strings.TrimSpace(s) == "" {
			return g, fmt.Errorf("sources[%d]: empty; want a source name as braid sources shows it, or \"*\"", j)
		}
		if s == "*" {
			g.allSources = true
			continue
		}
		if !slices.Contains(g.sources, s) {
			g.sources = append(g.sources, s)
		}
	}
	spec, err := toolSpec(r.Tools)
	if err != nil {
		return g, err
	}
	set, err := profile.Parse(spec, profile.Tools)
	if err != nil {
		return g, fmt.Errorf("tools: %s", strings.TrimPrefix(err.Error(), profile.ErrBad.Error()+": "))
	}
	if set.Names == nil {
		g.tools = nil
	} else {
		g.tools = append([]string{}, set.Names...)
	}
	return g, nil
}

// toolSpec turns the tools field, a profile name or a list of names, into
// a --tools value; absent means the core profile.
func toolSpec(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return profile.Default, nil
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		if strings.TrimSpace(one) == "" {
			return "", errors.New(`tools: empty; want a profile name ("core", "all", ...) or a list of tool names`)
		}
		return one, nil
	}
	var list []string
	if err := json.Unmarshal(raw, &list); err != nil {
		return "", fmt.Errorf(`tools: %s is neither a profile name nor a list of tool names; want "core" or ["search", "grep"]`, raw)
	}
	if len(list) == 0 {
		return "", errors.New(`tools: an empty list grants no tool; leave the grant out, or name tools`)
	}
	for j, t := range list {
		if strings.TrimSpace(t) == "" || strings.Contains(t, ",") {
			return "", fmt.Errorf("tools[%d]: %q is not one tool or profile name", j, t)
		}
	}
	return strings.Join(list, ","), nil
}

// For is what p lets the signed-in user p do: the union of the grants
// naming them, by name, by one of their groups, or as "*". A nil
// principal, or one no grant names, gets nothing.
func (p *Policy) For(who *auth.Principal) Access {
	var a Access
	if p == nil || who == nil {
		return a
	}
	for _, g := range p.grants {
		if !g.names(who) {
			continue
		}
		a.AllSources = a.AllSources || g.allSources
		a.Sources = append(a.Sources, g.sources...)
		if g.tools == nil {
			a.AllTools = true
		}
		a.Tools = append(a.Tools, g.tools...)
		if g.writes {
			a.Writes = true
			a.AllWriteSources = a.AllWriteSources || g.allSources
			a.WriteSources = append(a.WriteSources, g.sources...)
		}
	}
	a.Sources = compact(a.Sources, a.AllSources)
	a.WriteSources = compact(a.WriteSources, a.AllWriteSources)
	a.Tools = compact(a.Tools, a.AllTools)
	return a
}

// compact sorts names and drops repeats; nothing when all is granted.
func compact(names []string, all bool) []string {
	if all || len(names) == 0 {
		return nil
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// names says whether g names the principal.
func (g grant) names(who *auth.Principal) bool {
	switch {
	case g.who == "*":
		return true
	case strings.HasPrefix(g.who, "group:"):
		return slices.Contains(who.Groups, strings.TrimPrefix(g.who, "group:"))
	}
	return who.Name != "" && g.who == who.Name
}
