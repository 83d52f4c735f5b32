package opensearch

import (
	"context"
	"fmt"
	"strconv"

	"github.com/opensearch-project/opensearch-go/v4/opensearchapi"
)

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
