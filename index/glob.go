package index

import (
	"regexp"

	"github.com/braidsearch/braid/query"
)

// Matcher matches slash-separated relative paths against globs.
type Matcher struct{ res []*regexp.Regexp }

// NewMatcher compiles globs; a nil Matcher (no globs) matches nothing.
func NewMatcher(globs []string) (*Matcher, error) {
	if len(globs) == 0 {
		return nil, nil
	}
	m := &Matcher{}
	for _, g := range globs {
		s, err := query.GlobRegexp(g)
		if err != nil {
			return nil, err
		}
		m.res = append(m.res, regexp.MustCompile("^"+s+"$"))
	}
	return m, nil
}

// Match reports whether any glob matches path.
func (m *Matcher) Match(path string) bool {
	if m == nil {
		return false
	}
	for _, re := range m.res {
		if re.MatchString(path) {
			return true
		}
	}
	return false
}
