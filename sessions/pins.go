package sessions

import (
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/query"
)

// matcher tests documents against a session's pins. A pin is a path or
// glob (query.GlobRegexp's syntax) relative to a source, prefixed with
// the source's name, or absolute; a pin that names a folder selects what
// is under it. Pins only choose among the indexed documents.
type matcher struct {
	res []*regexp.Regexp
}

// PinProblem says why p can select no document whatever the index
// holds, so that it is refused rather than kept to match nothing: a URL
// (file://…, s3://…; documents are matched by path), the root folder or
// "." (no document is named by them), or a path that climbs out with
// "..". "" means p is a pin that can select documents.
func PinProblem(p string) string {
	s := filepath.ToSlash(p)
	switch clean := path.Clean(s); {
	case strings.Contains(s, "://"):
		return "is a URL; pins are paths or globs of indexed documents, such as notes/*.md, a source's name, or an absolute path inside a source"
	case clean == "/" || clean == ".":
		return "names no document; pin a source's folder or name (braid sources lists them), or a glob such as **/*.md"
	case slices.Contains(strings.Split(s, "/"), ".."):
		return `climbs out with ".."; pins are relative to a source, or absolute inside one`
	}
	return ""
}

// compile compiles pins; an empty or malformed one is an error that
// names it.
func compile(pins []string) (*matcher, error) {
	m := &matcher{}
	for _, p := range pins {
		if strings.TrimSpace(p) == "" {
			return nil, fmt.Errorf("%w: an empty pin; give a path or glob such as notes/*.md", index.ErrBadOption)
		}
		body, err := query.GlobRegexp(filepath.ToSlash(strings.TrimSuffix(p, "/")))
		if err != nil {
			return nil, fmt.Errorf("%w: pin %q: %v", index.ErrBadOption, p, err)
		}
		re, err := regexp.Compile("^" + body + "(/.*)?$")
		if err != nil {
			return nil, fmt.Errorf("%w: pin %q: %v", index.ErrBadOption, p, err)
		}
		m.res = append(m.res, re)
	}
	return m, nil
}

// match says whether the document at rel in source s is pinned.
func (m *matcher) match(s *index.Source, rel string) bool {
	cands := []string{rel, s.Name + "/" + rel}
	if f := s.File(rel); f != "" && !strings.Contains(f, "://") {
		cands = append(cands, strings.TrimPrefix(filepath.ToSlash(f), "/"))
	}
	if s.Kind == index.SourceStore {
		cands = append(cands, "store:"+rel)
	}
	for _, re := range m.res {
		for _, c := range cands {
			if re.MatchString(c) {
				return true
			}
		}
	}
	return false
}

// Docs returns the ids of the indexed documents in st that the named
// session's pins select; index.ErrNotFound when there is no such
// session. A pin kept in the index that no longer compiles is an error
// naming it and the fix. It is how a search's, grep's or listing's
// Session option scopes it (notes.Reader.SessionDocs).
func Docs(st *index.Store, name string) (map[string]bool, error) {
	se, err := record(st, name)
	if err != nil {
		return nil, err
	}
	if se == nil {
		return nil, fmt.Errorf("%w: no session %q; braid sessions lists them, session_start starts one", index.ErrNotFound, name)
	}
	m, err := compile(se.Pins)
	if err != nil {
		return nil, fmt.Errorf("session %s: %w; unpin it (braid sessions unpin %s PIN)", name, err, name)
	}
	return pinned(st, m)
}

// pinned returns the ids of the indexed documents m selects.
func pinned(st *index.Store, m *matcher) (map[string]bool, error) {
	srcs, err := st.Sources()
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	if len(m.res) == 0 {
		return out, nil
	}
	for _, s := range srcs {
		entries, err := st.Entries(s.ID)
		if err != nil {
			return nil, err
		}
		for rel, e := range entries {
			if m.match(s, rel) {
				out[e.DocID] = true
			}
		}
	}
	return out, nil
}

// pinnedSources returns the registered sources holding at least one
// indexed document m selects, by name.
func pinnedSources(st *index.Store, m *matcher) ([]*index.Source, error) {
	srcs, err := st.Sources()
	if err != nil {
		return nil, err
	}
	var out []*index.Source
	for _, s := range srcs {
		paths, err := st.Paths(s.ID)
		if err != nil {
			return nil, err
		}
		for _, p := range paths {
			if m.match(s, p) {
				out = append(out, s)
				break
			}
		}
	}
	return out, nil
}
