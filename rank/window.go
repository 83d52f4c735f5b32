package rank

// Window picks the next chunks to read for a search's hits, from the
// front of cands: the ids of up to want candidates, in order, leaving out
// those skip says need no reading (of a document already shown). places
// lays them out by candidate: places[i] is the place in ids of cands[i],
// or -1 for one left out (read again only if reached), up to the last
// candidate read.
func Window(cands []Candidate, want int, skip func(chunkID string) bool) (ids []string, places []int) {
	for _, c := range cands {
		if len(ids) == want {
			break
		}
		if !skip(c.ChunkID) {
			ids = append(ids, c.ChunkID)
		}
	}
	places = make([]int, 0, min(len(cands), 2*len(ids)))
	for j, i := 0, 0; j < len(ids); i++ {
		if cands[i].ChunkID == ids[j] {
			places = append(places, j)
			j++
		} else {
			places = append(places, -1)
		}
	}
	return ids, places
}
