package mcpserver

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/settings"
)

// maxLimit is the most names find or pairs find_gaps return (a search's
// is settings.LimitBound's).
const maxLimit = 100

type searchArgs struct {
	Query        string   `json:"query"`
	Limit        int      `json:"limit"`
	VectorWeight *float64 `json:"vector_weight"`
	Fusion       string   `json:"fusion"`
	Rerank       *bool    `json:"rerank"` // nil: rerank when a cross-encoder is installed, silently
	SourceID     string   `json:"source_id"`
	Path         string   `json:"path"`
	Tags         []string `json:"tags"`
	Metadata     []string `json:"metadata"`
	Fuzzy        bool     `json:"fuzzy"`
	Similarity   float64  `json:"similarity"`
	PathsOnly    bool     `json:"paths_only"`
	LineNumbers  bool     `json:"line_numbers"`
	Context      int      `json:"context"`
	Explain      bool     `json:"explain"`
	Hash         string   `json:"hash"`
	Session      string   `json:"session"`
	UseSession   *bool    `json:"use_session"`
}

func (a *searchArgs) check() error {
	if err := hashOrQuery(a.Hash, a.Query); err != nil { // nav_tools.go
		return err
	}
	if err := a.options().Check(); err != nil { // the ranges every front end shares
		return err
	}
	if _, err := metaArg("metadata", a.Metadata); err != nil {
		return err
	}
	return intRange("context", a.Context, 0, 20)
}

// options are the search the arguments ask for, but for its session.
func (a *searchArgs) options() braid.SearchOptions {
	opt := braid.SearchOptions{Limit: a.Limit, VectorWeight: a.VectorWeight, Fusion: braid.Fusion(a.Fusion),
		NoRerank: a.Rerank != nil && !*a.Rerank, Rerank: a.Rerank != nil && *a.Rerank,
		PathGlob: a.Path, Tags: a.Tags, Fuzzy: a.Fuzzy, Similarity: a.Similarity, Explain: a.Explain, Hash: a.Hash}
	opt.Metadata, _ = metaArg("metadata", a.Metadata)
	if a.SourceID != "" {
		opt.Sources = []string{a.SourceID}
	}
	return opt
}

// Descriptions of the arguments several tools share. Every tool listed
// costs an agent context on every turn (profiles.go), so they are short,
// and filters are documented once in the tool's description (descFilters)
// rather than in a description of each.
const (
	descQuery   = "Words; \"phrases\" must appear, -word excludes."
	descFilters = "Filters: source_id, path (glob), tags"
)

func (s *Server) searchTool() tool {
	return s.searchToolAs("search", "Hybrid search: BM25 fused with vectors, reranked (each if its model is installed; warning "+
		"says what was not). "+descFilters+", metadata (k=v). Returns {results: [{id, "+
		"chunk_id, path, title, snippet, line, ...}], total, warning}.", nil)
}

// searchToolAs is the search tool named name, described by desc, with
// vector_weight defaulting to weight, or with nil to the index's setting:
// search and its aliases.
func (s *Server) searchToolAs(name, desc string, weight *float64) tool {
	weightDoc := "auto"
	if weight != nil {
		weightDoc = fmt.Sprint(*weight)
	}
	def := mcp.NewTool(name,
		mcp.WithDescription(desc),
		readOnly(),
		mcp.WithString("query", mcp.Description(descQuery)),
		mcp.WithString("hash", mcp.Description(descSearchHash)), // nav_tools.go
		mcp.WithInteger("limit", mcp.Description("Results (default 10)."), mcp.Min(1), mcp.Max(settings.LimitBound.Max)),
		mcp.WithNumber("vector_weight", mcp.Description("0 keywords to 1 meaning (default "+weightDoc+")."), mcp.Min(0), mcp.Max(1)),
		mcp.WithString("fusion", mcp.Description("How to mix the lists."), mcp.Enum("linear", "rrf")),
		mcp.WithBoolean("rerank", mcp.Description("Default: if installed; true warns if not.")),
		mcp.WithString("source_id"),
		mcp.WithString("path"),
		mcp.WithArray("tags", mcp.WithStringItems()),
		mcp.WithArray("metadata", mcp.WithStringItems()),
		mcp.WithBoolean("fuzzy", mcp.Description("Tolerate typos.")),
		mcp.WithNumber("similarity", mcp.Description("Fuzzy: 0.75+ is 1 edit."),
			mcp.DefaultNumber(braid.DefaultSimilarity), mcp.Min(0), mcp.Max(1)),
		mcp.WithBoolean("paths_only", mcp.Description("Only {paths, total}.")),
		mcp.WithBoolean("line_numbers", mcp.Description("Number context lines.")),
		mcp.WithInteger("context", mcp.Description("File lines around hits."), mcp.Min(0), mcp.Max(20)),
		mcp.WithBoolean("explain", mcp.Description("Add score breakdowns.")),
		mcp.WithString("session", mcp.Description(descSession)),
		mcp.WithBoolean("use_session", mcp.Description(descUseSession)),
	)
	defaults := searchArgs{VectorWeight: weight, Similarity: braid.DefaultSimilarity}
	return tool{def, adapt(s, name, defaults, func(ctx context.Context, c call, a *searchArgs) (any, error) {
		opt := a.options()
		var err error
		if opt.Session, err = s.scope(ctx, c.e, a.Session, a.UseSession); err != nil {
			return nil, err
		}
		if err := s.confineSearch(ctx, c.e, &opt); err != nil {
			return nil, err
		}
		return s.runSearch(ctx, c.e, a.Query, opt, a.PathsOnly, a.LineNumbers, a.Context)
	})}
}

type keywordArgs struct {
	Query    string   `json:"query"`
	Limit    int      `json:"limit"`
	SourceID string   `json:"source_id"`
	Path     string   `json:"path"`
	Tags     []string `json:"tags"`
	Fuzzy    bool     `json:"fuzzy"`
}

func (a *keywordArgs) check() error {
	if err := required("query", a.Query); err != nil {
		return err
	}
	return a.options().Check()
}

// options are the keyword search the arguments ask for.
func (a *keywordArgs) options() braid.SearchOptions {
	return braid.SearchOptions{Limit: a.Limit, Keyword: true, NoRerank: true, PathGlob: a.Path, Tags: a.Tags, Fuzzy: a.Fuzzy}
}

func (s *Server) searchKeywordTool() tool {
	def := mcp.NewTool("search_keyword",
		mcp.WithDescription("BM25 only, not reranked: for exact names and rare words. query, limit, fuzzy, "+
			"source_id, path, tags and the reply are as in search."),
		readOnly(),
		mcp.WithString("query", mcp.Required()),
		mcp.WithInteger("limit", mcp.Min(1), mcp.Max(settings.LimitBound.Max)),
		mcp.WithString("source_id"),
		mcp.WithString("path"),
		mcp.WithArray("tags", mcp.WithStringItems()),
		mcp.WithBoolean("fuzzy"),
	)
	return tool{def, adapt(s, "search_keyword", keywordArgs{}, func(ctx context.Context, c call, a *keywordArgs) (any, error) {
		opt := a.options()
		if a.SourceID != "" {
			opt.Sources = []string{a.SourceID}
		}
		if err := s.confineSearch(ctx, c.e, &opt); err != nil {
			return nil, err
		}
		return s.runSearch(ctx, c.e, a.Query, opt, false, false, 0)
	})}
}

// searchHit is a hit with, on request, the lines around it.
type searchHit struct {
	braid.Hit
	Context      string `json:"context,omitempty"`
	ContextError string `json:"context_error,omitempty"`
}

type searchReply struct {
	Results  []searchHit `json:"results"`
	Total    int         `json:"total"`
	TookMS   float64     `json:"took_ms"`
	Warning  string      `json:"warning,omitempty"`
	Reranked int         `json:"reranked,omitempty"`
	RerankOf int         `json:"rerank_of,omitempty"`
	Lookup   string      `json:"lookup,omitempty"`  // "hash": answered by content hash, not ranked
	Session  string      `json:"session,omitempty"` // the session the search was scoped to
	// Truncated says that only the first results fit the output limit,
	// and where the whole answer is.
	Truncated string `json:"truncated,omitempty"`
}

func (r searchReply) count() int { return len(r.Results) }

func (r searchReply) shrink(n int, id string) any {
	if id == "" {
		r.Truncated = fmt.Sprintf("only the first %d of %d results fit the output limit; ask for fewer results", n, len(r.Results))
		r.Results = r.Results[:n]
		return r
	}
	r.Truncated = fmt.Sprintf("only the first %d of %d results fit the output limit; the whole answer is scratchpad %s "+
		"(scratchpad_read with {\"id\": %q}), or ask for fewer results", n, len(r.Results), id, id)
	r.Results = r.Results[:n]
	return r
}

type pathsReply struct {
	Paths   []string `json:"paths"`
	Total   int      `json:"total"`
	TookMS  float64  `json:"took_ms"`
	Warning string   `json:"warning,omitempty"`
	Lookup  string   `json:"lookup,omitempty"`
	Session string   `json:"session,omitempty"`
}

func (s *Server) runSearch(ctx context.Context, e *braid.Engine, query string, opt braid.SearchOptions, pathsOnly, lineNumbers bool, context int) (any, error) {
	res, err := e.Search(ctx, query, opt)
	if err != nil {
		if opt.PathGlob != "" && strings.HasPrefix(message(err), "glob ") {
			return nil, fmt.Errorf("%w path: %s", ErrBadArgument, message(err))
		}
		return nil, err
	}
	res.Warning = s.shorten(e, res.Warning)
	if pathsOnly {
		r := pathsReply{Paths: []string{}, Total: res.Total, TookMS: res.TookMS, Warning: res.Warning, Lookup: res.Lookup, Session: opt.Session}
		for _, h := range res.Results {
			p := h.Path
			if lineNumbers {
				p = fmt.Sprintf("%s:%d-%d", h.Path, h.Line.Start, h.Line.End)
			}
			r.Paths = append(r.Paths, p)
		}
		return r, nil
	}
	r := searchReply{Results: make([]searchHit, len(res.Results)), Total: res.Total, TookMS: res.TookMS,
		Warning: res.Warning, Reranked: res.Reranked, RerankOf: res.RerankOf, Lookup: res.Lookup, Session: opt.Session}
	for i, h := range res.Results {
		if h.Explain != nil {
			// The per-term BM25 breakdown costs a few hundred bytes a
			// hit against the output limit; the numbers beside it
			// explain the score.
			x := *h.Explain
			x.BM25 = nil
			h.Explain = &x
		}
		r.Results[i].Hit = h
		if context == 0 {
			continue
		}
		x, err := e.Notes().Excerpt(ctx, h.ID, h.Line, h.Marked(), context, context)
		if err != nil {
			r.Results[i].ContextError = message(err)
			continue
		}
		r.Results[i].Context = renderExcerpt(x, lineNumbers)
	}
	return r, nil
}

// renderExcerpt prints lines as grep -n does: "N:" for the focus line,
// "N-" for the others.
func renderExcerpt(x *braid.Excerpt, numbers bool) string {
	var b strings.Builder
	for i, l := range x.Lines {
		if numbers {
			n := x.Start + i
			sep := "-"
			if n == x.Focus {
				sep = ":"
			}
			fmt.Fprintf(&b, "%d%s", n, sep)
		}
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}

// shorten gives the reason a model is missing (a long message naming
// every place the runtime was looked for) in full the first time a search
// warns of it, and a pointer after that: to get_stats where it is offered,
// else to the earlier warning.
func (s *Server) shorten(e *braid.Engine, warning string) string {
	if warning == "" {
		return ""
	}
	pointer := "given in an earlier warning"
	if slices.Contains(s.offered, "get_stats") {
		pointer = "see get_stats"
	}
	caps := e.Capabilities()
	for k, why := range []string{caps.NoVectors, caps.NoRerank} {
		i := strings.Index(warning, why)
		if len(why) < 40 || i < 0 || (k == 1 && why == caps.NoVectors) {
			continue
		}
		if _, told := s.told.LoadOrStore(why, true); told {
			warning = strings.ReplaceAll(warning, why, pointer)
			continue
		}
		end := i + len(why) // the first in full, any repeat shortened
		warning = warning[:end] + strings.ReplaceAll(warning[end:], why, "as above")
	}
	return warning
}
