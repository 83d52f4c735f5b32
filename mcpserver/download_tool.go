package mcpserver

import (
	"context"

	"github.com/braidsearch/braid/docstore"
	"github.com/mark3labs/mcp-go/mcp"
)

type downloadArgs struct {
	URL        string   `json:"url"`
	Name       string   `json:"name"`
	SHA256     string   `json:"sha256"`
	Collection string   `json:"collection"`
	Tags       []string `json:"tags"`
	Metadata   []string `json:"metadata"`
}

func (a *downloadArgs) check() error {
	if err := required("url", a.URL); err != nil {
		return err
	}
	_, err := metaArg("metadata", a.Metadata)
	return err
}

func (s *Server) downloadTool() tool {
	def := mcp.NewTool("download",
		mcp.WithDescription("Fetch a web page or file over HTTP(S) into the index's document store and index it, so search finds it "+
			"like a note: text and markdown as served, HTML converted to markdown; anything else is refused. At most 8 MB and 30 "+
			"seconds, at most 5 redirects; only public addresses (loopback, private and link-local ones, such as cloud metadata "+
			"services, are refused unless the user started braid serve with --allow-net). Returns {id, name, hash, version, "+
			"replaced, bytes_stored, bytes_deduped, url, media_type, title, sha256, bytes_fetched}; the document's metadata "+
			"keeps source_url and media_type."),
		writes("Download into the store", false),
		mcp.WithString("url", mcp.Required(), mcp.Description("The http:// or https:// URL to fetch.")),
		mcp.WithString("name", mcp.Description("The document's name in the store, a relative path such as \"web/page.md\". "+
			"Default: web/HOST/PATH, with .md for HTML. A name that exists gets a new version when the content changed.")),
		mcp.WithString("sha256", mcp.Description("The SHA-256 (64 hex digits) the fetched bytes must have; nothing is stored otherwise.")),
		mcp.WithString("collection", mcp.Description("A collection to put the document in, for list, snapshots and restore. Default: none.")),
		mcp.WithArray("tags", mcp.Description("Tags to give the document, without the #."), mcp.WithStringItems()),
		mcp.WithArray("metadata", mcp.Description(descMetaPairs+" Added to source_url and media_type."), mcp.WithStringItems()),
	)
	return tool{def, adapt(s, "download", downloadArgs{}, func(ctx context.Context, c call, a *downloadArgs) (any, error) {
		meta, _ := metaArg("metadata", a.Metadata)
		// Fetch before taking the writer slot: the network may be slow.
		f, err := docstore.Fetch(ctx, docstore.DownloadRequest{URL: a.URL, Name: a.Name, SHA256: a.SHA256, Collection: a.Collection,
			Tags: a.Tags, Metadata: meta, AllowNet: s.opt.AllowNet})
		if err != nil {
			return nil, err
		}
		var res *docstore.AddResult
		err = s.write(ctx, func() (err error) {
			res, err = c.e.Store().Add(ctx, f.Add)
			return err
		})
		if err != nil {
			return nil, err
		}
		return struct {
			*docstore.AddResult
			*docstore.Fetched
		}{res, f}, nil
	})}
}
