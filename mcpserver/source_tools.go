package mcpserver

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/bucket"
)

type noArgs struct{}

// sourceRow is a source with its counts and settings.
type sourceRow struct {
	braid.SourceStats
	Patterns  []string `json:"patterns,omitempty"`
	Excludes  []string `json:"excludes,omitempty"`
	Recursive bool     `json:"recursive"`
}

func (s *Server) listSourcesTool() tool {
	def := mcp.NewTool("list_sources",
		mcp.WithDescription("List the registered sources (folders, files, BEIR corpora) with id, name, absolute path, kind, "+
			"documents, chunks, bytes, when each was last indexed, and its include/exclude globs. Use a source's id or name as "+
			"source_id in search, or with remove_source."),
		readOnly(),
	)
	return tool{def, adapt(s, "list_sources", noArgs{}, func(ctx context.Context, c call, _ *noArgs) (any, error) {
		rows, err := sources(ctx, c.e)
		if err != nil {
			return nil, err
		}
		within, err := s.within(ctx, c.e) // access.go: only the user's own
		if err != nil {
			return nil, err
		}
		if within != nil {
			rows = slices.DeleteFunc(rows, func(r sourceRow) bool { return !slices.Contains(within, r.ID) })
		}
		return map[string]any{"sources": rows}, nil
	})}
}

func sources(ctx context.Context, e *braid.Engine) ([]sourceRow, error) {
	st, err := e.Stats(ctx)
	if err != nil {
		return nil, err
	}
	srcs, err := e.Sources().List(ctx)
	if err != nil {
		return nil, err
	}
	byID := map[string]*braid.Source{}
	for _, s := range srcs {
		byID[s.ID] = s
	}
	rows := []sourceRow{}
	for _, ss := range st.Sources {
		r := sourceRow{SourceStats: ss, Recursive: true}
		if src := byID[ss.ID]; src != nil {
			r.Patterns, r.Excludes, r.Recursive = src.Patterns, src.Excludes, !src.NoRecursive
		}
		rows = append(rows, r)
	}
	return rows, nil
}

type indexArgs struct {
	Path      string `json:"path"`
	Pattern   string `json:"pattern"`
	Recursive bool   `json:"recursive"`
	Watch     bool   `json:"watch"`
}

func (a *indexArgs) check() error {
	return required("path", a.Path)
}

func (s *Server) indexPathTool() tool {
	def := mcp.NewTool("index_path",
		mcp.WithDescription("Add a folder, a file, a BEIR corpus (.jsonl) or an S3 bucket prefix (s3://bucket/prefix) to the index, "+
			"or re-index one already added: new and "+
			"changed files are read, chunked and embedded, unchanged ones skipped by content hash (S3 objects by ETag, without "+
			"downloading them), deleted ones dropped. Searches "+
			"keep working while it runs; a large folder takes a while and reports progress when the request carries a "+
			"progressToken. Returns the source {id, name, path} and counts: seen, added, updated, unchanged, removed, chunks, "+
			"embedded, skipped, errors (files that could not be read), took_ms."),
		writes("Index a path", false),
		mcp.WithString("path", mcp.Required(), mcp.Description("Absolute path of the folder, file or .jsonl corpus (a relative path "+
			"is taken from the server's working directory). It must lie inside a folder this server allows: a registered source, "+
			"a root the client declares, or a folder the user gave with braid serve --allow. Or an s3://bucket/prefix URL inside a "+
			"registered S3 source or an s3:// URL the user gave with --allow; the server's AWS configuration (and the source's "+
			"endpoint, for a registered one) is used.")),
		mcp.WithString("pattern", mcp.Description("Only index files matching this glob, e.g. \"*.md\" or \"docs/**\". Default: "+
			"what the source had, or every text file for a new source.")),
		mcp.WithBoolean("recursive", mcp.Description("Index subfolders too. Default true; false indexes only the top level of "+
			"the folder."), mcp.DefaultBool(true)),
		mcp.WithBoolean("watch", mcp.Description("After indexing, keep the source indexed for the rest of the session: files "+
			"created, changed, renamed or deleted there are re-indexed within about a second, with no further call. Default false."),
			mcp.DefaultBool(false)),
	)
	return tool{def, adapt(s, "index_path", indexArgs{Recursive: true}, func(ctx context.Context, c call, a *indexArgs) (any, error) {
		var path, root string
		var err error
		if bucket.IsURL(a.Path) {
			if a.Watch {
				return nil, argError("watch", "an S3 source cannot be watched (a bucket sends braid no changes); call index_path again to pick them up")
			}
			path, err = s.confineS3(ctx, c.e, "path", a.Path)
		} else {
			path, root, err = s.confine(ctx, c.e, "path", a.Path)
		}
		if err != nil {
			return nil, err
		}
		// A user who may write only some sources re-indexes the one the
		// path lies in (access.go).
		if path, root, err = s.writableRoot(ctx, c.e, a, path, root); err != nil {
			return nil, err
		}
		// The engine resolves the path again as it registers it, and
		// refuses it unless it is still inside the root it was allowed by.
		spec := braid.SourceSpec{Path: path, NoRecursive: !a.Recursive}
		if root != "" {
			spec.Within = []string{root}
		}
		if a.Pattern != "" {
			spec.Patterns = []string{a.Pattern}
		}
		var sum *braid.Summary
		var rows []sourceRow
		err = s.write(ctx, func() (err error) {
			sum, err = c.e.Index(ctx, []braid.SourceSpec{spec}, s.indexProgress(ctx, c.req))
			if err == nil {
				// Read under the writer slot: a Close that waits for
				// the slot (a shutdown that gave up on this call) then
				// finds the engine no longer in use.
				rows, _ = sources(ctx, c.e)
			}
			return err
		})
		if err != nil {
			if sum != nil && ctx.Err() != nil {
				return nil, fmt.Errorf("cancelled after %d files; what was indexed before is kept and the index is consistent: %w", sum.Seen, err)
			}
			return nil, err
		}
		reply := map[string]any{"summary": sum}
		abs := path
		if a.Watch {
			if err := s.watch(c.e, abs); err != nil {
				return nil, fmt.Errorf("indexed, but cannot watch it: %w", err)
			}
			reply["watching"] = true
		}
		for _, r := range rows {
			if r.Path == abs {
				reply["source"] = r
			}
		}
		return reply, nil
	})}
}

// writableRoot is, for a user who may write only some sources, the
// registered source that path (allowed by confine or confineS3, and so
// inside one of theirs) lies in: its path, and its root for a local
// one. Asked for a path inside it, index_path re-indexes that source as
// it is registered, so pattern and recursive are then refused. Others
// get path and root back.
func (s *Server) writableRoot(ctx context.Context, e *braid.Engine, a *indexArgs, path, root string) (string, string, error) {
	srcs, err := s.writable(ctx, e) // access.go
	if err != nil || srcs == nil {
		return path, root, err
	}
	var in *braid.Source
	for _, src := range srcs {
		var inside bool
		if src.Kind == braid.SourceS3 {
			u, uerr := bucket.ParseURL(src.Path)
			v, verr := bucket.ParseURL(path)
			inside = root == "" && uerr == nil && verr == nil && u.Within(v)
		} else {
			inside = root != "" && src.Path == root
		}
		if inside && (in == nil || len(src.Path) > len(in.Path)) {
			in = src
		}
	}
	if in == nil { // confine allowed it by a source since removed
		return "", "", &outsideError{fmt.Sprintf("path %s is outside the folders this server may use; index_path again", a.Path)}
	}
	if path != in.Path && (a.Pattern != "" || !a.Recursive) {
		return "", "", argError("path", "%s lies inside source %s, which index_path re-indexes as it is registered; "+
			"give the source's own path %s to change its pattern or recursive", a.Path, in.Name, in.Path)
	}
	if in.Kind == braid.SourceS3 {
		return in.Path, "", nil
	}
	return in.Path, in.Path, nil
}

// indexProgress turns the engine's progress into MCP progress
// notifications, at most five a second. Progress only grows: files done
// while reading, then files plus chunks embedded.
func (s *Server) indexProgress(ctx context.Context, req mcp.CallToolRequest) func(braid.Progress) {
	if req.Params.Meta == nil || req.Params.Meta.ProgressToken == nil {
		return nil
	}
	var mu sync.Mutex
	var last time.Time
	files, total := 0, 0
	return func(p braid.Progress) {
		mu.Lock()
		defer mu.Unlock()
		var done float64
		var msg string
		if p.Phase == "embed" {
			done, msg = float64(files+p.Done), fmt.Sprintf("embedded %d chunks", p.Done)
		} else {
			files, total = p.Done, p.Total
			done, msg = float64(p.Done), fmt.Sprintf("%s: %d/%d files", p.Source, p.Done, p.Total)
			if p.Total == 0 {
				msg = fmt.Sprintf("%s: %d documents", p.Source, p.Done)
			}
		}
		if time.Since(last) < 200*time.Millisecond && !(p.Phase == "" && p.Done == p.Total) {
			return
		}
		last = time.Now()
		t := 0.0
		if p.Phase == "" {
			t = float64(total)
		}
		s.progress(ctx, req, done, t, msg)
	}
}

type removeArgs struct {
	SourceID string `json:"source_id"`
}

func (a *removeArgs) check() error { return required("source_id", a.SourceID) }

func (s *Server) removeSourceTool() tool {
	def := mcp.NewTool("remove_source",
		mcp.WithDescription("Unregister a source and drop its documents from the index. The files themselves are not touched; "+
			"index_path adds the source back. Returns the number of documents removed."),
		writes("Remove a source", true),
		mcp.WithString("source_id", mcp.Required(), mcp.Description("The source's id or name, from list_sources.")),
	)
	return tool{def, adapt(s, "remove_source", removeArgs{}, func(ctx context.Context, c call, a *removeArgs) (any, error) {
		var n int
		err := s.write(ctx, func() (err error) {
			n, err = c.e.Sources().Remove(ctx, a.SourceID)
			return err
		})
		if err != nil {
			return nil, err
		}
		return map[string]any{"source_id": a.SourceID, "removed_documents": n}, nil
	})}
}

// statsReply is get_stats's answer.
type statsReply struct {
	*braid.Stats
	Models braid.Capabilities `json:"models"`
	Server serverInfo         `json:"server"`
}

type serverInfo struct {
	MaxOutput   int `json:"max_output"`
	Scratchpads int `json:"scratchpads"` // entries held now
}

func (s *Server) getStatsTool() tool {
	def := mcp.NewTool("get_stats",
		mcp.WithDescription("Describe the index: its directory, documents, chunks, bytes indexed and on disk, format version, "+
			"per-source counts; which models searches can use (vectors: an embedding model and how many chunks it embedded; "+
			"rerank: a cross-encoder) or why not; and the server's output limit."),
		readOnly(),
	)
	return tool{def, adapt(s, "get_stats", noArgs{}, func(ctx context.Context, c call, _ *noArgs) (any, error) {
		return s.stats(ctx, c.e)
	})}
}

func (s *Server) stats(ctx context.Context, e *braid.Engine) (*statsReply, error) {
	st, err := e.Stats(ctx)
	if err != nil {
		return nil, err
	}
	return &statsReply{Stats: st, Models: e.Capabilities(), Server: serverInfo{MaxOutput: s.opt.MaxOutput, Scratchpads: len(s.pad.List(owner(ctx)))}}, nil
}
