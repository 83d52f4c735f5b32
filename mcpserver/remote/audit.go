package remote

import (
	"context"
	"encoding/json"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/braidsearch/braid/auth"
)

// Entry is one line of the audit log: one tool call.
type Entry struct {
	Time time.Time `json:"time"`
	// User is the signed-in user; empty on a server without sign-in.
	User string `json:"user,omitempty"`
	Tool string `json:"tool"`
	// Sources are the sources the call was limited to: the ones it named
	// (its sources, source or source_id argument) within the user's grants, else the
	// grants; ["*"] for every source.
	Sources []string `json:"sources"`
	// Results is how many results the answer held, when it is a JSON
	// object with a list of them (results, hits, matches, ...); absent
	// otherwise.
	Results *int `json:"results,omitempty"`
	// Status is ok, error (the tool answered with an error result) or
	// failed (a protocol error, or the call was cancelled).
	Status     string  `json:"status"`
	DurationMS float64 `json:"duration_ms"`
	// Query is the call's query, pattern or question; only with
	// Options.AuditQueries.
	Query string `json:"query,omitempty"`
}

// audit writes Entry lines to w, one at a time.
type audit struct {
	mu      sync.Mutex
	w       io.Writer
	queries bool
}

func (a *audit) write(e Entry) error {
	line, err := json.Marshal(e)
	if err != nil {
		return err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	_, err = a.w.Write(append(line, '\n'))
	return err
}

// toolMiddleware counts, times and audits every tool call.
func (s *Server) toolMiddleware(next server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		start := time.Now()
		res, err := next(ctx, req)
		took := time.Since(start)
		status := "ok"
		switch {
		case err != nil || res == nil:
			status = "failed"
		case res.IsError:
			status = "error"
		}
		tool := req.Params.Name
		s.metrics.calls.WithLabelValues(tool, status).Inc()
		s.metrics.latency.WithLabelValues(tool).Observe(took.Seconds())
		if s.audit != nil {
			e := Entry{Time: start.UTC(), Tool: tool, Status: status, DurationMS: float64(took.Microseconds()) / 1000}
			p, signed := auth.From(ctx)
			if signed {
				e.User = p.Name
			}
			args := req.GetArguments()
			e.Sources = s.limitedTo(p, args)
			if status != "failed" {
				e.Results = count(res)
			}
			if s.audit.queries {
				for _, k := range []string{"query", "pattern", "question", "q"} {
					if q, ok := args[k].(string); ok && q != "" {
						e.Query = q
						break
					}
				}
			}
			if werr := s.audit.write(e); werr != nil {
				s.log.Printf("audit log: %v", werr)
			}
		}
		return res, err
	}
}

// limitedTo is the sources a call was limited to: those it names within
// the user's grants, else the grants, else every source.
func (s *Server) limitedTo(p *auth.Principal, args map[string]any) []string {
	var granted []string // nil: every source
	if p != nil && s.opt.Grants != nil {
		granted = s.opt.Grants(p)
		if granted == nil {
			granted = []string{}
		}
		if slices.Contains(granted, "*") {
			granted = nil
		}
	}
	var named []string
	switch v := args["sources"].(type) {
	case []any:
		for _, x := range v {
			if n, ok := x.(string); ok {
				named = append(named, n)
			}
		}
	case string:
		named = []string{v}
	}
	for _, k := range []string{"source", "source_id"} {
		if v, ok := args[k].(string); ok && v != "" {
			named = append(named, v)
		}
	}
	switch {
	case len(named) > 0 && granted != nil:
		return slices.DeleteFunc(named, func(n string) bool { return !slices.Contains(granted, n) })
	case len(named) > 0:
		return named
	case granted != nil:
		return granted
	default:
		return []string{"*"}
	}
}

// count is how many results a tool's answer holds: the length of the
// first list among its JSON object's results, hits, matches, documents,
// files, passages or items, or of a JSON list; nil when it has none.
func count(res *mcp.CallToolResult) *int {
	if res == nil || len(res.Content) == 0 {
		return nil
	}
	t, ok := mcp.AsTextContent(res.Content[0])
	if !ok {
		return nil
	}
	var v any
	if json.Unmarshal([]byte(t.Text), &v) != nil {
		return nil
	}
	switch v := v.(type) {
	case []any:
		n := len(v)
		return &n
	case map[string]any:
		for _, k := range []string{"results", "hits", "matches", "documents", "files", "passages", "items"} {
			if l, ok := v[k].([]any); ok {
				n := len(l)
				return &n
			}
		}
	}
	return nil
}
