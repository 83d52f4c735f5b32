package index

import "github.com/braidsearch/braid/lexical"

// Lexical is what the lexical index takes of c (package lexical sits
// below this one and knows nothing of the store's chunks).
func (c *Chunk) Lexical() *lexical.Chunk {
	return &lexical.Chunk{ID: c.ID, DocID: c.DocID, Ord: c.Ord, Text: c.Text, HeadingPath: c.HeadingPath}
}

// lexChunks is what the lexical index takes of chunks, for its Apply.
func lexChunks(cs []*Chunk) []lexical.Chunk {
	out := make([]lexical.Chunk, len(cs))
	for i, c := range cs {
		out[i] = *c.Lexical()
	}
	return out
}
