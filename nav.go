package braid

import (
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"
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

// Related is a document's neighbourhood in the link graph.
type Related struct {
	Depth     int    `json:"depth"`
	Links     []Step `json:"links"`     // what it links to, then what they link to, nearest first
	Backlinks []Step `json:"backlinks"` // what links to it, and so on
}

// Related walks the link graph both ways from a document, up to depth
// steps (1..5; 0 means 1): see Links.
func (e *Engine) Related(name string, depth int) (*Related, error) {
	if err := e.mirrored(); err != nil {
		return nil, err
	}
	out, err := e.Links(name, LinkOptions{Depth: depth})
	if err != nil {
		return nil, err
	}
	back, err := e.Links(out.Doc.ID, LinkOptions{Depth: depth, Reverse: true})
	if err != nil {
		return nil, err
	}
	return &Related{Depth: out.Depth, Links: out.Links, Backlinks: back.Links}, nil
}

// FindOptions shapes Find. The zero value looks everywhere and returns
// the 20 best matches.
type FindOptions struct {
	// Parent keeps documents under this folder: a path relative to its
	// source ("notes/2024"), a source name, the source name then a path
	// ("vault/notes"), or an absolute path. Empty means every source.
	Parent string
	// Limit is how many matches to return; zero means 20.
	Limit int
}

// Found is a document whose name matched a Find query.
type Found struct {
	ID       string `json:"id"`
	SourceID string `json:"source_id"`
	Path     string `json:"path"` // relative to its source
	Title    string `json:"title"`
	// Score ranks the matches: its whole part is how the query matched
	// (5 exact, 4 prefix, 3 substring at a word start, 2 substring, 1 the
	// query's letters in order), its fraction how much of the name the
	// query covers (or, for letters in order, how close together).
	Score float64 `json:"score"`
	Match string  `json:"match"` // exact, prefix, word, substring or subsequence
	Field string  `json:"field"` // what matched: title, name (file name without extension), alias or path
}

// FindResults is what Find found.
type FindResults struct {
	Results []Found `json:"results"`
	Total   int     `json:"total"` // documents that matched
	TookMS  float64 `json:"took_ms"`
}

// Match kinds of Found, best first.
var matchKinds = [...]string{"", "subsequence", "substring", "word", "prefix", "exact"}

// Find matches a query against the names of documents: titles, file names,
// aliases and paths, not their text. Matches rank by how they matched
// (exact, prefix, substring, then the query's characters in order, as in
// a fuzzy file finder), case-insensitively; ties go to the shorter path.
// Names are read once and kept until the index changes.
func (e *Engine) Find(query string, opt FindOptions) (*FindResults, error) {
	if err := e.mirrored(); err != nil {
		return nil, err
	}
	start := time.Now()
	q := normName(strings.TrimSpace(query))
	if q == "" {
		return nil, fmt.Errorf("%w: empty query; give part of a document's title, file name or path", ErrBadOption)
	}
	if opt.Limit < 0 {
		return nil, fmt.Errorf("%w: limit %d, want 1 or more", ErrBadOption, opt.Limit)
	}
	if opt.Limit == 0 {
		opt.Limit = 20
	}
	names, err := e.names.get(e.st)
	if err != nil {
		return nil, err
	}
	in := func(*nameEntry) bool { return true }
	if opt.Parent != "" {
		srcs, err := e.st.Sources()
		if err != nil {
			return nil, err
		}
		scopes := parentScopes(opt.Parent, srcs)
		in = func(n *nameEntry) bool { return underAny(&n.Name, scopes) }
		any := false
		for i := range names {
			if any = in(&names[i]); any {
				break
			}
		}
		if !any {
			return nil, fmt.Errorf("%w: no indexed document is under %q (give a folder relative to its source, a source name, "+
				"name/folder, or an absolute path; braid tree lists the folders)", ErrNotFound, opt.Parent)
		}
	}
	res := &FindResults{Results: []Found{}}
	for i := range names {
		n := &names[i]
		if !in(n) {
			continue
		}
		var f Found
		for k, text := range n.norm {
			field := nameFields[min(k, len(nameFields)-1)]
			if s := nameScore(q, text); s > f.Score {
				f.Score, f.Field, f.Match = s, field, matchKinds[int(s)]
			}
		}
		if f.Score > 0 {
			f.ID, f.SourceID, f.Path, f.Title = n.ID, n.SourceID, n.Path, n.Title
			res.Results = append(res.Results, f)
		}
	}
	sort.Slice(res.Results, func(i, j int) bool {
		a, b := res.Results[i], res.Results[j]
		if a.Score != b.Score {
			return a.Score > b.Score
		}
		if len(a.Path) != len(b.Path) {
			return len(a.Path) < len(b.Path)
		}
		return a.Path < b.Path || a.Path == b.Path && a.ID < b.ID
	})
	res.Total = len(res.Results)
	if len(res.Results) > opt.Limit {
		res.Results = res.Results[:opt.Limit]
	}
	res.TookMS = msSince(start)
	return res, nil
}

// normName lowercases a name and treats -, _ and runs of spaces as one
// space, so "note 3" finds note-0003.md.
func normName(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := true // drops leading spaces
	for _, r := range s {
		if r == '-' || r == '_' || unicode.IsSpace(r) {
			if !space {
				b.WriteByte(' ')
				space = true
			}
			continue
		}
		b.WriteRune(unicode.ToLower(r))
		space = false
	}
	return strings.TrimSuffix(b.String(), " ")
}

// nameScore scores how q matches name (both normalised): 0 for no match,
// else a match kind (1..5, see matchKinds) plus a fraction below 1.
func nameScore(q, name string) float64 {
	if name == "" {
		return 0
	}
	cover := float64(len(q)) / float64(max(len(name), len(q))) * 0.99
	switch {
	case q == name:
		return 5
	case strings.HasPrefix(name, q):
		return 4 + cover
	}
	if i := strings.Index(name, q); i >= 0 {
		for ; i >= 0; i = nextIndex(name, q, i) {
			if wordStart(name, i) {
				return 3 + cover
			}
		}
		return 2 + cover
	}
	// The query's characters in order: the shortest window ending where
	// the leftmost greedy match ends, found walking back from there.
	end, k := -1, 0
	for i := 0; i < len(name) && k < len(q); i++ {
		if name[i] == q[k] {
			k++
			end = i
		}
	}
	if k < len(q) {
		return 0
	}
	begin := end
	for k = len(q) - 1; k >= 0; begin-- {
		if name[begin] == q[k] {
			k--
		}
	}
	return 1 + float64(len(q))/float64(end-begin)*0.99
}

func nextIndex(s, sub string, after int) int {
	if i := strings.Index(s[after+1:], sub); i >= 0 {
		return after + 1 + i
	}
	return -1
}

// wordStart reports whether a word starts at byte i of s.
func wordStart(s string, i int) bool {
	return i == 0 || strings.IndexByte(" /.#", s[i-1]) >= 0
}

// scope is a folder of one source; an empty prefix is the whole source.
type scope struct{ sourceID, prefix string }

// parentScopes reads a parent folder as Find and Info take it: relative
// to any source, as source name/folder, or as an absolute path.
func parentScopes(parent string, srcs []*Source) []scope {
	var out []scope
	if filepath.IsAbs(parent) {
		p := filepath.Clean(parent)
		for _, s := range srcs {
			if r, err := filepath.Rel(p, s.Path); err == nil && (r == "." || filepath.IsLocal(r)) {
				out = append(out, scope{s.ID, ""}) // the source lies inside it
			} else if r, err := filepath.Rel(s.Path, p); err == nil && filepath.IsLocal(r) && s.Kind == index.SourceDir {
				out = append(out, scope{s.ID, filepath.ToSlash(r)})
			}
		}
		return out
	}
	rel := strings.Trim(strings.TrimPrefix(filepath.ToSlash(parent), "./"), "/")
	for _, s := range srcs {
		switch {
		case rel == s.Name || rel == "" || rel == ".":
			out = append(out, scope{s.ID, ""})
		case strings.HasPrefix(rel, s.Name+"/"):
			out = append(out, scope{s.ID, strings.TrimPrefix(rel, s.Name+"/")})
		}
		if rel != "" && rel != "." {
			out = append(out, scope{s.ID, path.Clean(rel)})
		}
	}
	return out
}

func underAny(n *index.Name, scopes []scope) bool {
	for _, sc := range scopes {
		if n.SourceID != sc.sourceID {
			continue
		}
		if sc.prefix == "" || strings.HasPrefix(n.Path, sc.prefix+"/") || strings.HasPrefix(n.Path, sc.prefix+"#") {
			return true
		}
	}
	return false
}

// nameEntry is a document's names, and the same normalised for matching
// (see normName): title, file name without extension, path, then aliases.
type nameEntry struct {
	index.Name
	norm []string
}

// nameFields names the entries of nameEntry.norm; the last is every alias.
var nameFields = [...]string{"title", "name", "path", "alias"}

// nameCache keeps the names of the documents for Find, read again when
// the store's commit generation moves. Safe for concurrent use.
type nameCache struct {
	mu    sync.Mutex
	gen   uint64
	names []nameEntry
	ok    bool
}

// get returns the names at the store's latest commit. The slice is
// shared: callers must not change it.
func (c *nameCache) get(st *index.Store) ([]nameEntry, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	g, err := st.Gen()
	if err != nil {
		return nil, err
	}
	if c.ok && g == c.gen {
		return c.names, nil
	}
	var names []nameEntry
	err = st.ForEachName(func(n *index.Name) error {
		base := path.Base(n.Path)
		norm := []string{normName(n.Title), normName(strings.TrimSuffix(base, path.Ext(base))), normName(n.Path)}
		for _, a := range n.Aliases {
			norm = append(norm, normName(a))
		}
		names = append(names, nameEntry{Name: *n, norm: norm})
		return nil
	})
	if err != nil {
		return nil, err
	}
	c.names, c.gen, c.ok = names, g, true
	return names, nil
}

// InfoNode is one step of an Info's ancestry.
type InfoNode struct {
	Type string `json:"type"`           // source, folder, document, heading or chunk
	ID   string `json:"id,omitempty"`   // of a source, document or chunk
	Name string `json:"name,omitempty"` // of a source or folder; a heading's text
	// Path is relative to the source, slash-separated (a heading's and a
	// chunk's is their document's); a source's is its absolute path.
	Path  string `json:"path"`
	Title string `json:"title,omitempty"` // of a document
	Lines *Lines `json:"lines,omitempty"` // of a heading or chunk
}

// Info says what an id names and where it sits.
type Info struct {
	InfoNode
	SourceID string `json:"source_id"`
	// Ancestry runs from the source down to the node itself: its folders,
	// then for a chunk its document and the headings it is under.
	Ancestry []InfoNode `json:"ancestry"`
}

// Info resolves an id: a chunk id, a document (as Document names one:
// id, path, content hash or prefix, title), a source id or name, or a
// folder (relative to its source, source name/folder, or absolute).
func (e *Engine) Info(id string) (*Info, error) {
	if err := e.mirrored(); err != nil {
		return nil, err
	}
	if strings.TrimSpace(id) == "" {
		return nil, fmt.Errorf("%w: empty id", ErrBadOption)
	}
	if strings.Contains(id, "#") {
		c, err := e.chunkByID(id)
		if err != nil {
			return nil, err
		}
		if c != nil {
			return e.chunkInfo(c)
		}
	}
	d, err := e.Document(id)
	if err == nil {
		return e.docInfo(d)
	}
	if !isNotFound(err) {
		return nil, err
	}
	srcs, err := e.st.Sources()
	if err != nil {
		return nil, err
	}
	if s, err := e.source(id); err == nil {
		n := sourceNode(s)
		return &Info{InfoNode: n, SourceID: s.ID, Ancestry: []InfoNode{n}}, nil
	} else if !isNotFound(err) {
		return nil, err
	}
	var found []scope
	for _, sc := range parentScopes(id, srcs) {
		if sc.prefix == "" || containsScope(found, sc) {
			continue
		}
		paths, err := e.st.Paths(sc.sourceID)
		if err != nil {
			return nil, err
		}
		for _, p := range paths {
			if strings.HasPrefix(p, sc.prefix+"/") {
				found = append(found, sc)
				break
			}
		}
	}
	switch len(found) {
	case 0:
		return nil, fmt.Errorf("%w: %q is no chunk, document, source or folder of the index; braid find or braid search can find it", ErrNotFound, id)
	case 1:
		for _, s := range srcs {
			if s.ID == found[0].sourceID {
				anc := folderNodes(s, found[0].prefix)
				return &Info{InfoNode: anc[len(anc)-1], SourceID: s.ID, Ancestry: anc}, nil
			}
		}
	}
	return nil, fmt.Errorf("%w: folder %q is in %d sources; name it as source-name/folder", ErrAmbiguous, id, len(found))
}

func isNotFound(err error) bool { return err != nil && errors.Is(err, ErrNotFound) }

func containsScope(list []scope, sc scope) bool {
	for _, x := range list {
		if x == sc {
			return true
		}
	}
	return false
}

func sourceNode(s *Source) InfoNode {
	return InfoNode{Type: "source", ID: s.ID, Name: s.Name, Path: s.Path}
}

// folderNodes is the ancestry of a folder of s: the source, then each
// folder down to dir ("" for none).
func folderNodes(s *Source, dir string) []InfoNode {
	out := []InfoNode{sourceNode(s)}
	if dir == "" || dir == "." {
		return out
	}
	parts := strings.Split(dir, "/")
	for i, p := range parts {
		out = append(out, InfoNode{Type: "folder", Name: p, Path: strings.Join(parts[:i+1], "/")})
	}
	return out
}

func (e *Engine) docAncestry(d *Document) ([]InfoNode, error) {
	s, err := e.st.Source(d.SourceID)
	if err != nil {
		return nil, err
	}
	if s == nil {
		return nil, fmt.Errorf("%w: source %s of document %s is gone; run braid doctor", ErrNotFound, d.SourceID, d.ID)
	}
	dir := ""
	if s.Kind == index.SourceDir || s.Kind == index.SourceS3 {
		dir = path.Dir(d.Path)
	}
	anc := folderNodes(s, dir)
	return append(anc, InfoNode{Type: "document", ID: d.ID, Name: path.Base(d.Path), Path: d.Path, Title: d.Title}), nil
}

func (e *Engine) docInfo(d *Document) (*Info, error) {
	anc, err := e.docAncestry(d)
	if err != nil {
		return nil, err
	}
	return &Info{InfoNode: anc[len(anc)-1], SourceID: d.SourceID, Ancestry: anc}, nil
}

func (e *Engine) chunkInfo(c *Chunk) (*Info, error) {
	d, err := e.st.Doc(c.DocID)
	if err != nil {
		return nil, err
	}
	if d == nil {
		return nil, fmt.Errorf("%w: document %s of chunk %s is gone; run braid doctor", ErrNotFound, c.DocID, c.ID)
	}
	anc, err := e.docAncestry(d)
	if err != nil {
		return nil, err
	}
	for _, h := range headingLines(d.Headings, c) {
		anc = append(anc, InfoNode{Type: "heading", Name: h.Text, Path: d.Path, Lines: &Lines{h.Line, h.Line}})
	}
	n := InfoNode{Type: "chunk", ID: c.ID, Path: d.Path, Title: d.Title, Lines: &Lines{c.StartLine, c.EndLine}}
	return &Info{InfoNode: n, SourceID: d.SourceID, Ancestry: append(anc, n)}, nil
}

// headingLines finds the headings of a chunk's heading path in its
// document, outermost first: the headings open at the chunk's first line.
// A heading it cannot place keeps line 0.
func headingLines(hs []Heading, c *Chunk) []Heading {
	var open []Heading
	for _, h := range hs {
		if h.Line > c.StartLine {
			break
		}
		for len(open) > 0 && open[len(open)-1].Level >= h.Level {
			open = open[:len(open)-1]
		}
		open = append(open, h)
	}
	out := make([]Heading, len(c.HeadingPath))
	j := 0
	for i, text := range c.HeadingPath {
		out[i] = Heading{Text: text}
		for ; j < len(open); j++ {
			if open[j].Text == text {
				out[i] = open[j]
				j++
				break
			}
		}
	}
	return out
}

// Citation is everything needed to cite a chunk.
type Citation struct {
	ChunkID     string   `json:"chunk_id"`
	Document    string   `json:"document"` // its id
	Title       string   `json:"title"`
	Path        string   `json:"path"`           // relative to its source
	File        string   `json:"file,omitempty"` // absolute; for an S3 object, its s3:// URL
	HeadingPath []string `json:"heading_path,omitempty"`
	// StartLine and EndLine are the chunk's lines in File (for a BEIR
	// document, the line of its record in the corpus).
	StartLine int    `json:"start_line"`
	EndLine   int    `json:"end_line"`
	Snippet   string `json:"snippet"` // the chunk's text, white space collapsed, cut to about 300 bytes at a word
	// Tag is a ready-to-paste markdown link, [Title](path#L12-L30): the
	// line anchor of GitHub and most editors; a one-line chunk is #L12.
	Tag string `json:"tag"`
}

// Cite returns the citation of a chunk (the chunk_id of a search hit).
func (e *Engine) Cite(chunkID string) (*Citation, error) {
	if err := e.mirrored(); err != nil {
		return nil, err
	}
	c, err := e.chunkByID(chunkID)
	if err != nil {
		return nil, err
	}
	if c == nil {
		return nil, fmt.Errorf("%w: no chunk %q (chunk ids come from the chunk_id of a search hit; the document may have been re-indexed since, so search again)", ErrNotFound, chunkID)
	}
	d, err := e.st.Doc(c.DocID)
	if err != nil {
		return nil, err
	}
	if d == nil {
		return nil, fmt.Errorf("%w: document %s of chunk %s is gone; run braid doctor", ErrNotFound, c.DocID, c.ID)
	}
	s, err := e.st.Source(d.SourceID)
	if err != nil {
		return nil, err
	}
	ct := &Citation{ChunkID: c.ID, Document: d.ID, Title: d.Title, Path: d.Path, HeadingPath: c.HeadingPath,
		StartLine: c.StartLine, EndLine: c.EndLine, Snippet: trimWords(c.Text, 300)}
	file := d.Path
	if s != nil {
		switch s.Kind {
		case index.SourceDir:
			ct.File = filepath.Join(s.Path, filepath.FromSlash(d.Path))
		case index.SourceFile:
			ct.File = s.Path
		case index.SourceJSONL:
			ct.File = s.Path
			ct.StartLine, ct.EndLine = d.Line, d.Line
			file, _, _ = strings.Cut(d.Path, "#")
		case index.SourceS3:
			ct.File = index.ObjectURL(s, d.Path)
			file = ct.File
		}
	}
	ct.Tag = citeTag(d.Title, file, ct.StartLine, ct.EndLine)
	return ct, nil
}

// citeTag writes [title](path#Lstart-Lend), escaped for markdown.
func citeTag(title, file string, start, end int) string {
	if title == "" {
		title = path.Base(file)
	}
	text := strings.NewReplacer(`\`, `\\`, "[", `\[`, "]", `\]`, "\n", " ").Replace(title)
	dest := strings.NewReplacer("%", "%25", " ", "%20", "(", "%28", ")", "%29", "#", "%23", "<", "%3C", ">", "%3E").Replace(file)
	anchor := fmt.Sprintf("#L%d", start)
	if end > start {
		anchor += fmt.Sprintf("-L%d", end)
	}
	return fmt.Sprintf("[%s](%s%s)", text, dest, anchor)
}
