package lexical

import (
	"context"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/search"
	bleveindex "github.com/blevesearch/bleve_index_api"
)

// The BM25 statistics (see Stats) are kept in meta.db and moved by
// each lexical batch instead of counted again over the whole lexical
// index, which is linear in the index: every term of every field, a term
// reader per term (140 ms at 7.3k chunks, some 20 s at a million, for
// every edited note).
//
// Each chunk's counts, the number of distinct terms bleve indexed in each
// of its fields (its share of FieldCardinality), are read from the
// documents bleve analysed for the batch that indexed it, so they are
// what the index holds, and kept under the chunk's id in the bm25 bucket
// (index's bucketBM25): a delete subtracts exactly what the add added. The
// totals are kept in the meta bucket with the lexical commit they describe
// and the number of chunks counted. Package index keeps them (its
// bm25counts.go); this package counts them and reads them back
// (StatsFrom).
//
// The lexical batch and the meta.db transaction are two commits. The
// counts move in the transaction that clears the commit's pending record
// (index.Store's clearPending), so a crash between the two leaves the
// record, and index.Recover indexes the commit's chunks again to learn
// their counts. A search uses the totals only when they describe the
// lexical index's commit and count every chunk in it (Totals.StatsAt);
// otherwise (an index
// an older braid wrote, one whose counts fell out of step) it counts as
// before, and the next commit counts every chunk of the store once
// (index's seedCounts, with ChunkCounts), checked against a full count, to
// start again.

// statsFields are the fields of the lexical index, in the order a
// chunk's counts are encoded.
var statsFields = [...]string{"_id", fieldContent, fieldTitle, fieldHeadings, fieldDoc, fieldSource, fieldPath, fieldTags}

// Counts is how many distinct terms a chunk has in each of
// statsFields.
type Counts [len(statsFields)]uint64

// countsVersion leads an encoded Counts.
const countsVersion = 1

// Encode is c as the store keeps it under the chunk's id.
func (c Counts) Encode() []byte {
	b := make([]byte, 1, 1+len(c)*2)
	b[0] = countsVersion
	for _, n := range c {
		b = binary.AppendUvarint(b, n)
	}
	return b
}

// DecodeCounts reads counts Encode wrote; false when b is not such.
func DecodeCounts(b []byte) (Counts, bool) {
	var c Counts
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
func docCounts(doc *document.Document) (Counts, error) {
	var (
		c     Counts
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

// ChunkCounts is the counts of chunk c of a document with meta m, as
// Apply would index it, without indexing it (index's seedCounts).
func (l *Index) ChunkCounts(c *Chunk, m ChunkMeta) (Counts, error) {
	doc, err := l.document(c, m)
	if err != nil {
		return Counts{}, err
	}
	doc.AddIDField()
	return docCounts(doc)
}

// Totals is the sum of the counts of every chunk in the bm25 bucket,
// which are the chunks of the lexical index at commit Gen that have
// counts (all of them when Docs is its document count).
type Totals struct {
	Gen    uint64            `json:"gen"`
	Docs   uint64            `json:"docs"`
	Fields map[string]uint64 `json:"fields"`
	// Failed: the counts of the store's chunks did not add up to a full
	// count of the lexical index (one an older braid built with other
	// fields). The statistics are then counted as before until the
	// lexical index is rebuilt.
	Failed bool `json:"failed,omitempty"`
}

// Add adds (sign 1) or takes away (sign -1) one chunk's counts; false
// when that takes a total below zero.
func (t *Totals) Add(c Counts, sign int) bool {
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

// Stats is the BM25 statistics t gives (see StatsAt).
func (t *Totals) Stats() *search.BM25Stats {
	st := &search.BM25Stats{DocCount: float64(t.Docs), FieldCardinality: make(map[string]int, len(statsFields)+len(unnamedFields))}
	for _, f := range unnamedFields {
		st.FieldCardinality[f] = 0
	}
	for _, f := range statsFields {
		st.FieldCardinality[f] = int(t.Fields[f])
	}
	return st
}

// ZeroTotals is the totals of an empty index at commit gen.
func ZeroTotals(gen uint64) *Totals {
	return &Totals{Gen: gen, Fields: map[string]uint64{}}
}

// BatchCounts is what one lexical batch did, for the store to move its
// totals by (index's moveCounts): the chunks it
// deleted and the counts of those it indexed. A nil *BatchCounts is a
// batch whose counts are unknown.
type BatchCounts struct {
	Del []string
	Add map[string]Counts
}

// StatsAt returns the BM25 statistics t gives for the lexical index at
// commit gen holding docs chunks; nil unless t is at that commit and
// counts every chunk.
func (t *Totals) StatsAt(gen, docs uint64) *search.BM25Stats {
	if !t.At(gen) || t.Docs != docs {
		return nil
	}
	return t.Stats()
}

// At says whether t is at lexical commit gen and can move (not failed).
func (t *Totals) At(gen uint64) bool { return t != nil && !t.Failed && t.Gen == gen }

// HasFailed says whether a count of the store's chunks failed to match
// the lexical index (Totals.Failed).
func (t *Totals) HasFailed() bool { return t != nil && t.Failed }

// SameStats says whether a and b score alike: the same document count
// and, for every field either names, the same count (a field one of them
// lacks counts 0).
func SameStats(a, b *search.BM25Stats) bool {
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
func (l *Index) StatsCheck(ctx context.Context) (kept, same bool, err error) {
	l.statsMu.Lock()
	totals := l.totals
	l.statsMu.Unlock()
	if totals == nil {
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
		if st = totals().StatsAt(gen, n); st == nil {
			return nil
		}
		counted, err := l.CountStats(ctx)
		same = err == nil && SameStats(st, counted)
		return err
	})
	return st != nil, same, err
}
