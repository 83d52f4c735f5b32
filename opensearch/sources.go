package opensearch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/opensearch-project/opensearch-go/v4/opensearchapi"
)

// Field names in the source-record index.
const (
	fieldID     = "id"
	fieldRecord = "record"
)

// sourcesIndexBody is the source-record index. The record is kept as it
// was given, never parsed into fields, so its shape is the engine's
// business.
func sourcesIndexBody(o Options) map[string]any {
	return smallIndexBody(o, map[string]any{
		fieldID:     map[string]any{"type": "keyword"},
		fieldRecord: map[string]any{"type": "object", "enabled": false},
	})
}

// sourceDoc is a source record's _source.
type sourceDoc struct {
	ID     string          `json:"id"`
	Record json.RawMessage `json:"record"`
}

// PutSource stores record, a JSON object the engine defines, as source
// id's record, replacing any earlier one; Sources sees it when PutSource
// returns.
func (x *Index) PutSource(ctx context.Context, id string, record []byte) error {
	switch {
	case id == "":
		return fmt.Errorf("opensearch: put source: empty source ID")
	case len(id) > 512:
		return fmt.Errorf("opensearch: put source: ID is %d bytes, OpenSearch allows 512", len(id))
	case !isObject(record):
		return fmt.Errorf("opensearch: put source %s: the record is not a JSON object: %.40q", id, record)
	}
	var body bytes.Buffer
	enc := json.NewEncoder(&body)
	if err := enc.Encode(map[string]any{"index": map[string]any{"_index": x.sources, "_id": id}}); err != nil {
		return fmt.Errorf("opensearch: put source %s: %w", id, err)
	}
	if err := enc.Encode(sourceDoc{ID: id, Record: record}); err != nil {
		return fmt.Errorf("opensearch: put source %s: %w", id, err)
	}
	failed, err := x.bulk(ctx, "put source", &body, []string{id}, "true")
	if err != nil {
		return err
	}
	if len(failed) > 0 {
		return fmt.Errorf("opensearch: put source %s in %s: %s", id, x.sources, failed[0].Reason)
	}
	return nil
}

// isObject reports whether b is one valid JSON object.
func isObject(b []byte) bool {
	b = bytes.TrimSpace(b)
	return len(b) > 0 && b[0] == '{' && json.Valid(b)
}

// Sources returns every source record, by source ID. Each record is the
// JSON object PutSource was given, without its insignificant spaces.
func (x *Index) Sources(ctx context.Context) (map[string][]byte, error) {
	out := map[string][]byte{}
	q := map[string]any{
		"size":             batch,
		"sort":             []any{map[string]any{fieldID: "asc"}},
		"track_total_hits": false,
	}
	err := x.pages(ctx, "list sources", x.sources, q, func(hits []opensearchapi.SearchHit) error {
		for _, h := range hits {
			var d sourceDoc
			if err := json.Unmarshal(h.Source, &d); err != nil {
				return fmt.Errorf("opensearch: list sources in %s: source %s: %w", x.sources, h.ID, err)
			}
			out[h.ID] = []byte(d.Record)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// DeleteSource deletes source id: it records its documents' removal
// (Gone), deletes its chunks, its file hashes and then its record, so a
// failure part way leaves the record, and running DeleteSource again
// finishes the job. A source that does not exist is not an error.
func (x *Index) DeleteSource(ctx context.Context, id string) error {
	if id == "" {
		// A term query for "" would delete every chunk without a source.
		return fmt.Errorf("opensearch: delete source: empty source ID")
	}
	term := map[string]any{"term": map[string]any{fieldSource: id}}
	if err := x.goneSource(ctx, id, term); err != nil {
		return err
	}
	if err := x.deleteMatching(ctx, "delete the chunks of source "+id, x.name, term); err != nil {
		return err
	}
	if err := x.deleteMatching(ctx, "delete the file hashes of source "+id, x.files, term); err != nil {
		return err
	}
	var body bytes.Buffer
	if err := json.NewEncoder(&body).Encode(map[string]any{"delete": map[string]any{"_index": x.sources, "_id": id}}); err != nil {
		return fmt.Errorf("opensearch: delete source %s: %w", id, err)
	}
	failed, err := x.bulk(ctx, "delete source", &body, []string{id}, "true")
	if err != nil {
		return err
	}
	if len(failed) > 0 {
		return fmt.Errorf("opensearch: delete source %s in %s: %s", id, x.sources, failed[0].Reason)
	}
	return nil
}

// goneSource records the removal of every document of source id (term
// matches its chunks) at one new generation.
func (x *Index) goneSource(ctx context.Context, id string, term any) error {
	var docs []string
	q := map[string]any{
		"size":             batch,
		"query":            map[string]any{"bool": map[string]any{"filter": append(recordFilter(), term)}},
		"sort":             []any{map[string]any{fieldDoc: "asc"}},
		"_source":          []string{fieldDoc},
		"track_total_hits": false,
	}
	err := x.pages(ctx, "list the documents of source "+id, x.name, q, func(hits []opensearchapi.SearchHit) error {
		for _, h := range hits {
			var src struct {
				Doc string `json:"doc"`
			}
			if err := json.Unmarshal(h.Source, &src); err != nil {
				return fmt.Errorf("opensearch: documents of source %s: chunk %s: %w", id, h.ID, err)
			}
			docs = append(docs, src.Doc)
		}
		return nil
	})
	if err != nil || len(docs) == 0 {
		return err
	}
	gen, err := x.NextGen(ctx)
	if err != nil {
		return err
	}
	return x.Gone(ctx, gen, docs)
}
