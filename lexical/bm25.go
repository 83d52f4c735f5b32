package lexical

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/search"
	bleveindex "github.com/blevesearch/bleve_index_api"
	bolt "go.etcd.io/bbolt"
)

// The BM25 statistics (see bm25Stats) are kept in meta.db and moved by
// each lexical batch instead of counted again over the whole lexical
// index, which is linear in the index: every term of every field, a term
// reader per term (140 ms at 7.3k chunks, some 20 s at a million, for
// every edited note).
//
// Each chunk's counts, the number of distinct terms bleve indexed in each
// of its fields (its share of FieldCardinality), are read from the
// documents bleve analysed for the batch that indexed it, so they are
// what the index holds, and kept under the chunk's id in the bm25 bucket
// (bucketBM25): a delete subtracts exactly what the add added. The totals
// are kept in the meta bucket (keyBM25) with the lexical commit they
// describe and the number of chunks counted.
//
// The lexical batch and the meta.db transaction are two commits. The
// counts move in the transaction that clears the commit's pending record
// (clearPending), so a crash between the two leaves the record, and
// Recover indexes the commit's chunks again to learn their counts. A
// search uses the totals only when they describe the lexical index's
// commit and count every chunk in it (countTotals.statsAt); otherwise (an index
// an older braid wrote, one whose counts fell out of step) it counts as
// before, and the next commit counts every chunk of the store once
// (seedCounts), checked against a full count, to start again.

var (
	bucketBM25 = []byte("bm25") // chunk id -> termCounts (encode)
	keyBM25    = []byte("bm25") // in meta: countTotals as JSON
)

// statsFields are the fields of the lexical index, in the order a
// chunk's counts are encoded.
var statsFields = [...]string{"_id", fieldContent, fieldTitle, fieldHeadings, fieldDoc, fieldSource, fieldPath, fieldTags}

// termCounts is how many distinct terms a chunk has in each of
// statsFields.
type termCounts [len(statsFields)]uint64

// countsVersion leads an encoded termCounts.
const countsVersion = 1

func (c termCounts) encode() []byte {
	b := make([]byte, 1, 1+len(c)*2)
	b[0] = countsVersion
	for _, n := range c {
		b = binary.AppendUvarint(b, n)
	}
	return b
}

func decodeCounts(b []byte) (termCounts, bool) {
	var c termCounts
	if len(b) == 0 || b[0] != countsVersion {
		return c, false
	}
	b = b[1:]
	for i := range c {
		n, k := binary.Uvarint(b)
		if k <= 0 {
			return c, false
		}
		c[i], b = n, b[k:]
	}
	return c, len(b) == 0
}

// docCounts counts the distinct terms of each field of doc, a document
// bleve analysed (one not yet analysed is analysed here as scorch does).
// A field given several values (tags) counts the terms of all of them
// once.
func docCounts(doc *document.Document) (termCounts, error) {
	var (
		c     termCounts
		first [len(statsFields)]bleveindex.TokenFrequencies
		union [len(statsFields)]map[string]struct{}
		err   error
	)
	doc.VisitFields(func(f bleveindex.Field) {
		if !f.Options().IsIndexed() || err != nil {
			return
		}
		i := slices.Index(statsFields[:], f.Name())
		if i < 0 {
			err = fmt.Errorf("index: field %q is not one the BM25 counts know", f.Name())
			return
		}
		freq := f.AnalyzedTokenFrequencies()
		if freq == nil {
			f.Analyze()
			freq = f.AnalyzedTokenFrequencies()
		}
		switch {
		case first[i] == nil && union[i] == nil:
			first[i] = freq
			c[i] = uint64(len(freq))
		default:
			if union[i] == nil {
				union[i] = make(map[string]struct{}, len(first[i])+len(freq))
				for t := range first[i] {
					union[i][t] = struct{}{}
				}
			}
			for t := range freq {
				union[i][t] = struct{}{}
			}
			c[i] = uint64(len(union[i]))
		}
	})
	return c, err
}

// countTotals is the sum of the counts of every chunk in the bm25 bucket,
// which are the chunks of the lexical index at commit Gen that have
// counts (all of them when Docs is its document count).
type countTotals struct {
	Gen    uint64            `json:"gen"`
	Docs   uint64            `json:"docs"`
	Fields map[string]uint64 `json:"fields"`
	// Failed: the counts of the store's chunks did not add up to a full
	// count of the lexical index (one an older braid built with other
	// fields). The statistics are then counted as before until the
	// lexical index is rebuilt.
	Failed bool `json:"failed,omitempty"`
}

func (t *countTotals) add(c termCounts, sign int) bool {
	if sign < 0 {
		if t.Docs == 0 {
			return false
		}
		t.Docs--
	} else {
		t.Docs++
	}
	for i, n := range c {
		f := statsFields[i]
		if sign < 0 {
			if t.Fields[f] < n {
				return false
			}
			t.Fields[f] -= n
		} else {
			t.Fields[f] += n
		}
	}
	return true
}

func (t *countTotals) stats() *search.BM25Stats {
	st := &search.BM25Stats{DocCount: float64(t.Docs), FieldCardinality: make(map[string]int, len(statsFields)+len(unnamedFields))}
	for _, f := range unnamedFields {
		st.FieldCardinality[f] = 0
	}
	for _, f := range statsFields {
		st.FieldCardinality[f] = int(t.Fields[f])
	}
	return st
}

func zeroTotals(gen uint64) *countTotals {
	return &countTotals{Gen: gen, Fields: map[string]uint64{}}
}

func readTotals(meta *bolt.Bucket) *countTotals {
	v := meta.Get(keyBM25)
	if v == nil {
		return nil
	}
	t := new(countTotals)
	if json.Unmarshal(v, t) != nil || t.Fields == nil {
		return nil
	}
	return t
}

func putTotals(meta *bolt.Bucket, t *countTotals) error {
	js, err := json.Marshal(t)
	if err != nil {
		return err
	}
	return meta.Put(keyBM25, js)
}

// batchCounts is what one lexical batch did, for moveCounts: the chunks it
// deleted and the counts of those it indexed. A nil *batchCounts is a
// batch whose counts are unknown.
type batchCounts struct {
	del []string
	add map[string]termCounts
}

// moveCounts moves the totals, which must be at lexical commit from, by
// the batch b that took the lexical index from commit from to commit to.
// Totals at another commit, failed or damaged stay as they are; a nil b
// leaves them behind. A store that never had totals starts from zero
// when it has no counts (a new store, whose first batch this is).
func moveCounts(tx *bolt.Tx, from, to uint64, b *batchCounts) error {
	meta, bucket := tx.Bucket(bucketMeta), tx.Bucket(bucketBM25)
	t := readTotals(meta)
	if t == nil && from == 0 && bucket != nil && bucket.Stats().KeyN == 0 {
		t = zeroTotals(0)
	}
	if t == nil || t.Failed || t.Gen != from || b == nil || bucket == nil {
		return nil
	}
	ok := true
	take := func(id string) error {
		v := bucket.Get([]byte(id))
		if v == nil {
			return nil
		}
		c, good := decodeCounts(v)
		ok = ok && good && t.add(c, -1)
		return bucket.Delete([]byte(id))
	}
	for _, id := range b.del {
		if err := take(id); err != nil {
			return err
		}
	}
	for _, id := range slices.Sorted(maps.Keys(b.add)) { // bbolt writes sorted keys best
		if err := take(id); err != nil { // indexed again: its old counts go
			return err
		}
		c := b.add[id]
		if err := bucket.Put([]byte(id), c.encode()); err != nil {
			return err
		}
		t.add(c, 1)
	}
	if !ok {
		// A count that does not decode or takes a total below zero: the
		// totals are wrong; the next commit counts them again.
		return meta.Delete(keyBM25)
	}
	t.Gen = to
	return putTotals(meta, t)
}

// totals reads the store's totals; nil when it has none (or they do not
// decode).
func (s *Store) totals() *countTotals {
	var t *countTotals
	_ = s.view(func(tx *bolt.Tx) error {
		t = readTotals(tx.Bucket(bucketMeta))
		return nil
	})
	return t
}

// statsAt returns the BM25 statistics t gives for the lexical index at
// commit gen holding docs chunks; nil unless t is at that commit and
// counts every chunk.
func (t *countTotals) statsAt(gen, docs uint64) *search.BM25Stats {
	if !t.at(gen) || t.Docs != docs {
		return nil
	}
	return t.stats()
}

// at says whether t is at lexical commit gen and can move (not failed).
func (t *countTotals) at(gen uint64) bool { return t != nil && !t.Failed && t.Gen == gen }

// failed says whether a count of the store's chunks failed to match the
// lexical index (countTotals.Failed).
func (t *countTotals) failed() bool { return t != nil && t.Failed }

// resetCounts drops every chunk's counts and sets the totals to t (nil: none).
func (s *Store) resetCounts(t *countTotals) error {
	return s.update(func(tx *bolt.Tx) error {
		if tx.Bucket(bucketBM25) != nil {
			if err := tx.DeleteBucket(bucketBM25); err != nil {
				return err
			}
		}
		if _, err := tx.CreateBucket(bucketBM25); err != nil {
			return err
		}
		meta := tx.Bucket(bucketMeta)
		if t == nil {
			return meta.Delete(keyBM25)
		}
		return putTotals(meta, t)
	})
}

// keepCounts moves the totals by a batch outside a commit (see
// moveCounts): RebuildLexical's batches, all at one commit.
func (s *Store) keepCounts(from, to uint64, b *batchCounts) error {
	return s.update(func(tx *bolt.Tx) error { return moveCounts(tx, from, to, b) })
}

// putCounts stores counts of chunks without moving the totals (seedCounts).
func (s *Store) putCounts(counts map[string]termCounts) error {
	return s.update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketBM25)
		for _, id := range slices.Sorted(maps.Keys(counts)) {
			if err := b.Put([]byte(id), counts[id].encode()); err != nil {
				return err
			}
		}
		return nil
	})
}

// chunkPage returns up to n chunks whose ids follow after, in id order,
// so a long walk can write between pages.
func (s *Store) chunkPage(after string, n int) ([]*Chunk, error) {
	var out []*Chunk
	err := s.view(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketChunks).Cursor()
		k, v := c.Seek([]byte(after))
		if k != nil && after != "" && string(k) == after {
			k, v = c.Next()
		}
		for ; k != nil && len(out) < n; k, v = c.Next() {
			ch := new(Chunk)
			if err := json.Unmarshal(v, ch); err != nil {
				return err
			}
			out = append(out, ch)
		}
		return nil
	})
	return out, err
}

// seedPage is how many chunks seedCounts reads and writes at a time.
const seedPage = 2048

// seedCounts counts every chunk of the store, as the lexical index at its
// commit holds them, and keeps the counts and their totals, after
// checking the totals against a full count of the lexical index: once
// for an index whose counts are missing or out of step. The store and the
// lexical index must be at the same commit with nothing pending. When
// they differ the totals are marked failed (see countTotals.Failed) and
// the full count is what l uses.
func seedCounts(s *Store, l *Lexical) error {
	gen, err := l.Gen()
	if err != nil {
		return err
	}
	if err := s.resetCounts(nil); err != nil {
		return err
	}
	t := zeroTotals(gen)
	after := ""
	for {
		page, err := s.chunkPage(after, seedPage)
		if err != nil || len(page) == 0 {
			if err != nil {
				return err
			}
			break
		}
		meta := storeMeta(s)
		counts := make(map[string]termCounts, len(page))
		for _, c := range page {
			doc, err := l.document(c, meta(c.DocID))
			if err != nil {
				return err
			}
			doc.AddIDField()
			n, err := docCounts(doc)
			if err != nil {
				return err
			}
			counts[c.ID] = n
			t.add(n, 1)
		}
		if err := s.putCounts(counts); err != nil {
			return err
		}
		after = page[len(page)-1].ID
	}
	counted, err := l.countStats()
	if err != nil {
		return err
	}
	if !sameStats(t.stats(), counted) {
		t = &countTotals{Gen: gen, Fields: map[string]uint64{}, Failed: true}
		if err := s.resetCounts(t); err != nil {
			return err
		}
		l.setStats(gen, counted, false)
		return nil
	}
	if err := s.update(func(tx *bolt.Tx) error { return putTotals(tx.Bucket(bucketMeta), t) }); err != nil {
		return err
	}
	l.setStats(gen, counted, true)
	return nil
}

// sameStats says whether a and b score alike: the same document count
// and, for every field either names, the same count (a field one of them
// lacks counts 0).
func sameStats(a, b *search.BM25Stats) bool {
	if a.DocCount != b.DocCount {
		return false
	}
	for f, n := range a.FieldCardinality {
		if b.FieldCardinality[f] != n {
			return false
		}
	}
	for f, n := range b.FieldCardinality {
		if a.FieldCardinality[f] != n {
			return false
		}
	}
	return true
}

// StatsCheck compares the BM25 statistics meta.db keeps for the lexical
// index (see StatsFrom) with a full count of it, for braid doctor: kept
// is false when the store keeps none for the index's commit (they are
// then counted when a search needs them), same whether the kept ones
// agree with the count.
func (l *Lexical) StatsCheck() (kept, same bool, err error) {
	l.statsMu.Lock()
	s := l.store
	l.statsMu.Unlock()
	if s == nil {
		return false, false, nil
	}
	var gen, n uint64
	var st *search.BM25Stats
	err = l.guard(func() (err error) {
		if gen, err = l.Gen(); err != nil {
			return err
		}
		if n, err = l.idx.DocCount(); err != nil {
			return err
		}
		if st = s.totals().statsAt(gen, n); st == nil {
			return nil
		}
		counted, err := l.countStats()
		same = err == nil && sameStats(st, counted)
		return err
	})
	return st != nil, same, err
}
