package notes

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/braidsearch/braid/index"
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
