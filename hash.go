package braid

import (
	"fmt"
	"strings"
	"time"

	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/notes"
)

// LookupHash is the value of Results.Lookup for a search answered by a
// content hash.
const LookupHash = "hash"

// searchHash answers a search by content hash: opt.Hash, or a query that
// looks like a hash and matches a document that passes the filters. It
// returns nil results when the search is an ordinary one.
func (e *Engine) searchHash(query string, opt SearchOptions, start time.Time) (*Results, error) {
	h, explicit := opt.Hash, opt.Hash != ""
	if !explicit {
		h = strings.TrimSpace(query)
		if !notes.LooksLikeHash(h) {
			return nil, nil
		}
	}
	if opt.Limit < 0 {
		return nil, fmt.Errorf("%w: limit %d, want 1 or more", ErrBadOption, opt.Limit)
	}
	limit := opt.Limit
	if limit == 0 {
		limit = DefaultLimit
	}
	ds, err := e.nt.HashMatches(h)
	if err != nil {
		return nil, err
	}
	if explicit && len(ds) == 0 {
		return nil, fmt.Errorf("%w: no document's content hash starts with %q; search without a hash to find it", ErrNotFound, strings.ToLower(h))
	}
	if explicit && len(ds) > 1 {
		return nil, notes.AmbiguousHash(h, ds)
	}
	req := index.Request{PathGlob: opt.PathGlob, Tags: opt.Tags}
	for _, ref := range opt.Sources {
		s, err := e.nt.Source(ref)
		if err != nil {
			return nil, err
		}
		req.SourceIDs = append(req.SourceIDs, s.ID)
	}
	if req.DocIDs, err = e.metaDocs(opt.Metadata); err != nil {
		return nil, err
	}
	var glob *index.Matcher
	if opt.PathGlob != "" {
		if glob, err = index.NewMatcher([]string{opt.PathGlob}); err != nil {
			return nil, err
		}
	}
	keep := e.keepDoc(req, glob)
	res := &Results{Results: []Hit{}, Lookup: LookupHash}
	for _, d := range ds {
		if ok, err := keep(d.ID); err != nil {
			return nil, err
		} else if !ok {
			continue
		}
		h, err := e.documentHit(d)
		if err != nil {
			return nil, err
		}
		res.Total++
		if len(res.Results) < limit {
			res.Results = append(res.Results, h)
		}
	}
	if res.Total == 0 && !explicit {
		return nil, nil // a word that happens to be hex: search for it
	}
	res.TookMS = msSince(start)
	return res, nil
}

// documentHit is a whole document as a search hit of score 1, anchored at
// its first chunk.
func (e *Engine) documentHit(d *Document) (Hit, error) {
	h := Hit{ID: d.ID, Path: d.Path, Title: d.Title, Score: 1, Highlights: []Range{}, Line: Lines{Start: 1, End: d.Lines},
		Source: LookupHash, SourceID: d.SourceID}
	if len(d.ChunkIDs) == 0 {
		return h, nil
	}
	c, err := e.chunkByID(d.ChunkIDs[0])
	if err != nil {
		return h, err
	}
	if c != nil {
		h.ChunkID, h.HeadingPath = c.ID, c.HeadingPath
		h.Line = Lines{Start: c.StartLine, End: c.EndLine}
		h.Snippet = notes.TrimWords(c.Text, 240)
	}
	return h, nil
}
