package opensearch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/opensearch-project/opensearch-go/v4/opensearchapi"
)

// Doc is one chunk as stored in the chunk index.
type Doc struct {
	ChunkID string // the document _id
	DocID   string // the document (file) the chunk belongs to
	Source  string // the source's ID
	Path    string // the file's path within its source
	Title   string
	// Headings is the chunk's heading path as one string.
	Headings string
	// Content is the flat BM25 field; the embedded index puts the title,
	// the heading path and the chunk text there.
	Content   string
	Tags      []string
	Ord       int // position within the document, from 0
	StartLine int
	EndLine   int
	// Vector is the chunk's embedding, Options.Dim long, or nil for none.
	// Chunks and DocChunks leave it nil.
	Vector []float32

	// Text is the chunk's own text, for snippets and reranking; it is
	// stored, not searched (Content is).
	Text string
	// HeadingPath is the chunk's headings, outermost first; stored, not
	// searched (Headings is).
	HeadingPath []string
	// DocHash is the document's content hash and Kind its kind
	// ("markdown", "text", "code", "beir", ...); both are exact keywords.
	DocHash string
	Kind    string
	// Aliases are the document's other names and Lines its line count;
	// stored, not searched.
	Aliases []string
	Lines   int
	// DocTitle is the document's title as shown in results; stored, not
	// searched (Title is, and may differ: the embedded index adds the
	// path to it and leaves a corpus record's out).
	DocTitle string
	// Record is the whole document as the engine describes it (a JSON
	// object: links, headings, frontmatter), kept on the document's first
	// chunk (Ord 0); stored unparsed, read by RecordsSince.
	Record json.RawMessage
	// Gen is the generation of the write (NextGen), by which readers find
	// what changed since they last looked; 0 for none.
	Gen int64
}

// source is a Doc's _source in the chunk index.
type source struct {
	Content   string    `json:"content"`
	Title     string    `json:"title"`
	Headings  string    `json:"headings"`
	Doc       string    `json:"doc"`
	Source    string    `json:"source"`
	Path      string    `json:"path"`
	Tags      []string  `json:"tags,omitempty"`
	Ord       int       `json:"ord"`
	StartLine int       `json:"start_line"`
	EndLine   int       `json:"end_line"`
	Vector    []float32 `json:"vector,omitempty"`

	Text        string   `json:"text,omitempty"`
	HeadingPath []string `json:"heading_path,omitempty"`
	DocHash     string   `json:"doc_hash,omitempty"`
	Kind        string   `json:"kind,omitempty"`
	Aliases     []string `json:"aliases,omitempty"`
	Lines       int      `json:"lines,omitempty"`
	DocTitle    string   `json:"doc_title,omitempty"`

	Record json.RawMessage `json:"record,omitempty"`
	Gen    int64           `json:"gen,omitempty"`
}

func toSource(d Doc) source {
	return source{
		Content: d.Content, Title: d.Title, Headings: d.Headings,
		Doc: d.DocID, Source: d.Source, Path: d.Path, Tags: d.Tags,
		Ord: d.Ord, StartLine: d.StartLine, EndLine: d.EndLine, Vector: d.Vector,
		Text: d.Text, HeadingPath: d.HeadingPath, DocHash: d.DocHash, Kind: d.Kind,
		Aliases: d.Aliases, Lines: d.Lines, DocTitle: d.DocTitle, Record: d.Record, Gen: d.Gen,
	}
}

// doc is the chunk with ID id whose _source is s.
func (s source) doc(id string) *Doc {
	return &Doc{
		ChunkID: id, DocID: s.Doc, Source: s.Source, Path: s.Path,
		Title: s.Title, Headings: s.Headings, Content: s.Content, Tags: s.Tags,
		Ord: s.Ord, StartLine: s.StartLine, EndLine: s.EndLine, Vector: s.Vector,
		Text: s.Text, HeadingPath: s.HeadingPath, DocHash: s.DocHash, Kind: s.Kind,
		Aliases: s.Aliases, Lines: s.Lines, DocTitle: s.DocTitle,
	}
}

// BulkError lists the items of a write that were not applied; the others
// were. Put, Delete and SetFileHashes return it.
type BulkError struct {
	Op    string      // "put", "delete" or "set file hashes"
	Total int         // items in the request
	Items []ItemError // the failed ones, in request order
}

// ItemError is one item of a bulk write that was not applied.
type ItemError struct {
	ID     string // the chunk ID (for SetFileHashes, the file's path)
	Status int    // OpenSearch's HTTP status for the item; 0 when braid refused it before sending
	Reason string // why, in OpenSearch's words where it refused it
}

func (e *BulkError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "opensearch: %s: %d of %d items failed: ", e.Op, len(e.Items), e.Total)
	const show = 3
	for i, it := range e.Items {
		if i == show {
			fmt.Fprintf(&b, "; and %d more", len(e.Items)-show)
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%s: %s", it.ID, it.Reason)
	}
	return b.String()
}

// Put indexes docs in one bulk request, replacing chunks with the same
// ChunkID. Docs braid can tell are bad (an empty ChunkID, a vector of the
// wrong length, all zeros or with NaN or infinite values) are not sent; those and the
// ones OpenSearch rejects are returned in a *BulkError, and all the others
// are indexed. A document's first chunk (Ord 0) removes the document's
// tombstone (Gone), if it has one. Call Refresh to make them searchable
// at once.
func (x *Index) Put(ctx context.Context, docs []Doc) error {
	if len(docs) == 0 {
		return nil
	}
	var (
		body bytes.Buffer
		ids  []string // of the items sent, in order
		bad  []ItemError
	)
	enc := json.NewEncoder(&body)
	for _, d := range docs {
		if reason := x.check(d); reason != "" {
			bad = append(bad, ItemError{ID: d.ChunkID, Reason: reason})
			continue
		}
		action := map[string]any{"index": map[string]any{"_index": x.name, "_id": d.ChunkID}}
		src := toSource(d)
		if err := enc.Encode(action); err != nil {
			return fmt.Errorf("opensearch: encode chunk %s: %w", d.ChunkID, err)
		}
		if err := enc.Encode(src); err != nil {
			return fmt.Errorf("opensearch: encode chunk %s: %w", d.ChunkID, err)
		}
		ids = append(ids, d.ChunkID)
		if d.Ord == 0 && d.Record != nil {
			if err := enc.Encode(map[string]any{"delete": map[string]any{"_index": x.changes, "_id": goneID(d.DocID)}}); err != nil {
				return fmt.Errorf("opensearch: encode chunk %s: %w", d.ChunkID, err)
			}
			ids = append(ids, d.ChunkID)
		}
	}
	failed, err := x.bulk(ctx, "put", &body, ids, "")
	if err != nil {
		return err
	}
	return bulkError("put", len(docs), append(bad, failed...))
}

// check says what is wrong with d before it is sent, or "".
func (x *Index) check(d Doc) string {
	switch {
	case d.ChunkID == "":
		return "empty chunk ID"
	case len(d.ChunkID) > 512:
		return fmt.Sprintf("chunk ID is %d bytes, OpenSearch allows 512", len(d.ChunkID))
	case d.Vector == nil:
		return ""
	case x.dim == 0:
		return "has a vector, but the index has none (Options.Dim 0)"
	case len(d.Vector) != x.dim:
		return fmt.Sprintf("vector has %d dimensions, the index wants %d", len(d.Vector), x.dim)
	}
	zero := true
	for i, v := range d.Vector {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return fmt.Sprintf("vector[%d] is %v, want a finite number", i, v)
		}
		zero = zero && v == 0
	}
	if zero {
		return "vector is all zeros, which has no cosine similarity"
	}
	return ""
}

// Delete removes the chunks with these IDs; IDs not in the index are
// ignored.
func (x *Index) Delete(ctx context.Context, chunkIDs []string) error {
	if len(chunkIDs) == 0 {
		return nil
	}
	var body bytes.Buffer
	enc := json.NewEncoder(&body)
	for _, id := range chunkIDs {
		if err := enc.Encode(map[string]any{"delete": map[string]any{"_index": x.name, "_id": id}}); err != nil {
			return fmt.Errorf("opensearch: encode delete of %s: %w", id, err)
		}
	}
	failed, err := x.bulk(ctx, "delete", &body, chunkIDs, "")
	if err != nil {
		return err
	}
	return bulkError("delete", len(chunkIDs), failed)
}

func bulkError(op string, total int, items []ItemError) error {
	if len(items) == 0 {
		return nil
	}
	return &BulkError{Op: op, Total: total, Items: items}
}

// bulk sends an NDJSON bulk body whose items have these ids, in order,
// and returns the items OpenSearch did not apply. A delete of a missing
// document is not a failure. refresh is the bulk refresh parameter.
func (x *Index) bulk(ctx context.Context, op string, body *bytes.Buffer, ids []string, refresh string) ([]ItemError, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	ctx, cancel := x.bound(ctx)
	defer cancel()
	resp, err := x.client.Bulk(ctx, opensearchapi.BulkReq{Body: body, Params: opensearchapi.BulkParams{Refresh: refresh}})
	if err != nil {
		return nil, fmt.Errorf("opensearch: %s %d items: %w", op, len(ids), x.explain(err))
	}
	if len(resp.Items) != len(ids) {
		return nil, fmt.Errorf("opensearch: %s: sent %d items, OpenSearch answered for %d", op, len(ids), len(resp.Items))
	}
	var failed []ItemError
	for i, m := range resp.Items {
		for action, it := range m {
			if it.Error == nil || (action == "delete" && it.Status == 404) {
				continue
			}
			reason := it.Error.Type + ": " + firstLine(it.Error.Reason)
			if c := it.Error.Cause; c.Reason != "" {
				reason += " (caused by " + c.Type + ": " + firstLine(c.Reason) + ")"
			}
			failed = append(failed, ItemError{ID: ids[i], Status: it.Status, Reason: reason})
		}
	}
	return failed, nil
}

// firstLine is s up to its first newline: OpenSearch's reasons may go on
// with a parser's location report.
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return strings.TrimSpace(s[:i])
	}
	return s
}
