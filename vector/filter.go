package vector

// SearchKept returns up to k vectors nearest q that keep accepts, best
// first; nil keep accepts all. The graph cannot filter while it walks, so
// a kept search reads eight times as many neighbours and keeps those that
// pass: a filter that passes fewer than one in eight can return fewer than
// k. An error from keep ends the search.
func (x *Index) SearchKept(q []float32, k int, keep func(id string) (bool, error)) ([]Result, error) {
	if keep == nil {
		return x.Search(q, k)
	}
	found, err := x.Search(q, k*8)
	if err != nil {
		return nil, err
	}
	out := make([]Result, 0, min(k, len(found)))
	for _, r := range found {
		if len(out) == k {
			break
		}
		if ok, err := keep(r.ID); err != nil {
			return nil, err
		} else if ok {
			out = append(out, r)
		}
	}
	return out, nil
}
