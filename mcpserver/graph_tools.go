package mcpserver

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/graph"
	"github.com/braidsearch/braid/notes"
)

type linksArgs struct {
	ID       string `json:"id"`
	Relation string `json:"relation"`
	Depth    int    `json:"depth"`
	Reverse  bool   `json:"reverse"`
}

func (a *linksArgs) check() error {
	if err := required("id", a.ID); err != nil {
		return err
	}
	return intRange("depth", a.Depth, 1, 5)
}

func (s *Server) exploreLinksTool() tool {
	def := mcp.NewTool("explore_links",
		mcp.WithDescription("Notes linked from a note (wikilinks, embeds, frontmatter relations) or, reverse, to it; "+
			"reverse from id \"#tag\": the notes tagged. Returns {links: [{node, distance, path, edges}]}."),
		readOnly(),
		mcp.WithString("id", mcp.Required(), mcp.Description(descDocID)),
		mcp.WithString("relation", mcp.Description("LINKS_TO, CITES, EMBEDS, TAGGED_AS or a frontmatter key.")),
		mcp.WithInteger("depth", mcp.Description("Link steps to follow."), mcp.DefaultNumber(1), mcp.Min(1), mcp.Max(5)),
		mcp.WithBoolean("reverse", mcp.Description("Follow backlinks.")),
	)
	return tool{def, adapt(s, "explore_links", linksArgs{Depth: 1}, func(ctx context.Context, c call, a *linksArgs) (any, error) {
		return c.e.Graph().Links(a.ID, graph.LinkOptions{Relation: a.Relation, Depth: a.Depth, Reverse: a.Reverse})
	})}
}

type gapsArgs struct {
	Limit     int      `json:"limit"`
	Threshold *float64 `json:"threshold"`
}

func (a *gapsArgs) check() error {
	if err := intRange("limit", a.Limit, 1, maxLimit); err != nil {
		return err
	}
	if a.Threshold != nil {
		return floatRange("threshold", *a.Threshold, 0, 1, "")
	}
	return nil
}

func (s *Server) findGapsTool() tool {
	def := mcp.NewTool("find_gaps",
		mcp.WithDescription("Find pairs of notes that are about the same thing but do not link to each other, most similar first, "+
			"each with its similarity, the words they share and a suggested link. Similarity is the cosine of the notes' embeddings, "+
			"or without an embedding model the tf-idf cosine of their words (method and warning say which). Use it to suggest "+
			"missing links or notes to merge."),
		readOnly(),
		mcp.WithInteger("limit", mcp.Description("How many pairs to return. 1..100, default 10."), mcp.DefaultNumber(10), mcp.Min(1), mcp.Max(maxLimit)),
		mcp.WithNumber("threshold", mcp.Description("The least similarity of a pair, 0..1. Default 0.8 with embeddings, 0.3 for "+
			"word overlap (which scores lower for the same pair)."), mcp.Min(0), mcp.Max(1)),
	)
	return tool{def, adapt(s, "find_gaps", gapsArgs{Limit: 10}, func(ctx context.Context, c call, a *gapsArgs) (any, error) {
		opt := graph.GapOptions{Limit: a.Limit}
		if a.Threshold != nil {
			opt.Threshold = *a.Threshold
		}
		return c.e.Graph().Gaps(ctx, opt)
	})}
}

func (s *Server) listDirectoryStructureTool() tool {
	def := mcp.NewTool("list_directory_structure",
		mcp.WithDescription("Show the folder tree of every source, one folder a line, indented, with how many documents it holds "+
			"(in it and below it). Use it to see how a knowledge base is organised before narrowing a search with path, or to "+
			"find where notes on a subject live."),
		readOnly(),
	)
	return tool{def, adapt(s, "list_directory_structure", noArgs{}, func(ctx context.Context, c call, _ *noArgs) (any, error) {
		roots, err := c.e.Notes().Tree()
		if err != nil {
			return nil, err
		}
		if len(roots) == 0 {
			return "no sources yet: call index_path with a folder to add one\n", nil
		}
		var b strings.Builder
		for _, r := range roots {
			fmt.Fprintf(&b, "%s (source %s, %s): %d documents\n", r.Name, r.SourceID, r.Dir, r.Docs)
			writeFolders(&b, r.Folders, 1)
		}
		return b.String(), nil
	})}
}

func writeFolders(b *strings.Builder, fs []*notes.Folder, depth int) {
	for _, f := range fs {
		fmt.Fprintf(b, "%s%s/ %d\n", strings.Repeat("  ", depth), f.Name, f.Docs)
		writeFolders(b, f.Folders, depth+1)
	}
}

type tagArgs struct {
	FilePath string   `json:"file_path"`
	Tags     []string `json:"tags"`
	Style    string   `json:"style"`
}

func (a *tagArgs) check() error {
	if err := required("file_path", a.FilePath); err != nil {
		return err
	}
	if len(a.Tags) == 0 {
		return fmt.Errorf("%w: tags is required: one or more tags to add, without the #", ErrBadArgument)
	}
	for _, t := range a.Tags {
		if strings.TrimSpace(strings.TrimPrefix(t, "#")) == "" {
			return argError("tags", "%q is empty; give tag names such as \"project/alpha\"", t)
		}
	}
	return oneOf("style", a.Style, string(braid.TagFrontmatter), string(braid.TagComment))
}

func (s *Server) injectTagsTool() tool {
	def := mcp.NewTool("inject_tags",
		mcp.WithDescription("Add tags to an indexed markdown note, writing them into the file (its frontmatter tags list by "+
			"default), then re-index it. Tags the note already has are not added again, and the rest of the file is left byte for "+
			"byte. Returns {file, id, path, added, tags}. Only files of registered sources can be changed."),
		writes("Tag a note", false),
		mcp.WithString("file_path", mcp.Required(), mcp.Description("The note: its absolute path, or as read_node_content accepts it (id, path relative to its source, title).")),
		mcp.WithArray("tags", mcp.Required(), mcp.Description("Tags to add, without the # (e.g. [\"project/alpha\", \"todo\"])."), mcp.WithStringItems()),
		mcp.WithString("style", mcp.Description("Where to write them: frontmatter (the tags: list, created if missing) or comment "+
			"(a <!-- tags: … --> comment, added at the end of the file when there is none). Default frontmatter."), mcp.Enum(string(braid.TagFrontmatter), string(braid.TagComment)),
			mcp.DefaultString(string(braid.TagFrontmatter))),
	)
	return tool{def, adapt(s, "inject_tags", tagArgs{Style: string(braid.TagFrontmatter)}, func(ctx context.Context, c call, a *tagArgs) (any, error) {
		if filepath.IsAbs(a.FilePath) {
			if _, _, err := s.confine(ctx, c.e, "file_path", a.FilePath); err != nil {
				return nil, err
			}
		}
		var res *braid.TagResult
		err := s.write(ctx, func() (err error) {
			// A user who may write only some sources tags only their
			// notes (access.go): the file the engine would edit is found
			// first, under the writer slot, and must be of one of them.
			name, err := s.writableSource(ctx, c.e, a.FilePath, func() (string, string, error) {
				src, _, real, err := c.e.Notes().Editable(a.FilePath)
				if err != nil {
					return "", "", err
				}
				return src.ID, real, nil
			})
			if err != nil {
				return err
			}
			res, err = c.e.Tag(ctx, name, a.Tags, braid.TagStyle(a.Style))
			return err
		})
		return res, err
	})}
}
