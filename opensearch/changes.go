package opensearch

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"unicode/utf16"

	"github.com/opensearch-project/opensearch-go/v4/opensearchapi"
)

// The change index (Options.Index+"-changes") holds what a reader needs
// to follow the chunk index's document records without reading them all
// again: the generation counter, one document whose _version OpenSearch
// raises atomically on every NextGen, and a tombstone per removed
// document, with the generation of its removal. Every chunk an index run
// writes carries the generation of its write (Doc.Gen), so the records
// changed since a reader's last look are those with a higher one
// (RecordsSince), and the documents removed since are the tombstones with
// a higher one (GoneSince).

// genID is the _id of the generation counter in the change index; a
// tombstone's _id is a hex hash, never this.
const genID = "gen"

// changesIndexBody is the change index.
func changesIndexBody(o Options) map[string]any {
	return smallIndexBody(o, map[string]any{
		fieldDoc: map[string]any{"type": "keyword"},
		fieldGen: map[string]any{"type": "long"},
	})
}

// goneID is the _id of document docID's tombstone: a hash, since a
// document ID may be longer than OpenSearch's 512-byte _id.
func goneID(docID string) string {
	h := sha256.Sum256([]byte(docID))
	return hex.EncodeToString(h[:])
}

// addGen adds the generation field to a chunk index made before it
// existed, so that writes can carry it.
func (x *Index) addGen(ctx context.Context) error {
	body := `{"properties":{"` + fieldGen + `":{"type":"long"}}}`
	if _, err := x.client.Indices.Mapping.Put(ctx, opensearchapi.MappingPutReq{Indices: []string{x.name}, Body: strings.NewReader(body)}); err != nil {
		return fmt.Errorf("opensearch: add the %s field to %s (made by an older braid): %w", fieldGen, x.name, x.explain(err))
	}
	return nil
}

// NextGen returns a new generation, higher than every one returned
// before by any process on the cluster: the version of the counter
// document in the change index, which OpenSearch raises atomically.
func (x *Index) NextGen(ctx context.Context) (int64, error) {
	ctx, cancel := x.bound(ctx)
	defer cancel()
	resp, err := x.client.Index(ctx, opensearchapi.IndexReq{Index: x.changes, DocumentID: genID, Body: strings.NewReader("{}")})
	if err != nil {
		return 0, fmt.Errorf("opensearch: next generation in %s: %w", x.changes, x.explain(err))
	}
	return int64(resp.Version), nil
}

// Gone records the removal of documents docIDs at generation gen, so that
// a reader past an earlier generation removes them too (GoneSince). Call
// it before removing their chunks: a reader that sees the tombstone
// before the removal drops a document that is about to go. Put removes a
// document's tombstone when it writes its record again.
func (x *Index) Gone(ctx context.Context, gen int64, docIDs []string) error {
	for len(docIDs) > 0 {
		n := min(len(docIDs), batch)
		var body bytes.Buffer
		enc := json.NewEncoder(&body)
		for _, id := range docIDs[:n] {
			if err := enc.Encode(map[string]any{"index": map[string]any{"_index": x.changes, "_id": goneID(id)}}); err != nil {
				return fmt.Errorf("opensearch: encode the tombstone of %s: %w", id, err)
			}
			if err := enc.Encode(map[string]any{fieldDoc: id, fieldGen: gen}); err != nil {
				return fmt.Errorf("opensearch: encode the tombstone of %s: %w", id, err)
			}
		}
		failed, err := x.bulk(ctx, "record removals", &body, docIDs[:n], "true")
		if err != nil {
			return err
		}
		if err := bulkError("record removals", n, failed); err != nil {
			return err
		}
		docIDs = docIDs[n:]
	}
	return nil
}

// Record is a document's record in the chunk index, as RecordsSince
// reads it.
type Record struct {
	DocID string
	// Gen is the generation of the write that put it; 0 for one written
	// by a braid before generations.
	Gen int64
	// Hash is the document's content hash (Doc.DocHash).
	Hash string
	// Data is the record (Doc.Record); empty for a document whose first
	// chunk has none.
	Data json.RawMessage
}

// recordFilter matches the chunks that carry a document's record (or
// would: the first chunk of each document).
func recordFilter() []any {
	return []any{map[string]any{"exists": map[string]any{"field": fieldDocHash}}, map[string]any{"term": map[string]any{fieldOrd: 0}}}
}

// RecordsSince calls fn with every document record of a generation
// higher than after, lowest generation first, a page of 500 per request;
// after < 0 reads every record, those without a generation too, in
// document ID order.
func (x *Index) RecordsSince(ctx context.Context, after int64, fn func(Record) error) error {
	filter := recordFilter()
	sort := []any{map[string]any{fieldDoc: "asc"}}
	if after >= 0 {
		filter = append(filter, map[string]any{"range": map[string]any{fieldGen: map[string]any{"gt": after}}})
		sort = []any{map[string]any{fieldGen: "asc"}, map[string]any{fieldDoc: "asc"}}
	}
	q := map[string]any{
		"size":             batch,
		"query":            map[string]any{"bool": map[string]any{"filter": filter}},
		"sort":             sort,
		"_source":          []string{fieldDoc, fieldGen, fieldDocHash, fieldRecord},
		"track_total_hits": false,
	}
	return x.pages(ctx, "read document records", x.name, q, func(hits []opensearchapi.SearchHit) error {
		for _, h := range hits {
			var src struct {
				Doc    string          `json:"doc"`
				Gen    int64           `json:"gen"`
				Hash   string          `json:"doc_hash"`
				Record json.RawMessage `json:"record"`
			}
			if err := json.Unmarshal(h.Source, &src); err != nil {
				return fmt.Errorf("opensearch: document records in %s: chunk %s: %w", x.name, h.ID, err)
			}
			if err := fn(Record{DocID: src.Doc, Gen: src.Gen, Hash: src.Hash, Data: src.Record}); err != nil {
				return err
			}
		}
		return nil
	})
}

// GoneSince calls fn with every document removed at a generation higher
// than after (Gone), lowest generation first, with that generation.
func (x *Index) GoneSince(ctx context.Context, after int64, fn func(docID string, gen int64) error) error {
	q := map[string]any{
		"size": batch,
		"query": map[string]any{"bool": map[string]any{"filter": []any{
			map[string]any{"exists": map[string]any{"field": fieldDoc}},
			map[string]any{"range": map[string]any{fieldGen: map[string]any{"gt": after}}},
		}}},
		"sort":             []any{map[string]any{fieldGen: "asc"}, map[string]any{fieldDoc: "asc"}},
		"_source":          []string{fieldDoc, fieldGen},
		"track_total_hits": false,
	}
	return x.pages(ctx, "read removals", x.changes, q, func(hits []opensearchapi.SearchHit) error {
		for _, h := range hits {
			var src struct {
				Doc string `json:"doc"`
				Gen int64  `json:"gen"`
			}
			if err := json.Unmarshal(h.Source, &src); err != nil {
				return fmt.Errorf("opensearch: removals in %s: %s: %w", x.changes, h.ID, err)
			}
			if err := fn(src.Doc, src.Gen); err != nil {
				return err
			}
		}
		return nil
	})
}

// RecordSums is what RecordSum returns: enough to tell whether a copy of
// the document records is current without reading them.
type RecordSums struct {
	// Count is the number of documents' first chunks.
	Count int
	// Gens is the sum of their generations (0 for none).
	Gens int64
	// Hashes is the sum of HashCode of their content hashes.
	Hashes int64
}

// RecordSum counts the documents whose first chunk RecordsSince reads
// and sums their generations and content hashes (HashCode), as of the
// last refresh, in one request: a copy with the same sums has every
// record (a missed write changes the count, the generations' sum or,
// for a write without a generation, the hashes').
func (x *Index) RecordSum(ctx context.Context) (RecordSums, error) {
	resp, err := x.query(ctx, "sum the document records", x.name, map[string]any{
		"size":             0,
		"track_total_hits": true,
		"query":            map[string]any{"bool": map[string]any{"filter": recordFilter()}},
		"aggs": map[string]any{
			"gens":   map[string]any{"sum": map[string]any{"field": fieldGen, "missing": 0}},
			"hashes": map[string]any{"sum": map[string]any{"script": map[string]any{"lang": "painless", "source": "doc['" + fieldDocHash + "'].value.hashCode()"}}},
		},
	})
	if err != nil {
		return RecordSums{}, err
	}
	var aggs struct {
		Gens, Hashes struct {
			Value float64 `json:"value"`
		}
	}
	if err := json.Unmarshal(resp.Aggregations, &aggs); err != nil {
		return RecordSums{}, fmt.Errorf("opensearch: sum the document records in %s: %w", x.name, err)
	}
	// Doubles: exact while the sums stay under 2^53 (a million documents
	// of generations under a billion; hash codes are under 2^31).
	return RecordSums{Count: resp.Hits.Total.Value, Gens: int64(math.Round(aggs.Gens.Value)), Hashes: int64(math.Round(aggs.Hashes.Value))}, nil
}

// HashCode is the hash RecordSum sums for a content hash: Java's
// String.hashCode, which the cluster's script computes.
func HashCode(s string) int32 {
	var h int32
	for _, c := range utf16.Encode([]rune(s)) {
		h = 31*h + int32(c)
	}
	return h
}

// UUID is the chunk index's UUID: the same for as long as the index
// exists, another once it is deleted and made again, so a copy of its
// records kept across runs can tell it is still the index it copied.
func (x *Index) UUID(ctx context.Context) (string, error) {
	ctx, cancel := x.bound(ctx)
	defer cancel()
	resp, err := x.client.Indices.Settings.Get(ctx, &opensearchapi.SettingsGetReq{Indices: []string{x.name}, Settings: []string{"index.uuid"}})
	if err != nil {
		return "", fmt.Errorf("opensearch: read the UUID of %s: %w", x.name, x.explain(err))
	}
	for _, ix := range resp.GetIndices() {
		var s struct {
			Index struct {
				UUID string `json:"uuid"`
			} `json:"index"`
		}
		if err := json.Unmarshal(ix.Settings, &s); err != nil {
			return "", fmt.Errorf("opensearch: read the UUID of %s: %w", x.name, err)
		}
		if s.Index.UUID != "" {
			return s.Index.UUID, nil
		}
	}
	return "", fmt.Errorf("opensearch: %s has no UUID in its settings", x.name)
}
