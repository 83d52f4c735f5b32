package opensearch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/opensearch-project/opensearch-go/v4/opensearchapi"
)

// batch is how many IDs one multi-get, delete-by-query or page of
// DocChunks handles.
const batch = 500

// Chunks returns the chunks with these IDs, in the order of ids, with nil
// for an ID the index does not hold. Vector is left nil: it is not read.
// It sends one multi-get per 500 IDs and sees every write at once, without
// waiting for a Refresh.
func (x *Index) Chunks(ctx context.Context, ids []string) ([]*Doc, error) {
	out := make([]*Doc, 0, len(ids))
	for len(ids) > 0 {
		n := min(len(ids), batch)
		got, err := x.mget(ctx, ids[:n])
		if err != nil {
			return nil, err
		}
		out = append(out, got...)
		ids = ids[n:]
	}
	return out, nil
}

func (x *Index) mget(ctx context.Context, ids []string) ([]*Doc, error) {
	body, err := json.Marshal(map[string]any{"ids": ids})
	if err != nil {
		return nil, fmt.Errorf("opensearch: get %d chunks: encode request: %w", len(ids), err)
	}
	ctx, cancel := x.bound(ctx)
	defer cancel()
	resp, err := x.client.MGet(ctx, opensearchapi.MGetReq{
		Index:  x.name,
		Body:   bytes.NewReader(body),
		Params: opensearchapi.MGetParams{SourceExcludes: []string{fieldVector, fieldRecord}},
	})
	if err != nil {
		return nil, fmt.Errorf("opensearch: get %d chunks from %s: %w", len(ids), x.name, x.explain(err))
	}
	if len(resp.Docs) != len(ids) {
		return nil, fmt.Errorf("opensearch: get chunks from %s: asked for %d, OpenSearch answered for %d", x.name, len(ids), len(resp.Docs))
	}
	out := make([]*Doc, len(ids))
	for i, d := range resp.Docs {
		if d.Error != nil {
			return nil, fmt.Errorf("opensearch: get chunk %s from %s: %s: %s", ids[i], x.name, d.Error.Type, firstLine(d.Error.Reason))
		}
		if !d.Found {
			continue
		}
		var src source
		if err := json.Unmarshal(d.Source, &src); err != nil {
			return nil, fmt.Errorf("opensearch: get chunk %s from %s: %w", ids[i], x.name, err)
		}
		out[i] = src.doc(d.ID)
	}
	return out, nil
}

// DocChunks returns every chunk of the document docID, ordered by Ord,
// without their vectors; none for a document the index does not hold. It
// sees the writes made visible by Refresh. It pages on Ord, 500 chunks a
// request, so the chunks of one document must have distinct Ords (as the
// chunker gives them).
func (x *Index) DocChunks(ctx context.Context, docID string) ([]*Doc, error) {
	var out []*Doc
	q := map[string]any{
		"size":             batch,
		"query":            map[string]any{"bool": map[string]any{"filter": []any{map[string]any{"term": map[string]any{fieldDoc: docID}}}}},
		"sort":             []any{map[string]any{fieldOrd: "asc"}},
		"_source":          map[string]any{"excludes": []string{fieldVector, fieldRecord}},
		"track_total_hits": false,
	}
	err := x.pages(ctx, "chunks of document "+docID, x.name, q, func(hits []opensearchapi.SearchHit) error {
		for _, h := range hits {
			var src source
			if err := json.Unmarshal(h.Source, &src); err != nil {
				return fmt.Errorf("opensearch: chunks of document %s: chunk %s: %w", docID, h.ID, err)
			}
			out = append(out, src.doc(h.ID))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// DeleteDocs removes every chunk of the documents docIDs, 500 documents
// at a time, and refreshes so that searches no longer find them. See
// deleteMatching for how, and for what a failure part way leaves.
func (x *Index) DeleteDocs(ctx context.Context, docIDs []string) error {
	for len(docIDs) > 0 {
		n := min(len(docIDs), batch)
		what := fmt.Sprintf("delete the chunks of %d documents", n)
		if n == 1 {
			what = "delete the chunks of document " + docIDs[0]
		}
		if err := x.deleteMatching(ctx, what, x.name, map[string]any{"terms": map[string]any{fieldDoc: docIDs[:n]}}); err != nil {
			return err
		}
		docIDs = docIDs[n:]
	}
	return nil
}

// deleteMatching deletes every document of index that filter matches: it
// searches for up to 500 of their IDs, deletes those in one bulk request
// that refreshes the index, and goes on until the search finds none, so
// documents added while it runs that match are deleted too. This is
// _delete_by_query done by hand: that endpoint lives in OpenSearch's
// reindex module, which a cluster assembled from jars (as the tests' is,
// see docs/opensearch.md) lacks. What was deleted before an error stays
// deleted; running the same call again deletes the rest.
func (x *Index) deleteMatching(ctx context.Context, what, index string, filter any) error {
	var last map[string]bool // the IDs deleted in the round before
	for {
		resp, err := x.query(ctx, what, index, map[string]any{
			"size":             batch,
			"query":            map[string]any{"bool": map[string]any{"filter": []any{filter}}},
			"_source":          false,
			"track_total_hits": false,
		})
		if err != nil {
			return err
		}
		hits := resp.Hits.Hits
		if len(hits) == 0 {
			return nil
		}
		var body bytes.Buffer
		enc := json.NewEncoder(&body)
		ids := make([]string, len(hits))
		deleted := make(map[string]bool, len(hits))
		for i, h := range hits {
			if last[h.ID] {
				// Deleted with refresh, yet found: going on would loop.
				return fmt.Errorf("opensearch: %s in %s: %s is still found after its deletion was refreshed; is something writing it again?", what, index, h.ID)
			}
			ids[i] = h.ID
			deleted[h.ID] = true
			if err := enc.Encode(map[string]any{"delete": map[string]any{"_index": index, "_id": h.ID}}); err != nil {
				return fmt.Errorf("opensearch: %s: encode delete of %s: %w", what, h.ID, err)
			}
		}
		failed, err := x.bulk(ctx, what, &body, ids, "true")
		if err != nil {
			return err
		}
		if len(failed) > 0 {
			return &BulkError{Op: what, Total: len(ids), Items: failed}
		}
		last = deleted
	}
}

// cardinalityThreshold is the precision threshold of Count's distinct
// document count: OpenSearch's highest, below which the count is exact
// (barring a hash collision).
const cardinalityThreshold = 40000

// Count returns how many chunks the index holds and of how many distinct
// documents, as of the last Refresh. The document count is exact up to
// 40,000 documents and an estimate (within a few percent) above.
func (x *Index) Count(ctx context.Context) (chunks, docs int, err error) {
	resp, err := x.query(ctx, "count", x.name, map[string]any{
		"size":             0,
		"track_total_hits": true,
		"aggs": map[string]any{
			"docs": map[string]any{"cardinality": map[string]any{"field": fieldDoc, "precision_threshold": cardinalityThreshold}},
		},
	})
	if err != nil {
		return 0, 0, err
	}
	var aggs struct {
		Docs struct {
			Value int `json:"value"`
		} `json:"docs"`
	}
	if err := json.Unmarshal(resp.Aggregations, &aggs); err != nil {
		return 0, 0, fmt.Errorf("opensearch: count in %s: read the document count: %w", x.name, err)
	}
	return resp.Hits.Total.Value, aggs.Docs.Value, nil
}
