package mcpserver

import (
	"context"

	"github.com/braidsearch/braid/docstore"
	"github.com/mark3labs/mcp-go/mcp"
)

func (s *Server) listCollectionsTool() tool {
	def := mcp.NewTool("list_collections",
		mcp.WithDescription("List the collections that stored documents were put in with add: [{name, documents, bytes}]. A "+
			"collection can be listed (list), snapshotted (create_snapshot) and written out (restore) as a whole."),
		readOnly(),
	)
	return tool{def, adapt(s, "list_collections", noArgs{}, func(ctx context.Context, c call, a *noArgs) (any, error) {
		return c.e.Store().Collections()
	})}
}

type snapshotArgs struct {
	Collection string `json:"collection"`
	Label      string `json:"label"`
}

func (s *Server) createSnapshotTool() tool {
	def := mcp.NewTool("create_snapshot",
		mcp.WithDescription("Record the current content of the stored documents (or of one collection) so it can be restored "+
			"later, whatever add or delete_by_name do meanwhile; content is not copied, only referenced. Returns {id, label, "+
			"collection, created, documents, bytes}."),
		writes("Create a snapshot", false),
		mcp.WithString("collection", mcp.Description("Only the documents of this collection. Default: every stored document.")),
		mcp.WithString("label", mcp.Description("A note to recognise the snapshot by in list_snapshots.")),
	)
	return tool{def, adapt(s, "create_snapshot", snapshotArgs{}, func(ctx context.Context, c call, a *snapshotArgs) (any, error) {
		var info *docstore.SnapshotInfo
		err := s.write(ctx, func() (err error) {
			info, err = c.e.Store().CreateSnapshot(a.Collection, a.Label)
			return err
		})
		return info, err
	})}
}

func (s *Server) listSnapshotsTool() tool {
	def := mcp.NewTool("list_snapshots",
		mcp.WithDescription("List the snapshots, oldest first: [{id, label, collection, created, documents, bytes}]. Pass an id "+
			"to restore."),
		readOnly(),
	)
	return tool{def, adapt(s, "list_snapshots", noArgs{}, func(ctx context.Context, c call, a *noArgs) (any, error) {
		return c.e.Store().Snapshots()
	})}
}

type restoreArgs struct {
	Collection      string   `json:"collection"`
	SnapshotID      string   `json:"snapshot_id"`
	OutputDirectory string   `json:"output_directory"`
	Include         []string `json:"include"`
	Exclude         []string `json:"exclude"`
	Overwrite       bool     `json:"overwrite"`
	DryRun          bool     `json:"dry_run"`
}

func (a *restoreArgs) check() error {
	if (a.Collection == "") == (a.SnapshotID == "") {
		return argError("collection", "give collection or snapshot_id, one of them")
	}
	return required("output_directory", a.OutputDirectory)
}

func (s *Server) restoreTool() tool {
	def := mcp.NewTool("restore",
		mcp.WithDescription("Write stored documents to files under output_directory, each at its name: the current documents of "+
			"a collection, or the documents as a snapshot recorded them. Existing files are never replaced unless overwrite is true "+
			"(each one is listed in skipped), and nothing is written outside output_directory. Try dry_run first. Returns {output, "+
			"dry_run, written: [{name, file, bytes, replaced}], skipped: [{name, file, reason}]}."),
		writes("Restore documents to files", false),
		mcp.WithString("collection", mcp.Description("Restore the current documents of this collection (list_collections).")),
		mcp.WithString("snapshot_id", mcp.Description("Restore the documents of this snapshot (list_snapshots).")),
		mcp.WithString("output_directory", mcp.Required(), mcp.Description("The directory to write into; created when missing. It must "+
			"lie inside a folder this server allows (a registered source, a client root, or a braid serve --allow folder).")),
		mcp.WithArray("include", mcp.Description("Only documents whose name matches one of these globs, e.g. [\"notes/**\"]."), mcp.WithStringItems()),
		mcp.WithArray("exclude", mcp.Description("Skip documents whose name matches one of these globs."), mcp.WithStringItems()),
		mcp.WithBoolean("overwrite", mcp.Description("Replace files that already exist. Default false: they are skipped."), mcp.DefaultBool(false)),
		mcp.WithBoolean("dry_run", mcp.Description("Report what would be written and skipped; write nothing. Default false."), mcp.DefaultBool(false)),
	)
	return tool{def, adapt(s, "restore", restoreArgs{}, func(ctx context.Context, c call, a *restoreArgs) (any, error) {
		out, root, err := s.confine(ctx, c.e, "output_directory", a.OutputDirectory)
		if err != nil {
			return nil, err
		}
		return c.e.Store().Restore(docstore.RestoreRequest{Collection: a.Collection, SnapshotID: a.SnapshotID, Output: out, Within: root,
			Include: a.Include, Exclude: a.Exclude, Overwrite: a.Overwrite, DryRun: a.DryRun})
	})}
}
