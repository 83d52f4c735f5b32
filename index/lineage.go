package index

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Lineage: each document keeps the chunk hashes of its last
// LineageVersions versions, with when each was indexed and, for each
// chunk, the chunks of the version before that its text came from (by
// shared lines), so a chunk can be traced across re-indexes: the
// versions that held the same text, and the chunks it was split from or
// merged into. It is written in the document's commit, in the same
// transaction as the chunks, so it is as crash-safe as they are. An index
// written before lineage existed has no bucket: readers treat it as
// empty, a writer creates it, and a document's first change then records
// its previous version from the chunks the store still holds.
var bucketLineage = []byte("lineage") // document id -> []LineageVersion, oldest first

// LineageVersions is how many versions of a document the lineage keeps.
const LineageVersions = 8

// LineageVersion is one version of a document in its lineage.
type LineageVersion struct {
	Hash   string         `json:"hash"` // the content's sha256, hex
	Time   time.Time      `json:"time"` // when it was indexed
	Chunks []LineageChunk `json:"chunks"`
}

// LineageChunk is one chunk of a version: its text's hash (ChunkTextHash)
// and the positions of the chunks of the version before it that its text
// came from (none in a document's first version kept, or for new text).
type LineageChunk struct {
	Hash string `json:"h"`
	From []int  `json:"from,omitempty"`
}

// ChunkTextHash is the hash lineage keeps of a chunk's text: the first 16
// hex digits of its sha256, enough to tell texts apart in one index.
func ChunkTextHash(text string) string {
	h := sha256.Sum256([]byte(text))
	return hex.EncodeToString(h[:8])
}

// Lineage returns a document's kept versions, oldest first; nil when it
// has none.
func (s *Store) Lineage(docID string) ([]LineageVersion, error) {
	var out []LineageVersion
	err := s.view(func(tx *bolt.Tx) error {
		var err error
		out, err = getLineage(tx, docID)
		return err
	})
	return out, err
}

// ForEachLineage calls fn with every document's kept versions until fn
// returns an error.
func (s *Store) ForEachLineage(fn func(docID string, vs []LineageVersion) error) error {
	return s.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketLineage)
		if b == nil {
			return nil
		}
		return b.ForEach(func(k, v []byte) error {
			var vs []LineageVersion
			if err := json.Unmarshal(v, &vs); err != nil {
				return fmt.Errorf("decode lineage of %s: %w", k, err)
			}
			return fn(string(k), vs)
		})
	})
}

func getLineage(tx *bolt.Tx, docID string) ([]LineageVersion, error) {
	b := tx.Bucket(bucketLineage)
	if b == nil {
		return nil, nil
	}
	raw := b.Get([]byte(docID))
	if raw == nil {
		return nil, nil
	}
	var vs []LineageVersion
	if err := json.Unmarshal(raw, &vs); err != nil {
		return nil, fmt.Errorf("decode lineage of %s: %w", docID, err)
	}
	return vs, nil
}

// recordLineage adds the version d with its chunks to d's lineage, in
// the commit's transaction, before the old chunks are removed: old is the
// document it replaces (nil for a new one) and oldTexts its chunks' text.
// A version whose content hash is the last one's (a re-index of the same
// content) adds nothing.
func recordLineage(tx *bolt.Tx, d *Document, chunks []Chunk, old *Document, oldTexts []string) error {
	if d.Kind == KindBEIR {
		return nil // a corpus's records do not change; their lineage would only cost space
	}
	b, err := tx.CreateBucketIfNotExists(bucketLineage)
	if err != nil {
		return err
	}
	vs, err := getLineage(tx, d.ID)
	if err != nil {
		return err
	}
	if n := len(vs); n > 0 && vs[n-1].Hash == d.Hash {
		return nil
	}
	if old != nil && old.Hash != d.Hash && (len(vs) == 0 || vs[len(vs)-1].Hash != old.Hash) {
		// The store's chunks are the version before: an index from before
		// lineage, or a history that lost it.
		prev := LineageVersion{Hash: old.Hash, Time: old.IndexedAt}
		for _, t := range oldTexts {
			prev.Chunks = append(prev.Chunks, LineageChunk{Hash: ChunkTextHash(t)})
		}
		vs = append(vs, prev)
	}
	next := LineageVersion{Hash: d.Hash, Time: d.IndexedAt}
	texts := make([]string, len(chunks))
	for i := range chunks {
		texts[i] = chunks[i].Text
		next.Chunks = append(next.Chunks, LineageChunk{Hash: ChunkTextHash(chunks[i].Text)})
	}
	if old != nil && len(vs) > 0 && vs[len(vs)-1].Hash == old.Hash {
		from := Derive(oldTexts, texts)
		for i := range next.Chunks {
			next.Chunks[i].From = from[i]
		}
	}
	vs = append(vs, next)
	if len(vs) > LineageVersions {
		vs = vs[len(vs)-LineageVersions:]
	}
	data, err := json.Marshal(vs)
	if err != nil {
		return err
	}
	return b.Put([]byte(d.ID), data)
}

// Derive says, for each chunk text of a new version, which chunks of the
// old one it came from: the one with the same text, else those that
// share at least half of the lines of the smaller of the two (blank and
// very short lines aside, so the overlap chunks share with their
// neighbours does not count).
func Derive(old, next []string) [][]int {
	oldLines := make([]map[string]bool, len(old))
	oldHash := map[string]int{}
	for i, t := range old {
		oldLines[i] = lineSet(t)
		if _, seen := oldHash[t]; !seen {
			oldHash[t] = i
		}
	}
	out := make([][]int, len(next))
	for j, t := range next {
		if i, ok := oldHash[t]; ok {
			out[j] = []int{i}
			continue
		}
		lines := lineSet(t)
		for i, ol := range oldLines {
			shared := 0
			for l := range lines {
				if ol[l] {
					shared++
				}
			}
			if small := min(len(lines), len(ol)); shared > 0 && 2*shared >= small {
				out[j] = append(out[j], i)
			}
		}
	}
	return out
}

// lineSet is the set of a text's lines, trimmed, that are long enough to
// tell apart (4 bytes or more).
func lineSet(text string) map[string]bool {
	out := map[string]bool{}
	for l := range strings.SplitSeq(text, "\n") {
		if l = strings.TrimSpace(l); len(l) >= 4 {
			out[l] = true
		}
	}
	return out
}
