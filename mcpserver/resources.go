package mcpserver

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/braidsearch/braid"
)

// SummaryURI is the resource that summarises the index.
const SummaryURI = "braid://stats/summary"

func (s *Server) addResources() {
	s.mcp.AddResource(mcp.NewResource(SummaryURI, "Index summary",
		mcp.WithResourceDescription("What the braid index holds: documents, chunks and size per source, and which models search uses."),
		mcp.WithMIMEType("text/markdown")),
		func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			if err := s.resourceAllowed(ctx, SummaryURI); err != nil { // access.go: the whole index's totals
				return nil, err
			}
			e, err := s.engine(ctx)
			if err != nil {
				return nil, fmt.Errorf("braid index unavailable: %s", message(err))
			}
			st, err := s.stats(ctx, e)
			if err != nil {
				return nil, fmt.Errorf("braid stats: %s", message(err))
			}
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: SummaryURI, MIMEType: "text/markdown", Text: summary(st)}}, nil
		})
}

// summary renders stats as a short markdown page.
func summary(st *statsReply) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# braid index %s\n\n", st.Dir)
	fmt.Fprintf(&b, "%d documents, %d chunks, %s indexed, %s on disk (format %d).\n\n",
		st.Documents, st.Chunks, braid.FormatBytes(st.Bytes), braid.FormatBytes(st.IndexBytes), st.SchemaVersion)
	m := st.Models
	if m.Vectors {
		fmt.Fprintf(&b, "- vectors: %s, %d chunks embedded\n", m.Model, m.Embedded)
	} else {
		fmt.Fprintf(&b, "- vectors: none (%s); search is keyword only\n", m.NoVectors)
	}
	switch {
	case m.Rerank:
		b.WriteString("- reranking: on\n")
	case m.NoRerank != "":
		fmt.Fprintf(&b, "- reranking: off (%s)\n", m.NoRerank)
	default:
		b.WriteString("- reranking: off\n")
	}
	if m.ReadOnly {
		b.WriteString("- read only: index_path, remove_source and inject_tags are refused\n")
	}
	if len(st.Sources) == 0 {
		b.WriteString("\nNo sources yet: call index_path with a folder to add one.\n")
		return b.String()
	}
	b.WriteString("\n| source | id | kind | documents | chunks | size | indexed | path |\n|---|---|---|---|---|---|---|---|\n")
	for _, src := range st.Sources {
		when := ""
		if !src.IndexedAt.IsZero() {
			when = src.IndexedAt.UTC().Format(time.DateTime)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %d | %d | %s | %s | %s |\n", src.Name, src.ID, src.Kind, src.Documents, src.Chunks,
			braid.FormatBytes(src.Bytes), when, src.Path)
	}
	return b.String()
}
