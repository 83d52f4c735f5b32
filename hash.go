package braid

import (
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/braidsearch/braid/index"
)

// MinHashPrefix is the fewest hex digits of a content hash that name a
// document.
const MinHashPrefix = 8

// DocumentByHash finds the document whose content hash (sha256, hex; see
// Document.Hash) is hash or starts with it: at least MinHashPrefix hex
// digits, any case. No match is ErrNotFound; several are ErrAmbiguous,
// listing up to 10 of them (documents with the same content share their
// whole hash). It reads the hashes kept beside the paths, without decoding
// a document: about 10 ms for 100k documents.
func (e *Engine) DocumentByHash(hash string) (*Document, error) {
	if err := e.mirrored(); err != nil {
		return nil, err
	}
	ds, err := e.docsByHash(hash)
	if err != nil {
		return nil, err
	}
	switch len(ds) {
	case 0:
		return nil, fmt.Errorf("%w: no document's content hash starts with %q; braid search can find it", ErrNotFound, strings.ToLower(hash))
	case 1:
		return ds[0], nil
	}
	return nil, ambiguousHash(hash, ds)
}

// docsByHash returns the documents whose hash starts with hash, by path.
func (e *Engine) docsByHash(hash string) ([]*Document, error) {
	h := strings.ToLower(strings.TrimSpace(hash))
	if len(h) > 64 || !isHex(h) {
		return nil, fmt.Errorf("%w: hash %q is not a sha256 in hex, want %d to 64 digits 0-9a-f", ErrBadOption, hash, MinHashPrefix)
	}
	if len(h) < MinHashPrefix {
		return nil, fmt.Errorf("%w: hash %q is %d hex digits, want at least %d", ErrBadOption, hash, len(h), MinHashPrefix)
	}
	entries, err := e.st.HashPrefix(h)
	if err != nil {
		return nil, err
	}
	var ds []*Document
	for _, en := range entries {
		d, err := e.st.Doc(en.DocID)
		if err != nil {
			return nil, err
		}
		if d != nil {
			ds = append(ds, d)
		}
	}
	sort.Slice(ds, func(i, j int) bool {
		return ds[i].Path < ds[j].Path || ds[i].Path == ds[j].Path && ds[i].ID < ds[j].ID
	})
	return ds, nil
}

func ambiguousHash(hash string, ds []*Document) error {
	var names []string
	for i, d := range ds {
		if i == 10 {
			names = append(names, fmt.Sprintf("and %d more", len(ds)-10))
			break
		}
		names = append(names, fmt.Sprintf("%s %s (id %s)", d.Hash[:min(len(d.Hash), max(16, len(hash)+4))], d.Path, d.ID))
	}
	fix := "give more digits of the hash, or name one by id"
	if ds[0].Hash == ds[len(ds)-1].Hash {
		fix = "their content is the same; name one by id or path"
	}
	return fmt.Errorf("%w: hash %q matches %d documents: %s; %s", ErrAmbiguous, strings.ToLower(hash), len(ds), strings.Join(names, ", "), fix)
}

// byHash resolves a name made of MinHashPrefix or more hex digits as a
// content hash: ok is false when the name is not one or matches nothing.
func (e *Engine) byHash(name string) (d *Document, ok bool, err error) {
	if len(name) < MinHashPrefix || len(name) > 64 || !isHex(name) {
		return nil, false, nil
	}
	ds, err := e.docsByHash(name)
	switch {
	case err != nil:
		return nil, true, err
	case len(ds) == 0:
		return nil, false, nil
	case len(ds) > 1:
		return nil, true, ambiguousHash(name, ds)
	}
	return ds[0], true, nil
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// LooksLikeHash reports whether a query is probably a content hash or its
// start: one token of 8 to 64 hex digits with at least one digit and one
// letter (so neither "deadbeef" nor "20240101" is taken for one).
func LooksLikeHash(q string) bool {
	if len(q) < MinHashPrefix || len(q) > 64 || !isHex(q) {
		return false
	}
	return strings.ContainsAny(q, "0123456789") && strings.ContainsAny(strings.ToLower(q), "abcdef")
}

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
		if !LooksLikeHash(h) {
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
	ds, err := e.docsByHash(h)
	if err != nil {
		return nil, err
	}
	if explicit && len(ds) == 0 {
		return nil, fmt.Errorf("%w: no document's content hash starts with %q; search without a hash to find it", ErrNotFound, strings.ToLower(h))
	}
	if explicit && len(ds) > 1 {
		return nil, ambiguousHash(h, ds)
	}
	req := index.Request{PathGlob: opt.PathGlob, Tags: opt.Tags}
	for _, ref := range opt.Sources {
		s, err := e.source(ref)
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
	h := Hit{ID: d.ID, Path: d.Path, Title: d.Title, Score: 1, Highlights: []Range{}, Line: Lines{1, d.Lines},
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
		h.Line = Lines{c.StartLine, c.EndLine}
		h.Snippet = trimWords(c.Text, 240)
	}
	return h, nil
}

// trimWords collapses runs of white space to one space and cuts s to
// about n bytes at a word boundary, marking a cut with "…".
func trimWords(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	if i := strings.LastIndexByte(s[:cut], ' '); i > n*2/3 {
		cut = i
	}
	return strings.TrimRight(s[:cut], " ,;:.") + "…"
}
