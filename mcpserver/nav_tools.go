package mcpserver

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/graph"
	"github.com/braidsearch/braid/notes"
)

const descSearchHash = "Content hash prefix to look up."

// checkHash checks a hash argument: 8 to 64 hex digits.
func checkHash(name, h string) error {
	if len(h) < notes.MinHashPrefix || len(h) > 64 || strings.Trim(strings.ToLower(h), "0123456789abcdef") != "" {
		return argError(name, "%q is not 8 to 64 hex digits of a sha256 content hash", h)
	}
	return nil
}

// hashOrQuery checks search's query and hash: one is needed.
func hashOrQuery(hash, query string) error {
	if hash != "" {
		return checkHash("hash", hash)
	}
	if strings.TrimSpace(query) == "" {
		return fmt.Errorf("%w: query is required and must not be empty (or give hash to look a document up by its content hash)", ErrBadArgument)
	}
	return nil
}

// documentByName resolves a name as Document does, or a chunk id to its
// document.
func documentByName(e *braid.Engine, name string) (*braid.Document, error) {
	d, err := e.Notes().Document(name)
	if errors.Is(err, braid.ErrNotFound) {
		if i := strings.LastIndexByte(name, '#'); i > 0 {
			if d2, err2 := e.Notes().Document(name[:i]); err2 == nil {
				return d2, nil
			}
		}
	}
	return d, err
}

type getArgs struct {
	Hash           string `json:"hash"`
	Name           string `json:"name"`
	Graph          bool   `json:"graph"`
	Depth          int    `json:"depth"`
	IncludeContent bool   `json:"include_content"`
}

func (a *getArgs) check() error {
	switch {
	case a.Hash != "" && a.Name != "":
		return argError("hash", "give hash or name, not both")
	case a.Hash != "":
		if err := checkHash("hash", a.Hash); err != nil {
			return err
		}
	case strings.TrimSpace(a.Name) == "":
		return argError("name", "give name (or hash): the document to get")
	}
	return intRange("depth", a.Depth, 1, 5)
}

// getReply is a document with, on request, its content and its
// neighbours in the link graph.
type getReply struct {
	documentReply
	Graph *graph.Related `json:"graph,omitempty"`
}

func (s *Server) getTool() tool {
	def := mcp.NewTool("get",
		mcp.WithDescription("One document by content hash or name: metadata, current text, with graph its links both ways."),
		readOnly(),
		mcp.WithString("hash", mcp.Description("Content hash (8+ hex digits).")),
		mcp.WithString("name", mcp.Description(descDocID)),
		mcp.WithBoolean("graph", mcp.Description("Add links and backlinks.")),
		mcp.WithInteger("depth", mcp.Description("Graph: link steps."), mcp.DefaultNumber(1), mcp.Min(1), mcp.Max(5)),
		mcp.WithBoolean("include_content", mcp.Description("Add the file's text."), mcp.DefaultBool(true)),
	)
	return tool{def, adapt(s, "get", getArgs{Depth: 1, IncludeContent: true}, func(ctx context.Context, c call, a *getArgs) (any, error) {
		var d *braid.Document
		var err error
		name := a.Name
		if a.Hash != "" {
			d, err = c.e.Notes().DocumentByHash(a.Hash)
			name = a.Hash
		} else {
			d, err = documentByName(c.e, a.Name)
		}
		src := ""
		if d != nil {
			src = d.SourceID
		}
		if err := s.readable(ctx, c.e, name, src, err); err != nil { // access.go
			return nil, err
		}
		if a.Graph && s.grantOf(ctx).partial() {
			return nil, argError("graph", "the link graph needs a grant of every source; leave graph out")
		}
		r := getReply{documentReply: documentReply{Document: d}}
		if a.IncludeContent {
			content, err := c.e.Notes().Get(ctx, d.ID)
			if err != nil {
				return nil, err
			}
			r.documentReply = documentReply{Document: content.Doc, File: content.File, Changed: content.Changed, Content: string(content.Data)}
		}
		if a.Graph {
			if r.Graph, err = c.e.Graph().Related(d.ID, a.Depth); err != nil {
				return nil, err
			}
		}
		return r, nil
	})}
}

type findArgs struct {
	Query  string `json:"query"`
	Parent string `json:"parent"`
	Limit  int    `json:"limit"`
}

func (a *findArgs) check() error {
	if err := required("query", a.Query); err != nil {
		return err
	}
	return intRange("limit", a.Limit, 1, maxLimit)
}

func (s *Server) findTool() tool {
	def := mcp.NewTool("find",
		mcp.WithDescription("Find documents by name: a fuzzy match of the query on titles, file names, aliases and paths, not on "+
			"their text. Exact names rank first, then prefixes, substrings at a word start, other substrings, and names holding the "+
			"query's letters in order; ties go to the shorter path. Use it when you know roughly what a note is called or where it is; "+
			"use search for what notes say. Returns {results: [{id, source_id, path, title, score, match, field}], total, took_ms}."),
		readOnly(),
		mcp.WithString("query", mcp.Required(), mcp.Description("Part of a title, file name, alias or path, any case; letters in "+
			"order match too (\"gdn\" finds garden).")),
		mcp.WithString("parent", mcp.Description("Only documents under this folder: a path relative to its source (\"notes/2024\"), "+
			"a source name, source-name/folder, or an absolute path. Default: everywhere.")),
		mcp.WithInteger("limit", mcp.Description("How many documents to return, best first. 1..100, default 20."),
			mcp.DefaultNumber(20), mcp.Min(1), mcp.Max(maxLimit)),
	)
	return tool{def, adapt(s, "find", findArgs{Limit: 20}, func(ctx context.Context, c call, a *findArgs) (any, error) {
		return c.e.Notes().Find(a.Query, notes.FindOptions{Parent: a.Parent, Limit: a.Limit})
	})}
}

type infoArgs struct {
	ID string `json:"id"`
}

func (a *infoArgs) check() error { return required("id", a.ID) }

func (s *Server) getInfoTool() tool {
	def := mcp.NewTool("get_info",
		mcp.WithDescription("Say what an id names and where it sits: {type (source, folder, document or chunk), id, name, path, "+
			"title, lines, source_id, ancestry}, where ancestry runs from the source down through its folders to the document and, "+
			"for a chunk, the headings it is under and the chunk itself. Use it to place a search hit or a path in the tree before "+
			"reading around it."),
		readOnly(),
		mcp.WithString("id", mcp.Required(), mcp.Description("A chunk_id, a document (id, path, content hash or its first 8+ hex "+
			"digits, or title), a source (id or name) or a folder (relative to its source, source-name/folder, or absolute).")),
	)
	return tool{def, adapt(s, "get_info", infoArgs{}, func(ctx context.Context, c call, a *infoArgs) (any, error) {
		return c.e.Notes().Info(ctx, a.ID)
	})}
}

type citeArgs struct {
	ChunkID string `json:"chunk_id"`
}

func (a *citeArgs) check() error { return required("chunk_id", a.ChunkID) }

func (s *Server) viewChunkImageTool() tool {
	def := mcp.NewTool("view_chunk_image",
		mcp.WithDescription("Return the image behind a search hit's chunk as image content: for a chunk of an image "+
			"(PNG, JPEG, GIF, WebP, SVG, found by the text around its embeds in notes) the image itself, for a chunk of a "+
			"PDF its page rendered as a PNG. A chunk of text has no image: read it with read or cite."),
		readOnly(),
		mcp.WithString("chunk_id", mcp.Required(), mcp.Description("The chunk_id of a search result whose path is an image or a PDF page.")),
	)
	return tool{def, adapt(s, "view_chunk_image", citeArgs{}, func(ctx context.Context, c call, a *citeArgs) (any, error) {
		if err := s.checkDoc(ctx, c.e, a.ChunkID); err != nil { // access.go
			return nil, err
		}
		img, err := c.e.Notes().Image(ctx, a.ChunkID)
		if err != nil {
			return nil, s.hide(ctx, a.ChunkID, err)
		}
		what := img.Path
		if img.Page > 0 {
			what = fmt.Sprintf("%s, page %d", img.Path, img.Page)
		}
		return mcp.NewToolResultImage(what, base64.StdEncoding.EncodeToString(img.Data), img.MIME), nil
	})}
}

func (s *Server) citeTool() tool {
	def := mcp.NewTool("cite",
		mcp.WithDescription("Return a citation of a search hit's chunk: {chunk_id, document, title, path, file, heading_path, "+
			"start_line, end_line, snippet, tag}. tag is a ready-to-paste markdown link, [Title](path#L12-L30), the line range being "+
			"the chunk's lines in the file. Use it to back an answer with its source."),
		readOnly(),
		mcp.WithString("chunk_id", mcp.Required(), mcp.Description("The chunk_id of a search result.")),
	)
	return tool{def, adapt(s, "cite", citeArgs{}, func(ctx context.Context, c call, a *citeArgs) (any, error) {
		if err := s.checkDoc(ctx, c.e, a.ChunkID); err != nil { // access.go
			return nil, err
		}
		cite, err := c.e.Notes().Cite(ctx, a.ChunkID)
		return cite, s.hide(ctx, a.ChunkID, err)
	})}
}
