package mcpserver

import (
	"context"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/braidsearch/braid/prompts"
)

// promptHooks keeps mcp-go's prompts in step with the prompts folder:
// each prompts/list and prompts/get reads the folder first (a few small
// files), so an added, edited or deleted PROMPT-*.md file shows up on the
// next request. Prompts never wait for the engine.
func (s *Server) promptHooks() *server.Hooks {
	h := &server.Hooks{}
	h.AddBeforeListPrompts(func(ctx context.Context, id any, req *mcp.ListPromptsRequest) {
		s.syncPrompts("")
	})
	h.AddBeforeGetPrompt(func(ctx context.Context, id any, req *mcp.GetPromptRequest) {
		s.syncPrompts(req.Params.Name)
	})
	return h
}

// syncPrompts registers the prompts the folder and the built-ins make now
// and drops the others. asked is the name a prompts/get asks for: when no
// prompt has it, a handler that answers with the names there are and how
// to add one stands in for mcp-go's bare "not found" until the next sync.
func (s *Server) syncPrompts(asked string) {
	s.promptMu.Lock()
	defer s.promptMu.Unlock()
	set, err := prompts.Load(s.opt.Prompts)
	msg := ""
	if err != nil {
		msg = strings.ReplaceAll(err.Error(), "\n", "; ")
	}
	if msg != "" && msg != s.promptProblem {
		s.log.Print(msg) // once per change, not on every request
	}
	s.promptProblem = msg
	if set == nil {
		return
	}
	keep := make(map[string]bool, len(set.Prompts)+1)
	entries := make([]server.ServerPrompt, 0, len(set.Prompts)+1)
	for _, p := range set.Prompts {
		keep[p.Name] = true
		entries = append(entries, server.ServerPrompt{Prompt: mcpPrompt(p), Handler: promptHandler(p)})
	}
	if asked != "" && !keep[asked] {
		_, err := set.Get(asked)
		entries = append(entries, server.ServerPrompt{Prompt: mcp.NewPrompt(asked),
			Handler: func(context.Context, mcp.GetPromptRequest) (*mcp.GetPromptResult, error) { return nil, err }})
	}
	s.mcp.AddPrompts(entries...)
	var gone []string
	for name := range s.mcp.ListPrompts() {
		if !keep[name] && name != asked {
			gone = append(gone, name)
		}
	}
	if len(gone) > 0 {
		s.mcp.DeletePrompts(gone...)
	}
}

// mcpPrompt is p as prompts/list shows it.
func mcpPrompt(p prompts.Prompt) mcp.Prompt {
	m := mcp.Prompt{Name: p.Name, Title: p.Title, Description: p.Description}
	for _, a := range p.Arguments {
		desc := a.Description
		if a.Default != "" && !strings.Contains(strings.ToLower(desc), "default") {
			desc = strings.TrimSpace(desc + " Default " + a.Default + ".")
		}
		m.Arguments = append(m.Arguments, mcp.PromptArgument{Name: a.Name, Description: desc, Required: a.Required})
	}
	return m
}

// promptHandler answers prompts/get for p: its text with the arguments
// filled in, as one user message.
func promptHandler(p prompts.Prompt) server.PromptHandlerFunc {
	return func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		msgs, err := p.Messages(req.Params.Arguments)
		if err != nil {
			return nil, err
		}
		out := make([]mcp.PromptMessage, len(msgs))
		for i, m := range msgs {
			out[i] = mcp.NewPromptMessage(mcp.Role(m.Role), mcp.NewTextContent(m.Text))
		}
		return mcp.NewGetPromptResult(p.Description, out), nil
	}
}
