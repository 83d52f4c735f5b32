package notes

import (
	"fmt"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/braidsearch/braid/index"
)

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
func (r *Reader) Find(query string, opt FindOptions) (*FindResults, error) {
	if err := r.sync(); err != nil {
		return nil, err
	}
	start := time.Now()
	q := normName(strings.TrimSpace(query))
	if q == "" {
		return nil, fmt.Errorf("%w: empty query; give part of a document's title, file name or path", index.ErrBadOption)
	}
	if opt.Limit < 0 {
		return nil, fmt.Errorf("%w: limit %d, want 1 or more", index.ErrBadOption, opt.Limit)
	}
	if opt.Limit == 0 {
		opt.Limit = 20
	}
	names, err := r.names.get(r.st)
	if err != nil {
		return nil, err
	}
	in := func(*nameEntry) bool { return true }
	if opt.Parent != "" {
		srcs, err := r.st.Sources()
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
				"name/folder, or an absolute path; braid tree lists the folders)", index.ErrNotFound, opt.Parent)
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
	res.TookMS = float64(time.Since(start).Microseconds()) / 1000
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
func parentScopes(parent string, srcs []*index.Source) []scope {
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
