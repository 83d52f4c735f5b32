package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/mcpserver/scratchpad"
	"github.com/braidsearch/braid/model"
)

// tool is one MCP tool: its schema and its handler.
type tool struct {
	def     mcp.Tool
	handler server.ToolHandlerFunc
}

// tools lists every tool the server offers. Each is a schema and a small
// adapter over one engine call.
func (s *Server) tools() []tool {
	return []tool{
		s.searchTool(),
		s.searchKeywordTool(),
		s.grepTool(),
		s.readNodeContentTool(),
		s.getDocumentTool(),
		s.readAroundTool(),
		// Navigation: hash lookup, names, ancestry, citations (nav_tools.go).
		s.getTool(),
		s.findTool(),
		s.getInfoTool(),
		s.citeTool(),
		s.viewChunkImageTool(),
		s.askTool(),
		s.listSourcesTool(),
		s.indexPathTool(),
		s.removeSourceTool(),
		s.getStatsTool(),
		s.configureTool(),
		s.exploreLinksTool(),
		s.findGapsTool(),
		s.listDirectoryStructureTool(),
		s.injectTagsTool(),
		// The document store (store_tools.go).
		s.addTool(),
		s.downloadTool(),
		s.updateTool(),
		s.deleteByNameTool(),
		s.listVersionsTool(),
		s.compareVersionsTool(),
		s.listTool(),
		s.listCollectionsTool(),
		s.createSnapshotTool(),
		s.listSnapshotsTool(),
		s.restoreTool(),
		s.scratchpadListTool(),
		s.scratchpadReadTool(),
		// Aliases, under the names other systems' agents call (alias_tools.go).
		s.searchDocumentsTool(),
		s.searchKnowledgeTool(),
		s.readTool(),
		s.getCurrentDatetimeTool(),
		s.statusTool(), // seed_tools.go
		s.graphTool(),
		s.listContentsTool(),
		s.getOrganizationInfoTool(),
		s.traceChunkLineageTool(),
		// YAMS's sessions (session_tools.go).
		s.sessionStartTool(),
		s.sessionStopTool(),
		s.sessionPinTool(),
		s.sessionUnpinTool(),
		s.sessionWatchTool(),
	}
}

// writesOutside names the tools that write files outside the index
// directory: they are offered only with Options.AllowWrites.
var writesOutside = map[string]bool{"restore": true, "inject_tags": true}

// checker is implemented by argument structs that validate themselves
// after decoding.
type checker interface{ check() error }

// call is what a handler gets besides its arguments.
type call struct {
	e   *braid.Engine // nil for tools made with adaptLocal
	req mcp.CallToolRequest
}

// handlerFunc is a tool's work: arguments in, a string or a JSON value out.
type handlerFunc[A any] func(ctx context.Context, c call, a *A) (any, error)

// adapt makes a handler that decodes and checks the arguments into a copy
// of defaults, waits for the engine, runs fn and renders its result: a
// string as it is, anything else as JSON. Any error becomes a tool result
// with isError set; protocol errors are left to mcp-go (unknown tool,
// malformed request).
func adapt[A any](s *Server, name string, defaults A, fn handlerFunc[A]) server.ToolHandlerFunc {
	return handler(s, name, defaults, true, fn)
}

// adaptLocal is adapt for a tool that does not use the engine, so it
// answers while the models still load.
func adaptLocal[A any](s *Server, name string, defaults A, fn handlerFunc[A]) server.ToolHandlerFunc {
	return handler(s, name, defaults, false, fn)
}

func handler[A any](s *Server, name string, defaults A, engine bool, fn handlerFunc[A]) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		a := defaults
		raw := req.Params.RawArguments
		if raw == nil && req.Params.Arguments != nil { // an in-process caller
			var err error
			if raw, err = json.Marshal(req.Params.Arguments); err != nil {
				return s.fail(name, fmt.Errorf("%w: arguments are not JSON: %v", ErrBadArgument, err)), nil
			}
		}
		if err := decodeArgs(raw, &a); err != nil {
			return s.fail(name, err), nil
		}
		if c, ok := any(&a).(checker); ok {
			if err := c.check(); err != nil {
				return s.fail(name, err), nil
			}
		}
		c := call{req: req}
		if engine {
			e, err := s.engine(ctx)
			if err != nil {
				return s.fail(name, err), nil
			}
			c.e = e
		}
		out, err := fn(ctx, c, &a)
		if err != nil {
			return s.fail(name, err), nil
		}
		if r, ok := out.(*mcp.CallToolResult); ok {
			return r, nil
		}
		return s.reply(ctx, name, out)
	}
}

// fail is a tool error an agent can act on: which tool, what was wrong and
// how to fix it, naming only tools this server offers.
func (s *Server) fail(tool string, err error) *mcp.CallToolResult {
	msg := tool + ": " + message(err)
	if !slices.Contains(s.offered, "index_path") {
		msg = tool + ": " + noIndexPathHints.Replace(model.Clause(err))
	}
	if !errors.Is(err, ErrBadArgument) && !errors.Is(err, braid.ErrNotFound) && !errors.Is(err, braid.ErrBadOption) {
		s.log.Print(msg)
	}
	return mcp.NewToolResultError(msg)
}

// cliHints turns the engine's advice, written for the command line, into
// advice about tools.
var cliHints = strings.NewReplacer(append(indexHints, otherHints...)...)

// indexHints point at index_path; a server that does not offer it leaves
// that advice as the command line's (noIndexPathHints), for its user to run.
var indexHints = []string{
	"run braid index PATH first", "call index_path first",
	"; run braid index PATH", "; call index_path with the folder to index",
	"run braid index to drop documents whose files are gone", "call index_path on its source to drop documents whose files are gone",
	"run braid index to compute them", "call index_path to compute them",
	"run braid index", "call index_path",
}

// otherHints turn the rest of the command-line advice into tools'.
var otherHints = []string{
	"braid find or braid search can find it", "find or search can find it",
	"braid tree lists the folders", "list_directory_structure lists the folders",
	"braid search can find it", "the search tool can find it",
	"braid sources lists them", "list_sources lists them",
	"use the id from braid sources", "use the id from list_sources",
	"open it for writing to index", "restart braid serve without --read-only to change the index",
}

var noIndexPathHints = strings.NewReplacer(otherHints...)

// message is an error as one line without the package prefixes.
func message(err error) string {
	return cliHints.Replace(model.Clause(err))
}

// reply renders out as the tool's text, keeping the whole of a long output
// in the scratchpad and replying with its first MaxOutput bytes.
func (s *Server) reply(ctx context.Context, tool string, out any) (*mcp.CallToolResult, error) {
	text, ok := out.(string)
	if !ok {
		var err error
		if text, err = render(out); err != nil {
			return nil, fmt.Errorf("mcpserver: render %s result: %w", tool, err)
		}
	}
	if len(text) <= s.opt.MaxOutput {
		return mcp.NewToolResultText(text), nil
	}
	id := "" // a profile without scratchpad_read keeps no long outputs
	if slices.Contains(s.offered, "scratchpad_read") {
		id = s.pad.Put(owner(ctx), tool, text)
	}
	if sh, ok := out.(shrinker); ok {
		// Whole results that fit, still valid JSON, and a note.
		for n := sh.count() - 1; n >= 0; n-- {
			short, err := render(sh.shrink(n, id))
			if err != nil {
				return nil, fmt.Errorf("mcpserver: render %s result: %w", tool, err)
			}
			if len(short) <= s.opt.MaxOutput {
				return mcp.NewToolResultText(short), nil
			}
		}
	}
	shown, next := scratchpad.Page(text, 0, s.opt.MaxOutput)
	return mcp.NewToolResultText(shown + moreNote(id, next, len(text))), nil
}

// shrinker is a JSON answer made of a list that can be cut to its first n
// entries, with a note naming the scratchpad entry that holds it all (or,
// for "", that none does).
type shrinker interface {
	count() int
	shrink(n int, scratchpad string) any
}

// render writes v as compact JSON, leaving <, > and & as they are.
func render(v any) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// moreNote ends a reply that shows only part of a scratchpad entry, or
// of an output kept nowhere (id "").
func moreNote(id string, next, total int) string {
	if id == "" {
		return fmt.Sprintf("\n[output truncated: bytes 0..%d of %d shown. Ask for less (fewer results, paths_only, a line range) to see the rest.]", next, total)
	}
	return fmt.Sprintf("\n[output truncated: bytes 0..%d of %d shown. The whole output is scratchpad %s; call scratchpad_read with {\"id\": %q, \"offset\": %d} for the rest.]",
		next, total, id, id, next)
}

// hints for the annotations of read-only and writing tools.
// readOnly annotates a tool that changes nothing. Only readOnlyHint is
// given: the destructive and idempotent hints mean something only for
// tools that write (MCP ToolAnnotations), and a title and openWorldHint
// did not pay for their place in every tools/list an agent reads (the
// core profile's stays under 8,000 characters; instructions_test.go).
func readOnly() mcp.ToolOption {
	return mcp.WithToolAnnotation(mcp.ToolAnnotation{ReadOnlyHint: mcp.ToBoolPtr(true)})
}

func writes(title string, destructive bool) mcp.ToolOption {
	return mcp.WithToolAnnotation(mcp.ToolAnnotation{Title: title, ReadOnlyHint: mcp.ToBoolPtr(false),
		DestructiveHint: mcp.ToBoolPtr(destructive), IdempotentHint: mcp.ToBoolPtr(true), OpenWorldHint: mcp.ToBoolPtr(false)})
}
