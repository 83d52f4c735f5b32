package vector

// SearchKept returns up to k vectors nearest q that keep accepts, best
// first; nil keep accepts all. The graph cannot filter while it walks, so
// a kept search reads eight times as many neighbours and keeps those that
// pass; while fewer than k pass and the graph holds more, it reads eight
// times as many again, up to the whole graph (compared exactly, as
// Search does once k reaches its size). So a filter that passes few
// vectors (a user granted one small source among many) still gets its k
// nearest, as good as an index of those vectors alone, at the cost of
// reading more of the graph. keep is asked once per id per call round;
// an error from it ends the search.
func (x *Index) SearchKept(q []float32, k int, keep func(id string) (bool, error)) ([]Result, error) {
	if keep == nil || k <= 0 {
		return x.Search(q, k)
	}
	verdict := map[string]bool{}
	for n := k * 8; ; n *= 8 {
		size := x.Len()
		found, err := x.Search(q, min(n, max(size, k)))
		if err != nil {
			return nil, err
		}
		out := make([]Result, 0, min(k, len(found)))
		for _, r := range found {
			if len(out) == k {
				break
			}
			ok, seen := verdict[r.ID]
			if !seen {
				if ok, err = keep(r.ID); err != nil {
					return nil, err
				}
				verdict[r.ID] = ok
			}
			if ok {
				out = append(out, r)
			}
		}
		if len(out) == k || n >= size || len(found) < min(n, size) {
			return out, nil
		}
	}
}
