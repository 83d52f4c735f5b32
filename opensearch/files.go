package opensearch

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/opensearch-project/opensearch-go/v4/opensearchapi"
)

// filesPage is how many file hashes one FileHashes request reads.
const filesPage = 1000

// fileID is the _id of a file's hash: a hash of source and path, since a
// path may be longer than OpenSearch's 512-byte _id.
func fileID(source, path string) string {
	h := sha256.Sum256([]byte(source + "\x00" + path))
	return hex.EncodeToString(h[:])
}

// fileDoc is a file's _source in the file-hash index.
type fileDoc struct {
	Source string `json:"source"`
	Path   string `json:"path"`
	Hash   string `json:"hash"`
}

// FileHashes returns every file of source that SetFileHashes recorded, as
// path → hash, so that an index run can skip the files that did not
// change.
func (x *Index) FileHashes(ctx context.Context, source string) (map[string]string, error) {
	out := map[string]string{}
	q := map[string]any{
		"size":             filesPage,
		"query":            map[string]any{"bool": map[string]any{"filter": []any{map[string]any{"term": map[string]any{fieldSource: source}}}}},
		"sort":             []any{map[string]any{fieldPath: "asc"}},
		"_source":          []string{fieldPath, fieldHash},
		"track_total_hits": false,
	}
	err := x.pages(ctx, "file hashes of "+source, x.files, q, func(hits []opensearchapi.SearchHit) error {
		for _, h := range hits {
			var d fileDoc
			if err := json.Unmarshal(h.Source, &d); err != nil {
				return fmt.Errorf("opensearch: file hashes of %s: entry %s: %w", source, h.ID, err)
			}
			out[d.Path] = d.Hash
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// SetFileHashes records the hashes in set (path → hash) for source and
// forgets the paths in remove, in one bulk request that is visible to
// FileHashes when it returns. Entries that fail are returned in a
// *BulkError naming their paths; the rest are applied.
func (x *Index) SetFileHashes(ctx context.Context, source string, set map[string]string, remove []string) error {
	var (
		body bytes.Buffer
		ids  []string // paths, in request order
	)
	enc := json.NewEncoder(&body)
	paths := make([]string, 0, len(set))
	for p := range set {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, p := range paths {
		if err := enc.Encode(map[string]any{"index": map[string]any{"_index": x.files, "_id": fileID(source, p)}}); err != nil {
			return fmt.Errorf("opensearch: encode file hash of %s: %w", p, err)
		}
		if err := enc.Encode(fileDoc{Source: source, Path: p, Hash: set[p]}); err != nil {
			return fmt.Errorf("opensearch: encode file hash of %s: %w", p, err)
		}
		ids = append(ids, p)
	}
	for _, p := range remove {
		if _, ok := set[p]; ok {
			continue // set wins over remove
		}
		if err := enc.Encode(map[string]any{"delete": map[string]any{"_index": x.files, "_id": fileID(source, p)}}); err != nil {
			return fmt.Errorf("opensearch: encode removal of %s: %w", p, err)
		}
		ids = append(ids, p)
	}
	failed, err := x.bulk(ctx, "set file hashes", &body, ids, "true")
	if err != nil {
		return err
	}
	return bulkError("set file hashes", len(ids), failed)
}
