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
		mcp.WithDescription("Gather the evidence to answer a question from the indexed notes, in one call: the best passages across "+
			"documents (the hybrid search of search, reranked), never the same lines of a document twice, near-identical text found in "+
			"several places kept once (the other places listed in its duplicates), each passage with its citation tag "+
			"[Title](path#L12-L30), fitted to a token budget and ordered for reading: grouped by document, the best document first, "+
			"passages in line order. braid runs no language model and writes no answer: you write the answer from the passages and "+
			"cite their tags. Returns {question, budget, tokens, documents: [{document, title, path, file, passages: [{chunk_id, rank, "+
			"score, heading_path, start_line, end_line, tag, text, tokens, cut, duplicates}]}], passages, considered, dropped, warning}. "+
			"The budget bounds the reply (it is not cut at the server's output limit); tokens are counted as braid's chunker counts "+
			"them, about 4 bytes of English a token."),
		readOnly("Gather evidence for a question"),
		mcp.WithString("question", mcp.Required(), mcp.Description("The question, in words; it is searched as search's query is "+
			"(\"quoted phrases\" must appear, -word excludes; at most 4 KiB).")),
		mcp.WithInteger("budget", mcp.Description(fmt.Sprintf("The most tokens the passages and their citation tags may take: "+
			"%d..%d, default %d. Passages that do not fit whole are cut around their best-matching lines.",
			braid.MinAskBudget, braid.MaxAskBudget, braid.DefaultAskBudget)),
			mcp.DefaultNumber(braid.DefaultAskBudget), mcp.Min(braid.MinAskBudget), mcp.Max(braid.MaxAskBudget)),
		mcp.WithString("source_id", mcp.Description(descSourceID)),
		mcp.WithString("path", mcp.Description(descPath)),
		mcp.WithArray("tags", mcp.Description(descTags), mcp.WithStringItems()),
	)
	return tool{def, adapt(s, "ask", askArgs{Budget: braid.DefaultAskBudget}, func(ctx context.Context, c call, a *askArgs) (any, error) {
		opt := braid.AskOptions{Budget: a.Budget, PathGlob: a.Path, Tags: a.Tags}
		if a.SourceID != "" {
			opt.Sources = []string{a.SourceID}
		}
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
