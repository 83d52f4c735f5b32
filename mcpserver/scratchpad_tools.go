package mcpserver

import (
	"context"
	"fmt"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/braidsearch/braid/mcpserver/scratchpad"
)

func (s *Server) scratchpadListTool() tool {
	def := mcp.NewTool("scratchpad_list",
		mcp.WithDescription(fmt.Sprintf("List the outputs kept in this session's scratchpad, most recently used first: "+
			"{entries: [{id, tool, bytes, created, preview}]}. A tool whose output is longer than %d bytes replies with the "+
			"beginning and keeps the whole of it here; the %d most recently used outputs are kept.", s.opt.MaxOutput, s.opt.Scratchpads)),
		readOnly(),
	)
	return tool{def, adaptLocal(s, "scratchpad_list", noArgs{}, func(ctx context.Context, c call, _ *noArgs) (any, error) {
		return map[string]any{"entries": s.pad.List(owner(ctx))}, nil
	})}
}

type padArgs struct {
	ID     string `json:"id"`
	Offset int    `json:"offset"`
}

func (a *padArgs) check() error {
	if err := required("id", a.ID); err != nil {
		return err
	}
	if a.Offset < 0 {
		return argError("offset", "%d is negative; want 0 or more", a.Offset)
	}
	return nil
}

func (s *Server) scratchpadReadTool() tool {
	def := mcp.NewTool("scratchpad_read",
		mcp.WithDescription(fmt.Sprintf("The rest of a long output that was cut at %d bytes; the cut reply names the id and the offset.", s.opt.MaxOutput)),
		readOnly(),
		mcp.WithString("id", mcp.Required(), mcp.Description("The id, e.g. \"sp-3\".")),
		mcp.WithInteger("offset", mcp.Description("Byte to start at."), mcp.Min(0)),
	)
	return tool{def, adaptLocal(s, "scratchpad_read", padArgs{}, func(ctx context.Context, c call, a *padArgs) (any, error) {
		text, ok := s.pad.Get(owner(ctx), a.ID)
		if !ok {
			return nil, argError("id", "no scratchpad entry %q; it may have been dropped to make room (the %d most recently used are kept); scratchpad_list lists them", a.ID, s.opt.Scratchpads)
		}
		if a.Offset > len(text) {
			return nil, argError("offset", "%d is past the end of %s (%d bytes)", a.Offset, a.ID, len(text))
		}
		off := a.Offset
		for off < len(text) && !utf8.RuneStart(text[off]) {
			off++
		}
		shown, next := scratchpad.Page(text, off, s.opt.MaxOutput)
		if next < len(text) {
			shown += fmt.Sprintf("\n[bytes %d..%d of %d shown; call scratchpad_read with {\"id\": %q, \"offset\": %d} for more.]", off, next, len(text), a.ID, next)
		}
		// Returned as is: a page is never stored again.
		return mcp.NewToolResultText(shown), nil
	})}
}
