package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/braidsearch/braid"
)

type askArgs struct {
	Question string   `json:"question"`
	Budget   int      `json:"budget"`
	SourceID string   `json:"source_id"`
	Path     string   `json:"path"`
	Tags     []string `json:"tags"`
}

func (a *askArgs) check() error {
	if err := required("question", a.Question); err != nil {
		return err
	}
	return intRange("budget", a.Budget, braid.MinAskBudget, braid.MaxAskBudget)
}

func (s *Server) askTool() tool {
	def := mcp.NewTool("ask",
		mcp.WithDescription("A hybrid search's best passages for a question, deduplicated, within a token budget, "+
			"each with a tag to cite. "+descFilters+". Returns {documents: [{path, passages: [{tag, text, ...}]}], ...}."),
		readOnly(),
		mcp.WithString("question", mcp.Required(), mcp.Description("The question (to 4 KiB).")),
		mcp.WithInteger("budget", mcp.Description("Most tokens for passages."),
			mcp.DefaultNumber(braid.DefaultAskBudget), mcp.Min(braid.MinAskBudget), mcp.Max(braid.MaxAskBudget)),
		mcp.WithString("source_id"),
		mcp.WithString("path"),
		mcp.WithArray("tags", mcp.WithStringItems()),
	)
	return tool{def, adapt(s, "ask", askArgs{Budget: braid.DefaultAskBudget}, func(ctx context.Context, c call, a *askArgs) (any, error) {
		opt := braid.AskOptions{Budget: a.Budget, PathGlob: a.Path, Tags: a.Tags}
		if a.SourceID != "" {
			opt.Sources = []string{a.SourceID}
		}
		scoped := braid.SearchOptions{Sources: opt.Sources}
		if err := s.confineSearch(ctx, c.e, &scoped); err != nil { // access.go
			return nil, err
		}
		opt.Sources, opt.Within = scoped.Sources, scoped.Within
		p, err := c.e.Ask(ctx, a.Question, opt)
		switch {
		case errors.Is(err, braid.ErrQueryTooLong), errors.Is(err, braid.ErrEmptyQuery):
			return nil, fmt.Errorf("%w question: %s", ErrBadArgument, message(err))
		case err != nil && a.Path != "" && strings.HasPrefix(message(err), "glob "):
			return nil, fmt.Errorf("%w path: %s", ErrBadArgument, message(err))
		case err != nil:
			return nil, err
		}
		p.Warning = s.shorten(c.e, p.Warning)
		// The caller's budget bounds the reply: no scratchpad.
		text, err := render(p)
		if err != nil {
			return nil, fmt.Errorf("mcpserver: render ask result: %w", err)
		}
		return mcp.NewToolResultText(text), nil
	})}
}
