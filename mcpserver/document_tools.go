package mcpserver

import (
	"context"
	"errors"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/notes"
)

const descDocID = "Document id, path, title or chunk_id."

// get reads a document by name, taking a chunk id for its document.
func get(ctx context.Context, e *braid.Engine, name string) (*notes.Content, error) {
	c, err := e.Notes().Get(ctx, name)
	if errors.Is(err, braid.ErrNotFound) {
		if i := strings.LastIndexByte(name, '#'); i > 0 {
			if c2, err2 := e.Notes().Get(ctx, name[:i]); err2 == nil {
				return c2, nil
			}
		}
	}
	return c, err
}

type nodeArgs struct {
	ID   string `json:"id"`
	Page string `json:"page"`
}

func (a *nodeArgs) check() error { return required("id", a.ID) }

// descPage describes the page argument of read and get.
const descPage = "PDF page P or P-Q."

// pages is content cut to the pages named ("" for all of it).
func pages(content *notes.Content, page string) (string, error) {
	if page == "" {
		return string(content.Data), nil
	}
	from, to, err := content.Doc.PageRange(page)
	if err != nil {
		return "", argError("page", "%q: %v", page, err)
	}
	text, _, _ := content.Slice(braid.Lines{Start: from, End: to})
	return text, nil
}

func (s *Server) readNodeContentTool() tool {
	return s.readNodeContentToolAs("read_node_content", "Return the raw text (markdown with its frontmatter) of one indexed document, "+
		"read from its file as it is now. Use it to read a whole note after search or grep pointed at it; read_around is cheaper when "+
		"the chunk around a hit is enough, and get_document adds metadata (tags, links, headings).")
}

// readNodeContentToolAs is read_node_content named name and described by
// desc: the tool and its aliases.
func (s *Server) readNodeContentToolAs(name, desc string) tool {
	def := mcp.NewTool(name,
		mcp.WithDescription(desc),
		readOnly(),
		mcp.WithString("id", mcp.Required(), mcp.Description(descDocID)),
		mcp.WithString("page", mcp.Description(descPage)),
	)
	return tool{def, adapt(s, name, nodeArgs{}, func(ctx context.Context, c call, a *nodeArgs) (any, error) {
		if err := s.checkDoc(ctx, c.e, a.ID); err != nil { // access.go
			return nil, err
		}
		content, err := get(ctx, c.e, a.ID)
		if err != nil {
			return nil, s.hide(ctx, a.ID, err)
		}
		return pages(content, a.Page)
	})}
}

type documentArgs struct {
	DocumentID     string `json:"document_id"`
	IncludeContent bool   `json:"include_content"`
}

func (a *documentArgs) check() error { return required("document_id", a.DocumentID) }

// documentReply is a document's metadata with, on request, its content.
type documentReply struct {
	*braid.Document
	File    string `json:"file,omitempty"`    // absolute path read
	Changed bool   `json:"changed,omitempty"` // the file differs from what was indexed
	Content string `json:"content,omitempty"`
}

func (s *Server) getDocumentTool() tool {
	def := mcp.NewTool("get_document",
		mcp.WithDescription("Return one document's metadata: id, source_id, path, title, kind, tags, aliases, frontmatter, headings "+
			"(with line numbers), outgoing links, line count, size, content hash, modification and index times, chunk_ids; and, "+
			"unless include_content is false, its file path, its current content and changed (true when the file was edited "+
			"since it was indexed)."),
		readOnly(),
		mcp.WithString("document_id", mcp.Required(), mcp.Description(descDocID)),
		mcp.WithBoolean("include_content", mcp.Description("Also read the file and return its text. Default true; false returns "+
			"metadata alone, without touching the file."), mcp.DefaultBool(true)),
	)
	return tool{def, adapt(s, "get_document", documentArgs{IncludeContent: true}, func(ctx context.Context, c call, a *documentArgs) (any, error) {
		if err := s.checkDoc(ctx, c.e, a.DocumentID); err != nil { // access.go
			return nil, err
		}
		if !a.IncludeContent {
			d, err := c.e.Notes().Document(a.DocumentID)
			if err != nil {
				if i := strings.LastIndexByte(a.DocumentID, '#'); i > 0 && errors.Is(err, braid.ErrNotFound) {
					if d2, err2 := c.e.Notes().Document(a.DocumentID[:i]); err2 == nil {
						return documentReply{Document: d2}, nil
					}
				}
				return nil, s.hide(ctx, a.DocumentID, err)
			}
			return documentReply{Document: d}, nil
		}
		content, err := get(ctx, c.e, a.DocumentID)
		if err != nil {
			return nil, s.hide(ctx, a.DocumentID, err)
		}
		return documentReply{Document: content.Doc, File: content.File, Changed: content.Changed, Content: string(content.Data)}, nil
	})}
}

type aroundArgs struct {
	ChunkID string `json:"chunk_id"`
	Radius  int    `json:"radius"`
}

func (a *aroundArgs) check() error {
	if err := required("chunk_id", a.ChunkID); err != nil {
		return err
	}
	return intRange("radius", a.Radius, 0, 10)
}

type aroundChunk struct {
	ChunkID     string      `json:"chunk_id"`
	Offset      int         `json:"offset"` // position relative to the chunk asked for
	Label       string      `json:"label"`  // before, hit or after
	HeadingPath []string    `json:"heading_path,omitempty"`
	Line        braid.Lines `json:"line"`
	Text        string      `json:"text"`
}

type aroundReply struct {
	ID     string        `json:"id"`
	Path   string        `json:"path"`
	Title  string        `json:"title"`
	Chunks []aroundChunk `json:"chunks"`
	// Before and After count the document's chunks beyond those shown.
	Before int `json:"more_before"`
	After  int `json:"more_after"`
}

func (s *Server) readAroundTool() tool {
	def := mcp.NewTool("read_around",
		mcp.WithDescription("A search hit's chunk and its neighbours, each {chunk_id, offset, line, text}: the passage, not the whole file."),
		readOnly(),
		mcp.WithString("chunk_id", mcp.Required(), mcp.Description("A search hit's chunk_id.")),
		mcp.WithInteger("radius", mcp.Description("Chunks on each side."), mcp.DefaultNumber(2), mcp.Min(0), mcp.Max(10)),
	)
	return tool{def, adapt(s, "read_around", aroundArgs{Radius: 2}, func(ctx context.Context, c call, a *aroundArgs) (any, error) {
		if err := s.checkDoc(ctx, c.e, a.ChunkID); err != nil { // access.go
			return nil, err
		}
		n, err := c.e.Notes().Around(a.ChunkID, a.Radius)
		if err != nil {
			return nil, s.hide(ctx, a.ChunkID, err)
		}
		r := aroundReply{ID: n.Doc.ID, Path: n.Doc.Path, Title: n.Doc.Title, Chunks: make([]aroundChunk, len(n.Chunks))}
		for i, ch := range n.Chunks {
			off := i - n.Center
			label := "hit"
			switch {
			case off < 0:
				label = "before"
			case off > 0:
				label = "after"
			}
			r.Chunks[i] = aroundChunk{ChunkID: ch.ID, Offset: off, Label: label, HeadingPath: ch.HeadingPath,
				Line: braid.Lines{Start: ch.StartLine, End: ch.EndLine}, Text: ch.Text}
		}
		r.Before, r.After = n.First, len(n.Doc.ChunkIDs)-n.First-len(n.Chunks)
		return r, nil
	})}
}
