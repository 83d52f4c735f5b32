package docstore

import (
	"context"
	"fmt"
	"net/netip"
	"time"

	"github.com/braidsearch/braid/download"
	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/ingest"
)

// DownloadRequest is a web page or file to fetch into the document store.
type DownloadRequest struct {
	URL string // http:// or https://
	// Name is the document's name in the store; empty derives one from the
	// URL: web/HOST/PATH, with .md for HTML (stored as markdown).
	Name       string
	SHA256     string // hex; when set, the body must have this digest
	Collection string
	Tags       []string
	Metadata   map[string]string // added to source_url and media_type
	// AllowNet lists address ranges the fetch may reach although they are
	// not public (loopback, private, link-local…); nil allows public
	// addresses only.
	AllowNet []netip.Prefix
	MaxBytes int64         // zero means the per-document limit, 8 MB
	Timeout  time.Duration // zero means 30 seconds
}

// Fetched is a downloaded page, ready for Add.
type Fetched struct {
	Add       AddRequest `json:"-"`
	URL       string     `json:"url"` // after redirects
	MediaType string     `json:"media_type"`
	Title     string     `json:"title,omitempty"`
	SHA256    string     `json:"sha256"` // of the body as served
	Bytes     int64      `json:"bytes_fetched"`
}

// Fetch downloads req.URL within its limits (see package download) and
// returns the request that stores it with Add; it touches no index, so a
// server can fetch before it takes its writer slot. HTML is converted to
// markdown; anything but text is refused.
func Fetch(ctx context.Context, req DownloadRequest) (*Fetched, error) {
	max := req.MaxBytes
	if max <= 0 {
		max = ingest.DefaultMaxFileSize
	}
	p, err := download.Get(ctx, req.URL, &download.Options{MaxBytes: max, Timeout: req.Timeout, Allow: req.AllowNet, SHA256: req.SHA256})
	if err != nil {
		return nil, err
	}
	name := req.Name
	if name == "" {
		if name, err = p.Name(); err != nil { // web/HOST/PATH
			return nil, fmt.Errorf("%w: %v", index.ErrBadOption, err)
		}
		if name, err = CleanName(name); err != nil {
			return nil, err
		}
	}
	meta := map[string]string{"source_url": p.URL, "media_type": p.MediaType}
	for k, v := range req.Metadata {
		meta[k] = v
	}
	return &Fetched{
		Add: AddRequest{Data: p.Text, Name: name, Tags: req.Tags, Metadata: meta, Collection: req.Collection},
		URL: p.URL, MediaType: p.MediaType, Title: p.Title, SHA256: p.SHA256, Bytes: p.Bytes,
	}, nil
}
