// Package policy says what each signed-in user of a networked braid
// server may do: which sources they may read, which tools they are
// offered and whether they may write. It reads the policy file of braid
// serve --policy, JSON of this shape:
//
//	{"grants": [
//	  {"who": "alice", "sources": ["notes"], "tools": "core"},
//	  {"who": "group:eng", "sources": ["docs", "code"], "tools": ["search", "grep", "read"]},
//	  {"who": "*", "sources": ["handbook"], "tools": "core"},
//	  {"who": "admin", "sources": ["*"], "tools": "all", "writes": true}
//	]}
//
// who is a user's name (auth.Principal.Name), "group:NAME" for every
// member of a group (auth.Principal.Groups), or "*" for every signed-in
// user. sources are source names as braid sources shows them (or ids),
// or ["*"] for every source, those registered later included. tools is a
// tool profile or a list of profiles and tool names, as braid serve
// --tools takes them (package profile); absent means the core profile.
// writes lets the user call the tools that change the index, within
// that grant's sources: a user may write the sources of their grants
// with writes (Access.WriteSources), and read those of every grant.
//
// Grants add up: a user gets the union of the sources and the tools of
// every grant that names them, and writes to the sources of those grants
// that say so. A user no grant names gets nothing: no tools, no sources.
//
// Load refuses a file it cannot apply exactly: unknown fields, an unknown
// tool or profile, an empty who or source name. Its errors name the
// grant by its index and the field, and say what to write instead.
//
// Example:
//
//	p, err := policy.Load("/etc/braid/policy.json")
//	if err != nil {
//		return err
//	}
//	a := p.For(&auth.Principal{Name: "alice", Groups: []string{"eng"}})
//	if !a.Tool("grep") { ... }
//
// Caveat: the policy names sources; whether a name matches a registered
// source is decided when a tool runs (mcpserver), so a source registered
// later under a granted name is granted, and a granted name that matches
// no source grants nothing.
package policy
