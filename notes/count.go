package notes

import "github.com/braidsearch/braid/index"

// Count is how many documents and chunks an index holds, and the bytes of
// their content: in all, or of one source.
type Count struct {
	Documents int
	Chunks    int
	Bytes     int64
}

// Counts counts the documents in the store, in all and per source id. It
// reads the store as it is, without Config.Sync: a cluster backend counts
// in the cluster.
func (r *Reader) Counts() (all Count, per map[string]Count, err error) {
	per = map[string]Count{}
	err = r.st.ForEachDoc(func(d *index.Document) error {
		c := per[d.SourceID]
		c.Documents, c.Chunks, c.Bytes = c.Documents+1, c.Chunks+len(d.ChunkIDs), c.Bytes+d.Size
		per[d.SourceID] = c
		all.Documents, all.Chunks, all.Bytes = all.Documents+1, all.Chunks+len(d.ChunkIDs), all.Bytes+d.Size
		return nil
	})
	return all, per, err
}
