package cli

import (
	"fmt"
	"time"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/docstore"
	"github.com/braidsearch/braid/download"
)

// DownloadCmd fetches a URL into the document store.
type DownloadCmd struct {
	URL        string            `arg:"" help:"The http:// or https:// URL of a text, markdown or HTML page (HTML is stored as markdown)."`
	Name       string            `help:"The document's name in the store (default: web/HOST/PATH, .md for HTML). Downloading a name again stores a new version when the content changed." placeholder:"NAME"`
	SHA256     string            `name:"sha256" help:"Refuse the download unless its bytes have this SHA-256 (hex)." placeholder:"HEX"`
	Collection string            `help:"Put the document in this collection." placeholder:"NAME"`
	Tag        []string          `help:"Tag the document (repeatable)." placeholder:"TAG"`
	Meta       map[string]string `help:"Set metadata KEY=VALUE (repeatable), besides source_url and media_type." placeholder:"KEY=VALUE"`
	AllowNet   []string          `help:"An address range the download may reach although it is not public (loopback, private, link-local such as cloud metadata), e.g. 127.0.0.1/32 for a local server (repeatable). Redirects are checked too." placeholder:"CIDR"`
	MaxSize    ByteSize          `help:"The most bytes to fetch (default 8MB, the per-document limit)." placeholder:"SIZE"`
	Timeout    time.Duration     `help:"Give up after this long, redirects and body included." default:"30s"`
}

// Run downloads and stores.
func (c *DownloadCmd) Run(g *Globals) error {
	nets, err := download.ParseAllow(c.AllowNet)
	if err != nil {
		return err
	}
	if c.MaxSize < 0 || int64(c.MaxSize) > braid.DefaultMaxFileSize {
		return fmt.Errorf("--max-size %s: want at most %s, the per-document limit", braid.FormatBytes(int64(c.MaxSize)), braid.FormatBytes(braid.DefaultMaxFileSize))
	}
	f, err := docstore.Fetch(g.ctx, docstore.DownloadRequest{URL: c.URL, Name: c.Name, SHA256: c.SHA256, Collection: c.Collection, Tags: c.Tag,
		Metadata: c.Meta, AllowNet: nets, MaxBytes: int64(c.MaxSize), Timeout: c.Timeout})
	if err != nil {
		return err
	}
	e, done, err := g.openWith(false, "braid download")
	if err != nil {
		return err
	}
	defer done()
	res, err := e.Store().Add(g.ctx, f.Add)
	if err != nil {
		return err
	}
	if g.JSON {
		return g.printJSON(struct {
			*docstore.AddResult
			*docstore.Fetched
		}{res, f})
	}
	fmt.Fprintf(g.stdout, "downloaded %s (%s, %s, sha256 %s) as %s (id %s, version %d)\n", f.URL, f.MediaType,
		braid.FormatBytes(f.Bytes), f.SHA256[:12], res.Name, res.ID, res.Version)
	return nil
}
