package mcpserver

import (
	"context"
	"time"

	"github.com/braidsearch/braid/notes"
	"github.com/mark3labs/mcp-go/mcp"
)

type listArgs struct {
	Type           string   `json:"type"`
	Extension      string   `json:"extension"`
	MIME           string   `json:"mime"`
	Stored         string   `json:"stored"`
	SourceID       string   `json:"source_id"`
	Collection     string   `json:"collection"`
	Tags           []string `json:"tags"`
	Metadata       []string `json:"metadata"`
	Recent         string   `json:"recent"`
	CreatedAfter   string   `json:"created_after"`
	CreatedBefore  string   `json:"created_before"`
	ModifiedAfter  string   `json:"modified_after"`
	ModifiedBefore string   `json:"modified_before"`
	IndexedAfter   string   `json:"indexed_after"`
	IndexedBefore  string   `json:"indexed_before"`
	SortBy         string   `json:"sort_by"`
	SortOrder      string   `json:"sort_order"`
	Limit          int      `json:"limit"`
	PathsOnly      bool     `json:"paths_only"`
	Session        string   `json:"session"`
	UseSession     *bool    `json:"use_session"`
}

func (a *listArgs) check() error {
	if err := oneOf("type", a.Type, "", "markdown", "text", "beir"); err != nil {
		return err
	}
	if err := oneOf("stored", a.Stored, "", "stored", "source"); err != nil {
		return err
	}
	if err := oneOf("sort_by", a.SortBy, "name", "size", "created", "modified", "indexed"); err != nil {
		return err
	}
	if err := oneOf("sort_order", a.SortOrder, "asc", "desc"); err != nil {
		return err
	}
	if _, err := metaArg("metadata", a.Metadata); err != nil {
		return err
	}
	if _, err := notes.ParseAge(a.Recent); err != nil {
		return argError("recent", "want a duration such as 24h, 7d or 2w, got %q", a.Recent)
	}
	for name, v := range a.times() {
		if _, err := parseTime(v); err != nil {
			return argError(name, "want a date (2006-01-02) or an RFC 3339 time, got %q", v)
		}
	}
	return intRange("limit", a.Limit, 1, 1000)
}

func (a *listArgs) times() map[string]string {
	return map[string]string{"created_after": a.CreatedAfter, "created_before": a.CreatedBefore, "modified_after": a.ModifiedAfter,
		"modified_before": a.ModifiedBefore, "indexed_after": a.IndexedAfter, "indexed_before": a.IndexedBefore}
}

// parseTime reads a date or an RFC 3339 time; empty is the zero time.
func parseTime(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	return time.Parse(time.RFC3339, s)
}

func (s *Server) listTool() tool {
	def := mcp.NewTool("list",
		mcp.WithDescription("Indexed documents with metadata: {documents: [{id, path, title, modified, ...}], "+
			"total}. Filters: source_id, tags, metadata (k=v), collection, extension (md), mime (text/*), "+
			"recent (7d), created_after, created_before, modified_after, modified_before, indexed_after, indexed_before (2006-01-02)."),
		readOnly(),
		mcp.WithString("type", mcp.Description("Only this kind."), mcp.Enum("markdown", "text", "beir")),
		mcp.WithString("extension"),
		mcp.WithString("mime"),
		mcp.WithString("stored", mcp.Description("Stored ones or source files."), mcp.Enum("stored", "source")),
		mcp.WithString("source_id"),
		mcp.WithString("collection"),
		mcp.WithArray("tags", mcp.WithStringItems()),
		mcp.WithArray("metadata", mcp.WithStringItems()),
		mcp.WithString("recent"),
		mcp.WithString("created_after"),
		mcp.WithString("created_before"),
		mcp.WithString("modified_after"),
		mcp.WithString("modified_before"),
		mcp.WithString("indexed_after"),
		mcp.WithString("indexed_before"),
		mcp.WithString("sort_by", mcp.Description("Order by this field."), mcp.Enum("name", "size", "created", "modified", "indexed"),
			mcp.DefaultString("name")),
		mcp.WithString("sort_order", mcp.Description("desc: biggest, newest first."), mcp.Enum("asc", "desc"), mcp.DefaultString("asc")),
		mcp.WithInteger("limit", mcp.Description("Documents to return."), mcp.DefaultNumber(100), mcp.Min(1), mcp.Max(1000)),
		mcp.WithBoolean("paths_only", mcp.Description("Only {paths, total}.")),
		mcp.WithString("session", mcp.Description(descSession)),
		mcp.WithBoolean("use_session", mcp.Description(descUseSession)),
	)
	defaults := listArgs{SortBy: "name", SortOrder: "asc", Limit: 100}
	return tool{def, adapt(s, "list", defaults, func(ctx context.Context, c call, a *listArgs) (any, error) {
		meta, _ := metaArg("metadata", a.Metadata)
		age, _ := notes.ParseAge(a.Recent)
		t := map[string]time.Time{}
		for name, v := range a.times() {
			t[name], _ = parseTime(v)
		}
		session, err := s.scope(ctx, c.e, a.Session, a.UseSession)
		if err != nil {
			return nil, err
		}
		within, err := s.within(ctx, c.e) // access.go
		if err != nil {
			return nil, err
		}
		if within != nil && a.SourceID != "" {
			if a.SourceID, err = sourceRef(c.e, ctx, a.SourceID, within); err != nil {
				return nil, err
			}
		}
		l, err := c.e.Notes().List(ctx, notes.ListOptions{Session: session, Kind: a.Type, Extension: a.Extension, MIME: a.MIME, Stored: a.Stored, Source: a.SourceID, Within: within,
			Collection: a.Collection, Tags: a.Tags, Metadata: meta, Recent: age,
			CreatedAfter: t["created_after"], CreatedBefore: t["created_before"], ModifiedAfter: t["modified_after"],
			ModifiedBefore: t["modified_before"], IndexedAfter: t["indexed_after"], IndexedBefore: t["indexed_before"],
			SortBy: a.SortBy, Descending: a.SortOrder == "desc", Limit: a.Limit})
		if err != nil {
			return nil, err
		}
		if a.PathsOnly {
			paths := make([]string, len(l.Documents))
			for i, d := range l.Documents {
				paths[i] = d.Path
			}
			if session != "" {
				return map[string]any{"paths": paths, "total": l.Total, "session": session}, nil
			}
			return map[string]any{"paths": paths, "total": l.Total}, nil
		}
		return l, nil
	})}
}
