package notes

import (
	"fmt"

	"github.com/braidsearch/braid/chunk"
	"github.com/braidsearch/braid/index"
)

// Neighborhood is a run of consecutive chunks of one document around a
// chunk: what a reader sees just before and after a search hit.
type Neighborhood struct {
	Doc    *index.Document
	Chunks []*index.Chunk // in document order
	Center int            // index in Chunks of the chunk asked for
	First  int            // index in Doc.ChunkIDs of Chunks[0]
}

// Around returns the chunk with the given id and up to radius chunks on
// each side of it in its document. radius is 0 or more; a chunk near the
// start or end of its document has fewer neighbours on that side.
func (r *Reader) Around(chunkID string, radius int) (*Neighborhood, error) {
	if err := r.embeddedOnly("around"); err != nil {
		return nil, err
	}
	if radius < 0 {
		return nil, fmt.Errorf("%w: radius %d, want 0 or more", index.ErrBadOption, radius)
	}
	d, err := r.st.Doc(chunk.DocID(chunkID))
	if err != nil {
		return nil, err
	}
	at := -1
	if d != nil {
		for i, id := range d.ChunkIDs {
			if id == chunkID {
				at = i
				break
			}
		}
	}
	if at < 0 {
		return nil, fmt.Errorf("%w: no chunk %q (chunk ids come from the chunk_id of a search hit; the document may have been re-indexed since)", index.ErrNotFound, chunkID)
	}
	lo, hi := max(0, at-radius), min(len(d.ChunkIDs), at+radius+1)
	chunks, err := r.st.Chunks(d.ChunkIDs[lo:hi])
	if err != nil {
		return nil, err
	}
	for i, c := range chunks {
		if c == nil {
			return nil, fmt.Errorf("chunk %s of document %s is missing from the store; run braid doctor", d.ChunkIDs[lo+i], d.ID)
		}
	}
	return &Neighborhood{Doc: d, Chunks: chunks, Center: at - lo, First: lo}, nil
}
