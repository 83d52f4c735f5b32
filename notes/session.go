package notes

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/query"
)

// PinMatcher tests documents against a session's pins. A pin is a path
// or glob (GlobRegexp's syntax) relative to a source, prefixed with the
// source's name, or absolute; a pin that names a folder selects what is
// under it. Pins only choose among the indexed documents.
type PinMatcher struct {
	res []*regexp.Regexp
}

// CompilePins compiles pins; an empty or malformed one is an error that
// names it.
func CompilePins(pins []string) (*PinMatcher, error) {
	m := &PinMatcher{}
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

// Match says whether the document at rel in source s is pinned.
func (m *PinMatcher) Match(s *index.Source, rel string) bool {
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

// SessionDocs returns the ids of the indexed documents the named
// session's pins select; ErrNotFound when there is no such session. A
// pin kept in the index that no longer compiles is an error naming it
// and the fix.
func (r *Reader) SessionDocs(name string) (map[string]bool, error) {
	if err := r.sync(); err != nil {
		return nil, err
	}
	se, err := r.st.Session(name)
	if err != nil {
		return nil, err
	}
	if se == nil {
		return nil, fmt.Errorf("%w: no session %q; braid sessions lists them, session_start starts one", index.ErrNotFound, name)
	}
	m, err := CompilePins(se.Pins)
	if err != nil {
		return nil, fmt.Errorf("session %s: %w; unpin it (braid sessions unpin %s PIN)", name, err, name)
	}
	return r.Pinned(m)
}

// Pinned returns the ids of the indexed documents m selects.
func (r *Reader) Pinned(m *PinMatcher) (map[string]bool, error) {
	srcs, err := r.st.Sources()
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	if len(m.res) == 0 {
		return out, nil
	}
	for _, s := range srcs {
		entries, err := r.st.Entries(s.ID)
		if err != nil {
			return nil, err
		}
		for rel, e := range entries {
			if m.Match(s, rel) {
				out[e.DocID] = true
			}
		}
	}
	return out, nil
}
