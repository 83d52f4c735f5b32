package mcpserver

import (
	"context"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/braidsearch/braid"
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
	if _, err := braid.ParseAge(a.Recent); err != nil {
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
		mcp.WithDescription("List indexed documents, both those stored with add and files of sources, with metadata: {documents: "+
			"[{id, path, title, source, source_id, stored, collection, kind, mime, size, hash, created, modified, indexed, tags, "+
			"metadata}], total}. Use it to browse or audit what is indexed (the newest notes, the largest files, everything with a "+
			"metadata value); use search to find documents by content."),
		readOnly("List documents"),
		mcp.WithString("type", mcp.Description("Only documents of this kind."), mcp.Enum("markdown", "text", "beir")),
		mcp.WithString("extension", mcp.Description("Only documents with this extension, e.g. \"md\" or \".txt\".")),
		mcp.WithString("mime", mcp.Description("Only documents of this media type, e.g. \"text/markdown\", or a family such as \"text/*\".")),
		mcp.WithString("stored", mcp.Description("\"stored\": only documents stored with add; \"source\": only files of sources. Default both."),
			mcp.Enum("stored", "source")),
		mcp.WithString("source_id", mcp.Description("Only this source: its id or name from list_sources.")),
		mcp.WithString("collection", mcp.Description("Only stored documents of this collection.")),
		mcp.WithArray("tags", mcp.Description(descTags), mcp.WithStringItems()),
		mcp.WithArray("metadata", mcp.Description("Only documents whose metadata has every one of these \"key=value\" pairs."), mcp.WithStringItems()),
		mcp.WithString("recent", mcp.Description("Only documents modified within this long, e.g. \"24h\", \"7d\", \"2w\".")),
		mcp.WithString("created_after", mcp.Description("Only documents created after this date (2006-01-02) or RFC 3339 time; "+
			"a file's creation is its modification time.")),
		mcp.WithString("created_before", mcp.Description("Only documents created before this date or time.")),
		mcp.WithString("modified_after", mcp.Description("Only documents modified after this date or time.")),
		mcp.WithString("modified_before", mcp.Description("Only documents modified before this date or time.")),
		mcp.WithString("indexed_after", mcp.Description("Only documents indexed after this date or time.")),
		mcp.WithString("indexed_before", mcp.Description("Only documents indexed before this date or time.")),
		mcp.WithString("sort_by", mcp.Description("Order by name (default), size, created, modified or indexed."),
			mcp.Enum("name", "size", "created", "modified", "indexed"), mcp.DefaultString("name")),
		mcp.WithString("sort_order", mcp.Description("asc (default) or desc (largest or newest first)."), mcp.Enum("asc", "desc"),
			mcp.DefaultString("asc")),
		mcp.WithInteger("limit", mcp.Description("How many documents to return. 1..1000, default 100; total counts them all."),
			mcp.DefaultNumber(100), mcp.Min(1), mcp.Max(1000)),
		mcp.WithBoolean("paths_only", mcp.Description("Return only {paths, total}. Default false."), mcp.DefaultBool(false)),
	)
	defaults := listArgs{SortBy: "name", SortOrder: "asc", Limit: 100}
	return tool{def, adapt(s, "list", defaults, func(ctx context.Context, c call, a *listArgs) (any, error) {
		meta, _ := metaArg("metadata", a.Metadata)
		age, _ := braid.ParseAge(a.Recent)
		t := map[string]time.Time{}
		for name, v := range a.times() {
			t[name], _ = parseTime(v)
		}
		l, err := c.e.Notes().List(braid.ListOptions{Kind: a.Type, Extension: a.Extension, MIME: a.MIME, Stored: a.Stored, Source: a.SourceID,
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
			return map[string]any{"paths": paths, "total": l.Total}, nil
		}
		return l, nil
	})}
}
