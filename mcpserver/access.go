package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/auth"
	"github.com/braidsearch/braid/docstore"
	"github.com/braidsearch/braid/policy"
)

// Access control for a networked server (issue 46). A request whose
// context carries a signed-in principal (auth.From) gets what
// Options.Policy grants that user; without a Policy, every signed-in user
// gets everything. A request without a principal (stdio, a loopback
// server without sign-in) is answered exactly as before.
//
// A user granted some sources but not all is offered only the tools that
// can answer from their sources alone (scopedTools): the search family,
// ask, grep and list take the sources as the engine's own filter (Within:
// the lexical query, the vector search and the file list), list_sources
// shows only theirs, and the tools that read one document or chunk check
// its source and answer one of another source as they answer one that
// does not exist. The tools of the whole index (stats, the link graph,
// the folder tree, sessions, the document store's versions and
// snapshots) need a grant of every source ("*").
//
// Writing tools need writes, and stay within the sources the user may
// write (policy.Access.WriteSources): index_path, inject_tags and update
// are offered to a user who may write some source, and act only on
// those: a path must lie, links followed (roots.go's confine), inside
// one of their roots, and a path anywhere else is refused as a path
// outside every allowed folder, with the same words; a document named
// to inject_tags or update must be of one of their sources, and any
// other answers as one that does not exist. For such a user index_path
// re-indexes the source a path lies in (it never registers a new
// source, whose name could fall under another user's grant). The
// document store's tools (add, download, delete_by_name,
// create_snapshot, restore) need writes to the store's source
// (docstore.SourceName, "store"). The tools of the whole index that
// write (configure, remove_source, sessions, watch) need writes to
// every source. A signed-in user's client roots allow nothing: they name
// folders on the client's machine, not the server's.

// grant is what the caller of one request may do.
type grant struct {
	who *auth.Principal
	acc policy.Access
}

// everything is the access of a signed-in user on a server without a
// policy.
var everything = policy.Access{AllSources: true, AllTools: true, Writes: true}

// grantOf is the grant of ctx's principal, nil when no one signed in.
func (s *Server) grantOf(ctx context.Context) *grant {
	p, ok := auth.From(ctx)
	if !ok {
		return nil
	}
	if s.opt.Policy == nil {
		return &grant{who: p, acc: everything}
	}
	return &grant{who: p, acc: s.opt.Policy.For(p)}
}

// partial says whether g limits the sources: a signed-in user without a
// grant of every source.
func (g *grant) partial() bool { return g != nil && !g.acc.AllSources }

// partialWrites says whether g limits what the user may write: a
// signed-in user without writes to every source.
func (g *grant) partialWrites() bool { return g != nil && !g.acc.AllWriteSources }

// The writing tools, by what they write.
var (
	// wholeWrites change the whole index, its settings or sessions: they
	// need writes to every source.
	wholeWrites = map[string]bool{
		"remove_source": true, "configure": true,
		"session_start": true, "session_stop": true, "session_pin": true, "session_unpin": true, "watch": true,
	}
	// sourceWrites change the sources the user may write, and refuse
	// anything else.
	sourceWrites = map[string]bool{"index_path": true, "inject_tags": true, "update": true}
	// storeWrites change the document store, a source of its own.
	storeWrites = map[string]bool{"add": true, "download": true, "delete_by_name": true, "create_snapshot": true, "restore": true}
)

// scopedTools answer a user from their granted sources alone; the other
// tools need a grant of every source.
var scopedTools = map[string]bool{
	"search": true, "search_keyword": true, "search_documents": true, "search_knowledge": true, "ask": true,
	"grep": true, "list": true, "list_sources": true,
	"read": true, "read_node_content": true, "get": true, "get_document": true,
	"read_around": true, "cite": true, "view_chunk_image": true,
	"scratchpad_list": true, "scratchpad_read": true, "get_current_datetime": true,
}

// permits says whether g may call the tool named name.
func (g *grant) permits(name string) bool {
	if g == nil {
		return true
	}
	switch {
	case !g.acc.Tool(name):
		return false
	case wholeWrites[name]:
		return g.acc.AllWriteSources
	case sourceWrites[name]:
		return g.acc.AllWriteSources || len(g.acc.WriteSources) > 0
	case storeWrites[name]:
		return g.acc.WritesTo(docstore.SourceName)
	case g.partial() && !scopedTools[name]:
		return false
	}
	return true
}

// filterTools is the server's tool filter (server.WithToolFilter), which
// mcp-go applies to tools/list and to tools/call: a tool the caller may
// not use is neither listed nor callable (unknown tool).
func (s *Server) filterTools(ctx context.Context, tools []mcp.Tool) []mcp.Tool {
	g := s.grantOf(ctx)
	if g == nil {
		return tools
	}
	out := make([]mcp.Tool, 0, len(tools))
	for _, t := range tools {
		if g.permits(t.Name) {
			out = append(out, t)
		}
	}
	return out
}

// within is the ids of the registered sources ctx's user is granted, for
// the engine's Within; nil when the user may read every source (or no
// one signed in), empty (not nil) when the grant matches no source.
func (s *Server) within(ctx context.Context, e *braid.Engine) ([]string, error) {
	g := s.grantOf(ctx)
	if !g.partial() {
		return nil, nil
	}
	srcs, err := registered(ctx, e, g.acc.Source)
	if err != nil {
		return nil, err
	}
	ids := []string{}
	for _, src := range srcs {
		ids = append(ids, src.ID)
	}
	return ids, nil
}

// writable is the registered sources ctx's user may write, nil when
// they may write every source (or no one signed in), empty (not nil)
// when they may write none.
func (s *Server) writable(ctx context.Context, e *braid.Engine) ([]*braid.Source, error) {
	g := s.grantOf(ctx)
	if !g.partialWrites() {
		return nil, nil
	}
	return registered(ctx, e, g.acc.WritesTo)
}

// registered is the registered sources that grants names, by id or by
// name; empty (not nil) when it names none.
func registered(ctx context.Context, e *braid.Engine, grants func(ref string) bool) ([]*braid.Source, error) {
	srcs, err := e.Sources().List(ctx)
	if err != nil {
		return nil, err
	}
	out := []*braid.Source{}
	for _, src := range srcs {
		if grants(src.ID) || grants(src.Name) {
			out = append(out, src)
		}
	}
	return out, nil
}

// writableSource checks, for a user who may write only some sources,
// that the document or file named (as inject_tags and update take it)
// is of one of them, and returns its id for the write to name, so the
// write acts on the document checked. Anything else, a name that finds
// nothing, or finds several, answers as hidden(name). Others get name
// back as it is.
func (s *Server) writableSource(ctx context.Context, e *braid.Engine, name string, find func() (sourceID, id string, err error)) (string, error) {
	if !s.grantOf(ctx).partialWrites() {
		return name, nil
	}
	srcs, err := s.writable(ctx, e)
	if err != nil {
		return "", err
	}
	src, id, err := find()
	if err != nil || !slices.ContainsFunc(srcs, func(w *braid.Source) bool { return w.ID == src }) {
		if err != nil {
			s.log.Printf("refusing %s to a user who may write only some sources: %v", name, err)
		}
		return "", hidden(name)
	}
	return id, nil
}

// sourceRef resolves a source a partial user names (by id or name) among
// their granted sources, ids, to its id. One they are not granted is
// answered as one that does not exist, in the engine's words.
func sourceRef(e *braid.Engine, ctx context.Context, ref string, ids []string) (string, error) {
	srcs, err := e.Sources().List(ctx)
	if err != nil {
		return "", err
	}
	var byName []string
	for _, src := range srcs {
		if !slices.Contains(ids, src.ID) {
			continue
		}
		if src.ID == ref {
			return src.ID, nil
		}
		if src.Name == ref {
			byName = append(byName, src.ID)
		}
	}
	switch len(byName) {
	case 0:
		return "", fmt.Errorf("%w: no source %q; braid sources lists them", braid.ErrNotFound, ref)
	case 1:
		return byName[0], nil
	}
	return "", fmt.Errorf("%w: %d sources are named %q; use the id from braid sources", braid.ErrAmbiguous, len(byName), ref)
}

// confineSearch fills a search's Within for ctx's user and resolves its named
// source among theirs.
func (s *Server) confineSearch(ctx context.Context, e *braid.Engine, opt *braid.SearchOptions) error {
	ids, err := s.within(ctx, e)
	if err != nil || ids == nil {
		return err
	}
	opt.Within = ids
	for i, ref := range opt.Sources {
		if opt.Sources[i], err = sourceRef(e, ctx, ref, ids); err != nil {
			return err
		}
	}
	return nil
}

// hidden is the error a partial user gets for a document or chunk they
// may not read, and for one that does not exist or that their name
// leaves ambiguous: the same words for each, naming only what they gave.
func hidden(name string) error {
	return fmt.Errorf("%w: nothing readable here is named %q; the search tool can find it", braid.ErrNotFound, name)
}

// checkDoc checks, for a partial user, that name (a document, or a
// chunk id) is of a source they are granted, before anything of it is
// read; hidden otherwise. Others pass.
func (s *Server) checkDoc(ctx context.Context, e *braid.Engine, name string) error {
	if !s.grantOf(ctx).partial() {
		return nil
	}
	d, err := documentByName(e, name)
	src := ""
	if d != nil {
		src = d.SourceID
	}
	return s.readable(ctx, e, name, src, err)
}

// hide is err as a partial user sees it: a document or chunk not found,
// or ambiguous, is hidden(name); anything else, or another user's, is
// err.
func (s *Server) hide(ctx context.Context, name string, err error) error {
	if err != nil && s.grantOf(ctx).partial() && (errors.Is(err, braid.ErrNotFound) || errors.Is(err, braid.ErrAmbiguous)) {
		return hidden(name)
	}
	return err
}

// readable checks that ctx's user may read docs of source sourceID (or
// the error err that finding it gave), answering name as hidden
// otherwise. Without a partial grant it returns err as it is.
func (s *Server) readable(ctx context.Context, e *braid.Engine, name, sourceID string, err error) error {
	g := s.grantOf(ctx)
	if !g.partial() {
		return err
	}
	if err != nil {
		if errors.Is(err, braid.ErrNotFound) || errors.Is(err, braid.ErrAmbiguous) {
			return hidden(name)
		}
		return err
	}
	ids, err := s.within(ctx, e)
	if err != nil {
		return err
	}
	if !slices.Contains(ids, sourceID) {
		return hidden(name)
	}
	return nil
}

// owner is whose scratchpad entries a request sees: the signed-in
// user's, or "" without one.
func owner(ctx context.Context) string {
	if p, ok := auth.From(ctx); ok {
		return "user:" + p.Name
	}
	return ""
}

// resourceAllowed refuses a whole-index resource to a partial user as an
// unknown resource.
func (s *Server) resourceAllowed(ctx context.Context, uri string) error {
	if s.grantOf(ctx).partial() {
		return fmt.Errorf("%w: %s", server.ErrResourceNotFound, uri)
	}
	return nil
}

// hideResources is the hook after resources/list: a partial user is not
// shown the whole index's resources, which they may not read.
func (s *Server) hideResources(ctx context.Context, _ any, _ *mcp.ListResourcesRequest, res *mcp.ListResourcesResult) {
	if res != nil && s.grantOf(ctx).partial() {
		res.Resources = slices.DeleteFunc(res.Resources, func(r mcp.Resource) bool { return r.URI == SummaryURI })
	}
}
