package braid

import (
	"context"
	"strings"
	"time"

	"github.com/braidsearch/braid/lexical"
	"github.com/braidsearch/braid/notes"
)

// LookupHash is the value of Results.Lookup for a search answered by a
// content hash.
const LookupHash = "hash"

// searchHash answers a search by content hash (notes.Reader.ByHash):
// opt.Hash, or a query that looks like a hash and matches a document that
// passes the filters. It returns nil results when the search is an
// ordinary one.
func (e *Engine) searchHash(ctx context.Context, query string, opt SearchOptions, start time.Time) (*Results, error) {
	h, explicit := opt.Hash, opt.Hash != ""
	if !explicit {
		if h = strings.TrimSpace(query); !notes.LooksLikeHash(h) {
			return nil, nil
		}
	}
	if err := e.mirrored(); err != nil { // hashes are looked up in the cluster's documents
		return nil, err
	}
	found, total, err := e.nt.ByHash(ctx, notes.HashQuery{Hash: h, Explicit: explicit, Limit: opt.Limit,
		Filter: func() (lexical.Request, error) { return e.filters(ctx, opt) }})
	if err != nil || total == 0 && !explicit {
		return nil, err // no match: a word that happens to be hex, searched for
	}
	res := &Results{Results: []Hit{}, Total: total, Lookup: LookupHash}
	for _, f := range found {
		h := Hit{ID: f.Doc.ID, Path: f.Doc.Path, Title: f.Doc.Title, Score: 1, Highlights: []Range{},
			Line: Lines{Start: 1, End: f.Doc.Lines}, Source: LookupHash, SourceID: f.Doc.SourceID}
		if c := f.Chunk; c != nil { // the whole document, anchored at its first chunk
			h.ChunkID, h.HeadingPath, h.Snippet = c.ID, c.HeadingPath, f.Snippet
			h.Line = Lines{Start: c.StartLine, End: c.EndLine}
		}
		res.Results = append(res.Results, h)
	}
	res.TookMS = msSince(start)
	return res, nil
}

// filters resolves opt's filters to a request's (notes.Reader.Request).
func (e *Engine) filters(ctx context.Context, opt SearchOptions) (lexical.Request, error) {
	return e.nt.Request(ctx, notes.Filters{Sources: opt.Sources, Within: opt.Within, PathGlob: opt.PathGlob, Tags: opt.Tags, Metadata: opt.Metadata, Session: opt.Session})
}
