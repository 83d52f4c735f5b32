package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/braidsearch/braid"
)

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
}

func (a *searchArgs) check() error {
	if err := hashOrQuery(a.Hash, a.Query); err != nil { // nav_tools.go
		return err
	}
	if err := limitArg(a.Limit); err != nil {
		return err
	}
	if a.VectorWeight != nil {
		if err := floatRange("vector_weight", *a.VectorWeight, 0, 1, " (0 = keyword only, 1 = meaning only)"); err != nil {
			return err
		}
	}
	if a.Fusion != "" {
		if err := oneOf("fusion", a.Fusion, string(braid.FusionLinear), string(braid.FusionRRF)); err != nil {
			return err
		}
	}
	if err := floatRange("similarity", a.Similarity, 0, 1, ""); err != nil {
		return err
	}
	if _, err := metaArg("metadata", a.Metadata); err != nil {
		return err
	}
	return intRange("context", a.Context, 0, 20)
}

// Descriptions shared by search and search_keyword.
const (
	descQuery    = "What to look for, in words. \"Quoted phrases\" must appear as written; -word excludes documents with that word."
	descLimit    = "How many results to return, best first: one per document. 1..100; default the index's limit setting (10 unless changed with configure)."
	descSourceID = "Only search this source: its id or name from list_sources. Default: every source."
	descPath     = "Only documents whose path (relative to its source, as results show it) matches this glob, e.g. \"docs/**\" or \"*.md\". Default: all."
	descTags     = "Only documents that have every one of these tags (frontmatter tags or #hashtags, without the #). Default: no tag filter."
	descFuzzy    = "Tolerate typos in the query words (edit distance 1 or 2). Default false."
)

func (s *Server) searchTool() tool {
	return s.searchToolAs("search", "Search the indexed notes and documents by meaning and keywords (hybrid: BM25 fused with vector similarity, "+
		"then reranked by a cross-encoder; each only when its model is installed, as get_stats says). Use it first for questions and "+
		"topics; use search_keyword for exact names or identifiers "+
		"and grep for regular expressions. Returns {results: [{id, chunk_id, path, title, score, snippet, line: {start, end}, highlights, "+
		"source, source_id, heading_path}], total, took_ms, warning}. source says which retrievers found the hit: lexical, vector or hybrid, "+
		"with +rerank when the cross-encoder reordered it. warning says when the search could not do what was asked (for example no "+
		"embedding model installed: the search then ran on keywords alone). Pass a hit's chunk_id to read_around, or its id to "+
		"read_node_content or get_document.", nil)
}

// searchToolAs is the search tool named name, described by desc, with
// vector_weight defaulting to weight, or with nil to the index's setting:
// search and its aliases.
func (s *Server) searchToolAs(name, desc string, weight *float64) tool {
	weightDoc := "the index's vector_weight setting (" + fmt.Sprint(braid.DefaultVectorWeight) + " unless changed with configure)"
	if weight != nil {
		weightDoc = fmt.Sprint(*weight)
	}
	def := mcp.NewTool(name,
		mcp.WithDescription(desc),
		readOnly("Search notes"),
		mcp.WithString("query", mcp.Description(descQuery+" Required unless hash is given; a query that is a content hash "+
			"(8-64 hex digits) of a document is answered with that document.")),
		mcp.WithString("hash", mcp.Description(descSearchHash)), // nav_tools.go
		mcp.WithInteger("limit", mcp.Description(descLimit), mcp.Min(1), mcp.Max(maxLimit)),
		mcp.WithNumber("vector_weight", mcp.Description(fmt.Sprintf("How much meaning counts against keywords: 0 = keyword (BM25) only, "+
			"1 = vector similarity only. Raise it for vague or conceptual questions, lower it for exact terms. 0..1, default %s. "+
			"Without an embedding model every search is keyword only and says so in warning.", weightDoc)),
			mcp.Min(0), mcp.Max(1)),
		mcp.WithString("fusion", mcp.Description("How keyword and vector rankings are combined: linear (weighted normalised scores) "+
			"or rrf (weighted reciprocal rank fusion). Default: the index's fusion setting (linear unless changed with configure)."),
			mcp.Enum("linear", "rrf")),
		mcp.WithBoolean("rerank", mcp.Description("Reorder the best 50 candidates with the cross-encoder: better order, a few tens of "+
			"milliseconds more. Default true; ignored when no reranker is installed (warning says so)."), mcp.DefaultBool(true)),
		mcp.WithString("source_id", mcp.Description(descSourceID)),
		mcp.WithString("path", mcp.Description(descPath)),
		mcp.WithArray("tags", mcp.Description(descTags), mcp.WithStringItems()),
		mcp.WithArray("metadata", mcp.Description("Only documents whose metadata (set by add or update) has every one of these "+
			"\"key=value\" pairs, e.g. [\"status=final\"]. Default: no metadata filter."), mcp.WithStringItems()),
		mcp.WithBoolean("fuzzy", mcp.Description(descFuzzy), mcp.DefaultBool(false)),
		mcp.WithNumber("similarity", mcp.Description("With fuzzy: how similar a word must be to a query word, 0..1; 0.75 and above "+
			"allows one edit, below two. Default "+fmt.Sprint(braid.DefaultSimilarity)+"."), mcp.DefaultNumber(braid.DefaultSimilarity), mcp.Min(0), mcp.Max(1)),
		mcp.WithBoolean("paths_only", mcp.Description("Return only {paths, total, took_ms} (and lookup when answered by hash): the paths of the matching documents, "+
			"best first. Default false."), mcp.DefaultBool(false)),
		mcp.WithBoolean("line_numbers", mcp.Description("Number the lines of context (N: the focus line, N- the others), and with "+
			"paths_only return path:start-end. Default false."), mcp.DefaultBool(false)),
		mcp.WithInteger("context", mcp.Description("Add to each result the lines around its best matching line, read from the file "+
			"as it is now: this many lines before and after. 0..20, default 0 (none)."), mcp.DefaultNumber(0), mcp.Min(0), mcp.Max(20)),
		mcp.WithBoolean("explain", mcp.Description("Add to each result how its score was made: BM25 score and rank, cosine and rank, "+
			"weight, fused score, reranker score and rank before and after. Default false."), mcp.DefaultBool(false)),
	)
	defaults := searchArgs{VectorWeight: weight, Similarity: braid.DefaultSimilarity}
	return tool{def, adapt(s, name, defaults, func(ctx context.Context, c call, a *searchArgs) (any, error) {
		opt := braid.SearchOptions{Limit: a.Limit, VectorWeight: a.VectorWeight, Fusion: braid.Fusion(a.Fusion),
			NoRerank: a.Rerank != nil && !*a.Rerank, Rerank: a.Rerank != nil && *a.Rerank,
			PathGlob: a.Path, Tags: a.Tags, Fuzzy: a.Fuzzy, Similarity: a.Similarity, Explain: a.Explain, Hash: a.Hash}
		opt.Metadata, _ = metaArg("metadata", a.Metadata)
		if a.SourceID != "" {
			opt.Sources = []string{a.SourceID}
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
	return limitArg(a.Limit)
}

// limitArg checks a search's limit: 1..maxLimit, or 0 (left out) for the
// index's setting.
func limitArg(n int) error {
	if n == 0 {
		return nil
	}
	return intRange("limit", n, 1, maxLimit)
}

func (s *Server) searchKeywordTool() tool {
	def := mcp.NewTool("search_keyword",
		mcp.WithDescription("Search by keywords alone (BM25, no vectors, no reranking): fast and literal. Use it for exact names, "+
			"identifiers, error messages or rare words, where meaning-based search would blur the match. Returns the same shape as "+
			"search: {results: [{id, chunk_id, path, title, score, snippet, line, highlights, source: \"lexical\"}], total, took_ms}."),
		readOnly("Search notes by keyword"),
		mcp.WithString("query", mcp.Required(), mcp.Description(descQuery)),
		mcp.WithInteger("limit", mcp.Description(descLimit), mcp.Min(1), mcp.Max(maxLimit)),
		mcp.WithString("source_id", mcp.Description(descSourceID)),
		mcp.WithString("path", mcp.Description(descPath)),
		mcp.WithArray("tags", mcp.Description(descTags), mcp.WithStringItems()),
		mcp.WithBoolean("fuzzy", mcp.Description(descFuzzy), mcp.DefaultBool(false)),
	)
	return tool{def, adapt(s, "search_keyword", keywordArgs{}, func(ctx context.Context, c call, a *keywordArgs) (any, error) {
		opt := braid.SearchOptions{Limit: a.Limit, Keyword: true, NoRerank: true, PathGlob: a.Path, Tags: a.Tags, Fuzzy: a.Fuzzy}
		if a.SourceID != "" {
			opt.Sources = []string{a.SourceID}
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
	Lookup   string      `json:"lookup,omitempty"` // "hash": answered by content hash, not ranked
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
		r := pathsReply{Paths: []string{}, Total: res.Total, TookMS: res.TookMS, Warning: res.Warning, Lookup: res.Lookup}
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
		Warning: res.Warning, Reranked: res.Reranked, RerankOf: res.RerankOf, Lookup: res.Lookup}
	for i, h := range res.Results {
		if h.Explain != nil {
			// bleve's BM25 tree runs to kilobytes per hit; the numbers
			// beside it explain the score.
			x := *h.Explain
			x.BM25 = ""
			h.Explain = &x
		}
		r.Results[i].Hit = h
		if context == 0 {
			continue
		}
		x, err := e.Notes().Excerpt(h.ID, h.Line, h.Marked(), context, context)
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
// warns of it, and a pointer to get_stats after that.
func (s *Server) shorten(e *braid.Engine, warning string) string {
	if warning == "" {
		return ""
	}
	caps := e.Capabilities()
	for k, why := range []string{caps.NoVectors, caps.NoRerank} {
		i := strings.Index(warning, why)
		if len(why) < 40 || i < 0 || (k == 1 && why == caps.NoVectors) {
			continue
		}
		if _, told := s.told.LoadOrStore(why, true); told {
			warning = strings.ReplaceAll(warning, why, "see get_stats")
			continue
		}
		end := i + len(why) // the first in full, any repeat shortened
		warning = warning[:end] + strings.ReplaceAll(warning[end:], why, "as above")
	}
	return warning
}
