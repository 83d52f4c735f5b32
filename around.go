package braid

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/braidsearch/braid/index"
)

// Neighborhood is a run of consecutive chunks of one document around a
// chunk: what a reader sees just before and after a search hit.
type Neighborhood struct {
	Doc    *Document
	Chunks []*Chunk // in document order
	Center int      // index in Chunks of the chunk asked for
	First  int      // index in Doc.ChunkIDs of Chunks[0]
}

// Around returns the chunk with the given id and up to radius chunks on
// each side of it in its document. radius is 0 or more; a chunk near the
// start or end of its document has fewer neighbours on that side.
func (e *Engine) Around(chunkID string, radius int) (*Neighborhood, error) {
	if err := e.embeddedOnly("around"); err != nil {
		return nil, err
	}
	if radius < 0 {
		return nil, fmt.Errorf("%w: radius %d, want 0 or more", ErrBadOption, radius)
	}
	d, err := e.st.Doc(index.ChunkDocID(chunkID))
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
		return nil, fmt.Errorf("%w: no chunk %q (chunk ids come from the chunk_id of a search hit; the document may have been re-indexed since)", ErrNotFound, chunkID)
	}
	lo, hi := max(0, at-radius), min(len(d.ChunkIDs), at+radius+1)
	chunks, err := e.st.Chunks(d.ChunkIDs[lo:hi])
	if err != nil {
		return nil, err
	}
	for i, c := range chunks {
		if c == nil {
			return nil, fmt.Errorf("braid: chunk %s of document %s is missing from the store; run braid doctor", d.ChunkIDs[lo+i], d.ID)
		}
	}
	return &Neighborhood{Doc: d, Chunks: chunks, Center: at - lo, First: lo}, nil
}

// Excerpt is a few numbered lines of a document's current file.
type Excerpt struct {
	Start int      `json:"start"` // 1-based number of the first line
	Lines []string `json:"lines"`
	Focus int      `json:"focus"` // the line the excerpt is centred on
}

// Excerpt reads the lines around a hit from its file as it is now: the
// first line in the hit's range that holds a highlighted word (else the
// range's first line), with before and after lines of context.
func (e *Engine) Excerpt(h Hit, before, after int) (*Excerpt, error) {
	if err := e.embeddedOnly("excerpts"); err != nil {
		return nil, err
	}
	if before < 0 || after < 0 {
		return nil, fmt.Errorf("%w: context %d/%d lines, want 0 or more", ErrBadOption, before, after)
	}
	c, err := e.Get(h.ID)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimSuffix(string(bytes.ReplaceAll(c.Data, []byte("\r\n"), []byte("\n"))), "\n"), "\n")
	var words []string
	for _, r := range h.Highlights {
		if r.Start >= 0 && r.Start < r.End && r.End <= len(h.Snippet) {
			words = append(words, strings.ToLower(h.Snippet[r.Start:r.End]))
		}
	}
	first, last := max(1, h.Line.Start), min(len(lines), h.Line.End)
	focus := min(first, len(lines))
	for n := first; n <= last && len(words) > 0; n++ {
		l := strings.ToLower(lines[n-1])
		found := false
		for _, w := range words {
			found = found || strings.Contains(l, w)
		}
		if found {
			focus = n
			break
		}
	}
	lo, hi := max(1, focus-before), min(len(lines), focus+after)
	x := &Excerpt{Start: lo, Focus: focus, Lines: []string{}}
	if lo <= hi {
		x.Lines = lines[lo-1 : hi]
	}
	return x, nil
}
