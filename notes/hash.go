package notes

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/lexical"
)

// MinHashPrefix is the fewest hex digits of a content hash that name a
// document.
const MinHashPrefix = 8

// DocumentByHash finds the document whose content hash (sha256, hex; see
// Document.Hash) is hash or starts with it: at least MinHashPrefix hex
// digits, any case. No match is index.ErrNotFound; several are index.ErrAmbiguous,
// listing up to 10 of them (documents with the same content share their
// whole hash). It reads the hashes kept beside the paths, without decoding
// a document: about 10 ms for 100k documents.
func (r *Reader) DocumentByHash(hash string) (*index.Document, error) {
	if err := r.sync(); err != nil {
		return nil, err
	}
	ds, err := r.HashMatches(hash)
	if err != nil {
		return nil, err
	}
	switch len(ds) {
	case 0:
		return nil, fmt.Errorf("%w: no document's content hash starts with %q; braid search can find it", index.ErrNotFound, strings.ToLower(hash))
	case 1:
		return ds[0], nil
	}
	return nil, AmbiguousHash(hash, ds)
}

// HashMatches returns the documents whose hash starts with hash, by path.
func (r *Reader) HashMatches(hash string) ([]*index.Document, error) {
	h := strings.ToLower(strings.TrimSpace(hash))
	if len(h) > 64 || !isHex(h) {
		return nil, fmt.Errorf("%w: hash %q is not a sha256 in hex, want %d to 64 digits 0-9a-f", index.ErrBadOption, hash, MinHashPrefix)
	}
	if len(h) < MinHashPrefix {
		return nil, fmt.Errorf("%w: hash %q is %d hex digits, want at least %d", index.ErrBadOption, hash, len(h), MinHashPrefix)
	}
	entries, err := r.st.HashPrefix(h)
	if err != nil {
		return nil, err
	}
	var ds []*index.Document
	for _, en := range entries {
		d, err := r.st.Doc(en.DocID)
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

func AmbiguousHash(hash string, ds []*index.Document) error {
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
	return fmt.Errorf("%w: hash %q matches %d documents: %s; %s", index.ErrAmbiguous, strings.ToLower(hash), len(ds), strings.Join(names, ", "), fix)
}

// byHash resolves a name made of MinHashPrefix or more hex digits as a
// content hash: ok is false when the name is not one or matches nothing.
func (r *Reader) byHash(name string) (d *index.Document, ok bool, err error) {
	if len(name) < MinHashPrefix || len(name) > 64 || !isHex(name) {
		return nil, false, nil
	}
	ds, err := r.HashMatches(name)
	switch {
	case err != nil:
		return nil, true, err
	case len(ds) == 0:
		return nil, false, nil
	case len(ds) > 1:
		return nil, true, AmbiguousHash(name, ds)
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

// TrimWords collapses runs of white space to one space and cuts s to
// about n bytes at a word boundary, marking a cut with "…".
func TrimWords(s string, n int) string {
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

// HashQuery is a search answered by content hash rather than ranked.
type HashQuery struct {
	Hash string // MinHashPrefix to 64 hex digits
	// Explicit says the caller named a hash: no document, or several
	// before the filters, is an error. Otherwise Hash is a query that
	// looks like one (LooksLikeHash), and no match means none.
	Explicit bool
	// Filter gives the request whose filters a match must pass (Keep),
	// once the hash is known to be usable; nil keeps every match.
	Filter func() (lexical.Request, error)
	Limit  int // the most hits returned
}

// HashHit is a document found by its content hash, anchored at its first
// chunk: Chunk is nil for a document without chunks (or one gone), and
// Snippet is the chunk's text cut to about 240 bytes at a word.
type HashHit struct {
	Doc     *index.Document
	Chunk   *index.Chunk
	Snippet string
}

// ByHash finds the documents whose content hash starts with q.Hash and
// that pass q.Filter, by path: the first q.Limit of them, and how many
// there are. An explicit hash that names no document is
// index.ErrNotFound, one that names several index.ErrAmbiguous.
func (r *Reader) ByHash(ctx context.Context, q HashQuery) ([]HashHit, int, error) {
	ds, err := r.HashMatches(q.Hash)
	if err != nil {
		return nil, 0, err
	}
	if q.Explicit && len(ds) == 0 {
		return nil, 0, fmt.Errorf("%w: no document's content hash starts with %q; search without a hash to find it", index.ErrNotFound, strings.ToLower(q.Hash))
	}
	if q.Explicit && len(ds) > 1 {
		return nil, 0, AmbiguousHash(q.Hash, ds)
	}
	keep := func(string) (bool, error) { return true, nil }
	if q.Filter != nil {
		req, err := q.Filter()
		if err != nil {
			return nil, 0, err
		}
		if keep, err = r.Keep(req); err != nil {
			return nil, 0, err
		}
	}
	var hits []HashHit
	total := 0
	for _, d := range ds {
		if ok, err := keep(d.ID); err != nil {
			return nil, 0, err
		} else if !ok {
			continue
		}
		h := HashHit{Doc: d}
		if len(d.ChunkIDs) > 0 {
			if h.Chunk, err = r.chunk(ctx, d.ChunkIDs[0]); err != nil {
				return nil, 0, err
			}
			if h.Chunk != nil {
				h.Snippet = TrimWords(h.Chunk.Text, 240)
			}
		}
		total++
		if len(hits) < q.Limit {
			hits = append(hits, h)
		}
	}
	return hits, total, nil
}
