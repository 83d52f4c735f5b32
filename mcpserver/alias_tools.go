package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	_ "time/tzdata" // time zones for get_current_datetime where the system has none

	"github.com/mark3labs/mcp-go/mcp"
)

// The aliases answer to the tool names of the systems braid replaces, so
// an agent configured for one keeps working. Each is the tool it names,
// built by the same function under another name: same arguments (less
// any the alias fixes), same handler, same answer.

func (s *Server) searchDocumentsTool() tool {
	return s.searchToolAs("search_documents", "Alias of search, under the name other knowledge-base servers use: the same "+
		"arguments and the same answer. Hybrid search of the indexed notes and documents by meaning and keywords (BM25 fused with "+
		"vector similarity, reranked by a cross-encoder when one is installed). "+descFilters+", metadata (k=v). Returns {results: [{id, chunk_id, path, title, score, snippet, line, "+
		"highlights, source}], total, took_ms, warning}; pass a hit's chunk_id to read_around, or its id to read_node_content.",
		nil)
}

// knowledgeWeight is the vector_weight search_knowledge searches with:
// meaning alone.
var knowledgeWeight = 1.0

func (s *Server) searchKnowledgeTool() tool {
	t := s.searchToolAs("search_knowledge", "Alias of search with vector_weight fixed at 1: rank the indexed notes by meaning "+
		"alone (embedding similarity), then rerank when a cross-encoder is installed, so a question finds notes that answer it in other words. Takes search's other "+
		"arguments and returns the same answer. Without an embedding model it runs on keywords and warning says so; use "+
		"search_keyword for exact names and search to mix keywords in. "+descFilters+", metadata (k=v).", &knowledgeWeight)
	delete(t.def.InputSchema.Properties, "vector_weight")
	t.def.InputSchema.PropertyOrder = slices.DeleteFunc(slices.Clone(t.def.InputSchema.PropertyOrder),
		func(p string) bool { return p == "vector_weight" })
	search := t.handler
	t.handler = func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if hasArgument(req, "vector_weight") {
			return s.fail("search_knowledge", argError("vector_weight", "search_knowledge always ranks by meaning alone "+
				"(vector_weight 1); leave it out, or call search to weigh keywords in")), nil
		}
		return search(ctx, req)
	}
	return t
}

// hasArgument says whether a tool call names the argument, even as null.
func hasArgument(req mcp.CallToolRequest, name string) bool {
	raw := bytes.TrimSpace(req.Params.RawArguments)
	if len(raw) == 0 {
		_, ok := req.GetArguments()[name]
		return ok
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return false // the handler reports malformed arguments
	}
	_, ok := obj[name]
	return ok
}

func (s *Server) readTool() tool {
	return s.readNodeContentToolAs("read", "A document's text (markdown, frontmatter and all) as its file is now, or PDF pages.")
}

type datetimeArgs struct {
	Timezone string `json:"timezone"`
}

func (a *datetimeArgs) check() error {
	if a.Timezone == "" {
		return nil
	}
	if _, err := time.LoadLocation(a.Timezone); err != nil {
		return argError("timezone", "%q is not an IANA time zone; want a name such as Europe/Berlin, America/New_York or UTC", a.Timezone)
	}
	return nil
}

type datetimeReply struct {
	Datetime string `json:"datetime"` // RFC 3339, with the zone's offset
	Timezone string `json:"timezone"` // IANA name; Local when the system's is unknown
	Abbrev   string `json:"abbreviation"`
	Unix     int64  `json:"unix"`
}

// now is the clock get_current_datetime reads; tests may stop it.
var now = time.Now

func (s *Server) getCurrentDatetimeTool() tool {
	def := mcp.NewTool("get_current_datetime",
		mcp.WithDescription("Return the current date and time: {datetime (RFC 3339 with the UTC offset), timezone (IANA name), "+
			"abbreviation, unix (seconds)}. Use it before reasoning about dates in notes (how old a decision is, whether a deadline "+
			"passed), or to date a note you write. Answers at once: it does not touch the index."),
		readOnly(),
		mcp.WithString("timezone", mcp.Description("An IANA time zone such as Europe/Berlin or UTC. Default: the index's timezone setting, else the server's local zone.")),
	)
	return tool{def, adaptLocal(s, "get_current_datetime", datetimeArgs{}, func(ctx context.Context, c call, a *datetimeArgs) (any, error) {
		loc := time.Local
		if e := s.openEngine(); a.Timezone == "" && e != nil {
			// The index's timezone setting, as ks's tenant zone.
			if tz := e.Config().Values().TimeZone; tz != nil {
				if l, err := time.LoadLocation(*tz); err == nil {
					loc = l
				}
			}
		}
		if a.Timezone != "" {
			var err error
			if loc, err = time.LoadLocation(a.Timezone); err != nil {
				return nil, fmt.Errorf("%w timezone: %v", ErrBadArgument, err)
			}
		}
		t := now().In(loc)
		abbrev, _ := t.Zone()
		return datetimeReply{Datetime: t.Format(time.RFC3339), Timezone: zoneName(loc), Abbrev: abbrev, Unix: t.Unix()}, nil
	})}
}

// zoneName is loc's IANA name; for the local zone, the one TZ or
// /etc/localtime names, else "Local".
func zoneName(loc *time.Location) string {
	if loc != time.Local {
		return loc.String()
	}
	if tz := strings.TrimPrefix(os.Getenv("TZ"), ":"); tz != "" && !filepath.IsAbs(tz) {
		return tz
	}
	if target, err := os.Readlink("/etc/localtime"); err == nil {
		if _, name, ok := strings.Cut(target, "zoneinfo/"); ok {
			return name
		}
	}
	return loc.String()
}
