package opensearch

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/opensearch-project/opensearch-go/v4/opensearchapi"
)

// Records calls fn with the Record of every document that has one, in
// document ID order, a page of batch documents per request.
func (x *Index) Records(ctx context.Context, fn func(docID string, record json.RawMessage) error) error {
	q := map[string]any{
		"size":             batch,
		"query":            map[string]any{"bool": map[string]any{"filter": []any{map[string]any{"exists": map[string]any{"field": fieldDocHash}}, map[string]any{"term": map[string]any{fieldOrd: 0}}}}},
		"sort":             []any{map[string]any{fieldDoc: "asc"}},
		"_source":          []string{fieldDoc, fieldRecord},
		"track_total_hits": false,
	}
	return x.pages(ctx, "read document records", x.name, q, func(hits []opensearchapi.SearchHit) error {
		for _, h := range hits {
			var src struct {
				Doc    string          `json:"doc"`
				Record json.RawMessage `json:"record"`
			}
			if err := json.Unmarshal(h.Source, &src); err != nil {
				return fmt.Errorf("opensearch: document records in %s: chunk %s: %w", x.name, h.ID, err)
			}
			if len(src.Record) == 0 {
				continue
			}
			if err := fn(src.Doc, src.Record); err != nil {
				return err
			}
		}
		return nil
	})
}

// Version is a value that changes whenever the chunk index does (a write,
// a delete, a node's restart), so a reader can tell whether what it read
// before is still current: the primaries' document count and their
// indexing and deletion counters.
func (x *Index) Version(ctx context.Context) (string, error) {
	ctx, cancel := x.bound(ctx)
	defer cancel()
	resp, err := x.client.Indices.Stats(ctx, &opensearchapi.IndicesStatsReq{Indices: []string{x.name}, Metrics: []string{"docs", "indexing"}})
	if err != nil {
		return "", fmt.Errorf("opensearch: statistics of %s: %w", x.name, x.explain(err))
	}
	p := resp.All.Primaries
	return strconv.Itoa(p.Docs.Count) + "/" + strconv.Itoa(p.Indexing.IndexTotal) + "/" + strconv.Itoa(p.Indexing.DeleteTotal), nil
}
