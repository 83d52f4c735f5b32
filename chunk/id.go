package chunk

import (
	"fmt"
	"strings"
)

// ID names the i-th chunk of a document version: the document id, then
// "#", the first 8 hex digits of the content hash and the position.
func ID(docID, hash string, i int) string {
	return fmt.Sprintf("%s#%s.%d", docID, hash[:8], i)
}

// DocID returns the document id a chunk id (as ID writes it) starts with.
func DocID(chunkID string) string {
	if i := strings.LastIndexByte(chunkID, '#'); i >= 0 {
		return chunkID[:i]
	}
	return chunkID
}
