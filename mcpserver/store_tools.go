package mcpserver

import (
	"context"
	"errors"
	"path/filepath"
	"strings"

	"github.com/braidsearch/braid/docstore"
	"github.com/mark3labs/mcp-go/mcp"
)

const (
	descStoredDoc = "The document: its name in the store (e.g. \"notes/idea.md\"), its id, a path of a source's file, or a content hash " +
		"(8 or more leading hex digits)."
	descMetaPairs = "Metadata as \"key=value\" strings, e.g. [\"status=draft\", \"owner=kim\"]."
)

// metaArg turns "key=value" strings into a map, as a tool argument error.
func metaArg(name string, pairs []string) (map[string]string, error) {
	m, err := docstore.ParseMeta(pairs)
	if err != nil {
		return nil, argError(name, "want \"key=value\" strings, got %q", pairs)
	}
	return m, nil
}

type addArgs struct {
	Path       string   `json:"path"`
	Content    string   `json:"content"`
	Name       string   `json:"name"`
	Tags       []string `json:"tags"`
	Metadata   []string `json:"metadata"`
	Collection string   `json:"collection"`
}

func (a *addArgs) check() error {
	if (a.Path == "") == (a.Content == "") {
		return argError("path", "give path (a file to copy) or content (the text), one of them")
	}
	if a.Content != "" && a.Name == "" {
		return argError("name", "content needs a name, the document's path in the store such as \"notes/idea.md\"")
	}
	_, err := metaArg("metadata", a.Metadata)
	return err
}

func (s *Server) addTool() tool {
	def := mcp.NewTool("add",
		mcp.WithDescription("Store a document in the index itself and index it, so search, grep and read_node_content find it like a "+
			"file of a source: notes, summaries or findings you want to keep and find later. Give content and a name, or the path of "+
			"a text file to copy. Content is stored once however often it is added (bytes_deduped counts what was already there); "+
			"adding a name that exists keeps the old content as a version (list_versions, compare_versions). Markdown names (.md) get "+
			"frontmatter, tags and links parsed. Returns {id, name, hash, version, replaced, bytes_stored, bytes_deduped}."),
		writes("Store a document", false),
		mcp.WithString("content", mcp.Description("The document's text (UTF-8). Give this or path.")),
		mcp.WithString("name", mcp.Description("The document's name in the store: a relative path such as \"notes/idea.md\"; its "+
			"extension picks the parser. Required with content; default with path: the file's base name.")),
		mcp.WithString("path", mcp.Description("A text file to copy into the store, instead of content: a regular file of at most "+
			"8 MB inside a folder this server allows (a registered source, a client root, or a braid serve --allow folder).")),
		mcp.WithArray("tags", mcp.Description("Tags to give the document, without the #."), mcp.WithStringItems()),
		mcp.WithArray("metadata", mcp.Description(descMetaPairs+" Search and list can filter on it."), mcp.WithStringItems()),
		mcp.WithString("collection", mcp.Description("A collection to put the document in, for list, snapshots and restore. "+
			"Default: none (or, for an existing name, the one it has).")),
	)
	return tool{def, adapt(s, "add", addArgs{}, func(ctx context.Context, c call, a *addArgs) (any, error) {
		meta, _ := metaArg("metadata", a.Metadata)
		req := docstore.AddRequest{Content: a.Content, Name: a.Name, Tags: a.Tags, Metadata: meta, Collection: a.Collection}
		if a.Path != "" {
			// Read before taking the writer slot, so a slow file holds up
			// no other write; ReadDocument bounds its size and time.
			path, root, err := s.confine(ctx, c.e, "path", a.Path)
			if err != nil {
				return nil, err
			}
			data, err := docstore.ReadDocument(ctx, root, path)
			if err != nil {
				return nil, err
			}
			req.Content, req.Data = "", data
			if req.Name == "" {
				req.Name = filepath.Base(a.Path)
			}
		}
		var res *docstore.AddResult
		err := s.write(ctx, func() (err error) {
			res, err = c.e.Store().Add(ctx, req)
			return err
		})
		return res, err
	})}
}

type updateArgs struct {
	ID       string   `json:"id"`
	Metadata []string `json:"metadata"`
	Tags     []string `json:"tags"`
}

func (a *updateArgs) check() error {
	if err := required("id", a.ID); err != nil {
		return err
	}
	if len(a.Metadata) == 0 && len(a.Tags) == 0 {
		return argError("metadata", "nothing to update: give metadata or tags")
	}
	_, err := metaArg("metadata", a.Metadata)
	return err
}

func (s *Server) updateTool() tool {
	def := mcp.NewTool("update",
		mcp.WithDescription("Set metadata on any indexed document (stored or a source's file; it survives re-indexing), or change a "+
			"stored document's tags. Metadata is what search and list filter on with their metadata argument. Returns "+
			"{id, path, hash, stored, metadata, tags}."),
		writes("Update a document", false),
		mcp.WithString("id", mcp.Required(), mcp.Description(descStoredDoc)),
		mcp.WithArray("metadata", mcp.Description(descMetaPairs+" A pair with an empty value (\"status=\") removes that key."), mcp.WithStringItems()),
		mcp.WithArray("tags", mcp.Description("Tags to add to a stored document; \"-tag\" removes one. A source file's tags live in "+
			"the file: inject_tags writes those."), mcp.WithStringItems()),
	)
	return tool{def, adapt(s, "update", updateArgs{}, func(ctx context.Context, c call, a *updateArgs) (any, error) {
		meta, _ := metaArg("metadata", a.Metadata)
		var res *docstore.UpdateResult
		err := s.write(ctx, func() (err error) {
			// A user who may write only some sources updates only their
			// documents (access.go), named by the id of the one checked.
			ref, err := s.writableSource(ctx, c.e, a.ID, func() (string, string, error) {
				d, err := documentByName(c.e, a.ID)
				if err != nil {
					return "", "", err
				}
				return d.SourceID, d.ID, nil
			})
			if err != nil {
				return err
			}
			res, err = c.e.Store().Update(ctx, docstore.UpdateRequest{Ref: ref, Metadata: meta, Tags: a.Tags})
			return err
		})
		return res, err
	})}
}

type deleteArgs struct {
	Name    string   `json:"name"`
	Names   []string `json:"names"`
	Pattern string   `json:"pattern"`
	DryRun  bool     `json:"dry_run"`
}

func (a *deleteArgs) check() error {
	if a.Name == "" && len(a.Names) == 0 && a.Pattern == "" {
		return argError("name", "give name, names or pattern")
	}
	return nil
}

func (s *Server) deleteByNameTool() tool {
	def := mcp.NewTool("delete_by_name",
		mcp.WithDescription("Delete documents that were stored with add, with their versions, from the index and its store. It never "+
			"deletes a source's file: naming one is refused (remove_source drops a whole source from the index instead, leaving its "+
			"files). Try dry_run first to see what a pattern matches. Returns {deleted: [{id, name, hash, size}], dry_run, "+
			"blobs_removed, bytes_freed}."),
		writes("Delete stored documents", true),
		mcp.WithString("name", mcp.Description(descStoredDoc)),
		mcp.WithArray("names", mcp.Description("Several stored documents, as name does."), mcp.WithStringItems()),
		mcp.WithString("pattern", mcp.Description("A glob over stored names, e.g. \"drafts/**\".")),
		mcp.WithBoolean("dry_run", mcp.Description("List what would be deleted and delete nothing. Default false."), mcp.DefaultBool(false)),
	)
	return tool{def, adapt(s, "delete_by_name", deleteArgs{}, func(ctx context.Context, c call, a *deleteArgs) (any, error) {
		names := a.Names
		if a.Name != "" {
			names = append([]string{a.Name}, names...)
		}
		var res *docstore.DeleteResult
		err := s.write(ctx, func() (err error) {
			res, err = c.e.Store().Delete(ctx, docstore.DeleteRequest{Names: names, Pattern: a.Pattern, DryRun: a.DryRun})
			return err
		})
		if errors.Is(err, docstore.ErrSourceFile) && len(names) > 0 && s.grantOf(ctx).partial() {
			// The refusal names where a source's file lies: to a user
			// granted some sources, it reads as a name not found (access.go).
			return nil, hidden(strings.Join(names, ", "))
		}
		return res, s.hide(ctx, strings.Join(names, ", "), err)
	})}
}

func (s *Server) listVersionsTool() tool {
	def := mcp.NewTool("list_versions",
		mcp.WithDescription("List a document's versions, oldest first: {id, path, stored, versions: [{version, hash, size, time, "+
			"current, kept}]}. Stored documents get a version each time add changes them; a source's files keep versions only when "+
			"their source was indexed with keep-versions. Pass two version numbers to compare_versions to see what changed."),
		readOnly(),
		mcp.WithString("id", mcp.Required(), mcp.Description(descStoredDoc)),
	)
	return tool{def, adapt(s, "list_versions", nodeArgs{}, func(ctx context.Context, c call, a *nodeArgs) (any, error) {
		return c.e.Store().Versions(a.ID)
	})}
}

type compareArgs struct {
	ID   string `json:"id"`
	From string `json:"from"`
	To   string `json:"to"`
}

func (a *compareArgs) check() error { return required("id", a.ID) }

func (s *Server) compareVersionsTool() tool {
	def := mcp.NewTool("compare_versions",
		mcp.WithDescription("Show what changed between two versions of a document as a unified diff (lines starting - were removed, "+
			"+ added). Default: the previous version against the current one. Returns {id, path, from, to, diff}; diff is empty when "+
			"the versions are equal."),
		readOnly(),
		mcp.WithString("id", mcp.Required(), mcp.Description(descStoredDoc)),
		mcp.WithString("from", mcp.Description("The older version: its number from list_versions (1 = oldest) or its hash. Default: "+
			"the version before to.")),
		mcp.WithString("to", mcp.Description("The newer version: a number or a hash. Default: the current version.")),
	)
	return tool{def, adapt(s, "compare_versions", compareArgs{}, func(ctx context.Context, c call, a *compareArgs) (any, error) {
		return c.e.Store().CompareVersions(ctx, a.ID, a.From, a.To)
	})}
}
