package notes

import "github.com/braidsearch/braid/index"

// PinnedSources returns the registered sources holding at least one
// indexed document m selects, by name.
func (r *Reader) PinnedSources(m *PinMatcher) ([]*index.Source, error) {
	srcs, err := r.st.Sources()
	if err != nil {
		return nil, err
	}
	var out []*index.Source
	for _, s := range srcs {
		paths, err := r.st.Paths(s.ID)
		if err != nil {
			return nil, err
		}
		for _, p := range paths {
			if m.Match(s, p) {
				out = append(out, s)
				break
			}
		}
	}
	return out, nil
}
