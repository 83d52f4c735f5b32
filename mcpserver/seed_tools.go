package mcpserver

import (
	"context"

	"github.com/braidsearch/braid/graph"
	"github.com/mark3labs/mcp-go/mcp"
)

// More aliases under the names a seed system's clients call (see
// alias_tools.go and package profile): each is an existing tool's engine call,
// with the seed's argument names.

// statusTool is get_stats under the name YAMS clients call.
func (s *Server) statusTool() tool {
	def := mcp.NewTool("status",
		mcp.WithDescription("Alias of get_stats, under the name YAMS clients call: describe the index (its directory, documents, "+
			"chunks, bytes indexed and on disk, format version, per-source counts), which models searches can use or why not, and "+
			"the server's output limit."),
		readOnly(),
	)
	return tool{def, adapt(s, "status", noArgs{}, func(ctx context.Context, c call, _ *noArgs) (any, error) {
		return s.stats(ctx, c.e)
	})}
}

type graphArgs struct {
	Name     string `json:"name"`
	Hash     string `json:"hash"`
	Relation string `json:"relation"`
	Depth    int    `json:"depth"`
	Reverse  bool   `json:"reverse"`
}

func (a *graphArgs) check() error {
	if (a.Name == "") == (a.Hash == "") {
		return argError("name", "give the document by name or by hash, one of the two")
	}
	return intRange("depth", a.Depth, 1, 5)
}

// graphTool is explore_links under the name and argument names YAMS
// clients use: the document by name or content hash.
func (s *Server) graphTool() tool {
	def := mcp.NewTool("graph",
		mcp.WithDescription("Alias of explore_links, under the name and arguments YAMS clients use: walk the link graph from a "+
			"document, given by name or by content hash, to the notes it links to ([[wikilinks]], markdown links, embeds, frontmatter "+
			"relations) or, with reverse, the notes that link to it. Returns {doc, links: [{node, distance, path, edges}]}, nearest first."),
		readOnly(),
		mcp.WithString("name", mcp.Description(descDocID+" Give name or hash.")),
		mcp.WithString("hash", mcp.Description("The document's content hash (sha256, hex) or its first 8 or more digits. Give hash or name.")),
		mcp.WithString("relation", mcp.Description("Follow only edges of this type: LINKS_TO, CITES, EMBEDS, TAGGED_AS, or a "+
			"frontmatter key such as supersededBy (any case). Default: every type.")),
		mcp.WithInteger("depth", mcp.Description("How many steps to follow. 1..5, default 1 (direct links only)."),
			mcp.DefaultNumber(1), mcp.Min(1), mcp.Max(5)),
		mcp.WithBoolean("reverse", mcp.Description("Follow links backwards: the documents linking to this one. Default false."),
			mcp.DefaultBool(false)),
	)
	return tool{def, adapt(s, "graph", graphArgs{Depth: 1}, func(ctx context.Context, c call, a *graphArgs) (any, error) {
		doc := a.Name
		if a.Hash != "" {
			doc = a.Hash
		}
		return c.e.Graph().Links(doc, graph.LinkOptions{Relation: a.Relation, Depth: a.Depth, Reverse: a.Reverse})
	})}
}

type listContentsArgs struct {
	FolderID string `json:"folder_id"`
}

// listContentsTool is knowledge-stack's list_contents: the immediate
// children of a folder, by the folder's id or path.
func (s *Server) listContentsTool() tool {
	def := mcp.NewTool("list_contents",
		mcp.WithDescription("List the immediate children of a folder: {folder, items: [{path_part_id, name, part_type (FOLDER or "+
			"DOCUMENT), materialized_path, source_id, path, title, docs}], total}, folders first. Without folder_id, the sources. "+
			"Ids are stable across runs; pass a FOLDER's path_part_id back to go down, a DOCUMENT's to read or get_info."),
		readOnly(),
		mcp.WithString("folder_id", mcp.Description("A folder's path_part_id from an earlier listing, a source's id or name, or a "+
			"folder's path (source-name/folder, relative to a source, or absolute). Omit it for the sources.")),
	)
	return tool{def, adapt(s, "list_contents", listContentsArgs{}, func(ctx context.Context, c call, a *listContentsArgs) (any, error) {
		return c.e.Notes().Contents(a.FolderID)
	})}
}

// getOrganizationInfoTool is knowledge-stack's get_organization_info: the
// index's own identity.
func (s *Server) getOrganizationInfoTool() tool {
	def := mcp.NewTool("get_organization_info",
		mcp.WithDescription("The index's identity: {id, tenant_id (the same), name, default_language (BCP 47), timezone (IANA), "+
			"language_from and timezone_from (setting or machine), documents, sources, index}. braid config set name, language or "+
			"timezone changes them."),
		readOnly(),
	)
	return tool{def, adapt(s, "get_organization_info", noArgs{}, func(ctx context.Context, c call, _ *noArgs) (any, error) {
		return c.e.Config().Organization(ctx)
	})}
}

type lineageArgs struct {
	ChunkID string `json:"chunk_id"`
}

func (a *lineageArgs) check() error { return required("chunk_id", a.ChunkID) }

// traceChunkLineageTool is knowledge-stack's trace_chunk_lineage: a
// chunk's history across its document's kept versions.
func (s *Server) traceChunkLineageTool() tool {
	def := mcp.NewTool("trace_chunk_lineage",
		mcp.WithDescription("Where a chunk came from and what became of it across re-indexes (the last 8 versions of its "+
			"document): {chunk_id, document_id, path, text_hash, current, edges: [{parent_chunk_id, child_chunk_id, relation "+
			"(split, merge, edit, re-ingest), created_at}], same_text: [{document_id, path, version, content_hash, indexed_at, "+
			"chunk_id, current, store_version}], versions, summary}. Use it to say whether a cited passage survives in the "+
			"current version or since when it reads as it does."),
		readOnly(),
		mcp.WithString("chunk_id", mcp.Required(), mcp.Description("A chunk id, as search's chunk_id or an earlier trace gives it "+
			"(DOCUMENT#HASH.N); an older version's chunk works while its version is kept.")),
	)
	return tool{def, adapt(s, "trace_chunk_lineage", lineageArgs{}, func(ctx context.Context, c call, a *lineageArgs) (any, error) {
		return c.e.Notes().Lineage(a.ChunkID)
	})}
}
