package opensearch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	osgo "github.com/opensearch-project/opensearch-go/v4"
	"github.com/opensearch-project/opensearch-go/v4/opensearchapi"
)

// MappingVersion is the version of the index mappings below, kept in each
// index's _meta.braid_mapping. Change it with any change to the mappings or
// analysis settings: an index created under another version is reported as
// ErrReindexNeeded, never read with the wrong assumptions.
//
// Version 2 added the chunk's text, heading path, document hash and kind,
// the document's aliases and line count, and the source-record index.
const MappingVersion = 6

// ErrReindexNeeded is wrapped by Open when the index exists but was created
// with another mapping version or vector dimension, or not by braid: its
// chunks cannot be searched as this version expects. Delete the index (or
// pick another Options.Index) and index again.
var ErrReindexNeeded = errors.New("opensearch: re-index needed")

// ErrUnreachable is wrapped by Open when the cluster does not answer at
// Options.URL within Options.Timeout.
var ErrUnreachable = errors.New("opensearch: cluster unreachable")

// Defaults for the zero values of Options.
const (
	DefaultIndex = "braid"
	// DefaultTimeout bounds each request: a bulk write of one batch (500
	// documents, a few thousand chunks) or an index creation on a busy
	// cluster, or a busy machine, can take well over ten seconds.
	DefaultTimeout = 2 * time.Minute
	// DefaultPingTimeout bounds Open's reachability check, so that an
	// address where nothing answers fails in seconds, not minutes.
	DefaultPingTimeout = 30 * time.Second
)

// Options says which cluster and index to use. The zero value of every
// field but URL means its default.
type Options struct {
	// URL is a node's HTTP address, e.g. http://127.0.0.1:9200, or
	// several nodes' separated by commas: requests go to any of them, so
	// losing one node leaves the others reachable. Required.
	URL string
	// Index is the chunk index's name; file hashes go to Index+"-files",
	// source records to Index+"-sources" and the generation counter and
	// tombstones to Index+"-changes". Empty means DefaultIndex ("braid").
	Index string
	// Shards is the number of primary shards of a new index; 0 means 1.
	Shards int
	// Replicas is the number of replicas of each shard of a new index; 0
	// means none (the right value for one node).
	Replicas int
	// Dim is the dimension of chunk vectors; 0 means the index has no
	// vector field and Vector is refused.
	Dim int
	// AnyDim accepts an existing chunk index whatever its dimension (a
	// reader that only searches lexically); Dim is then used only to
	// create a missing index.
	AnyDim bool
	// Timeout bounds the reachability check in Open and every request
	// made without a deadline of its own; 0 means DefaultPingTimeout for
	// the check and DefaultTimeout for each request.
	Timeout time.Duration
}

// Index is a braid chunk index (and its file-hash, source-record and
// change indexes) in an OpenSearch cluster. It is safe for concurrent use; writes
// become visible to searches after Refresh (or OpenSearch's periodic
// refresh).
type Index struct {
	client  *opensearchapi.Client
	url     string
	name    string // the chunk index
	files   string // the file-hash index
	sources string // the source-record index
	changes string // the change index: the generation counter and tombstones
	dim     int
	timeout time.Duration
}

// Open connects to the cluster at o.URL, checks within o.Timeout that it
// answers, and creates the chunk, file-hash, source-record and change
// indexes when they are missing (and the gen field in a chunk index made
// before it). An existing index made with another MappingVersion or
// Dim gives an error wrapping ErrReindexNeeded.
func Open(ctx context.Context, o Options) (*Index, error) {
	if o.Index == "" {
		o.Index = DefaultIndex
	}
	if o.Shards == 0 {
		o.Shards = 1
	}
	ping := o.Timeout
	if o.Timeout == 0 {
		o.Timeout, ping = DefaultTimeout, DefaultPingTimeout
	}
	switch {
	case o.URL == "":
		return nil, errors.New("opensearch: Options.URL is empty, want a node's HTTP address such as http://127.0.0.1:9200")
	case o.Shards < 0 || o.Replicas < 0:
		return nil, fmt.Errorf("opensearch: %d shards and %d replicas, want shards >= 1 and replicas >= 0", o.Shards, o.Replicas)
	case o.Dim < 0:
		return nil, fmt.Errorf("opensearch: vector dimension %d, want 0 (no vectors) or more", o.Dim)
	case o.Timeout < 0:
		return nil, fmt.Errorf("opensearch: timeout %v, want 0 (default) or more", o.Timeout)
	case o.Index != strings.ToLower(o.Index) || strings.ContainsAny(o.Index, ` "*\<|,>/?#:`) || strings.HasPrefix(o.Index, "_") || strings.HasPrefix(o.Index, "-"):
		return nil, fmt.Errorf("opensearch: index name %q is not valid in OpenSearch: want lowercase, without spaces or any of \"*\\<|,>/?#: and not starting with _ or -", o.Index)
	}
	addrs := strings.Split(o.URL, ",")
	for i, a := range addrs {
		addrs[i] = strings.TrimSpace(a)
		u, err := url.Parse(addrs[i])
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("opensearch: URL %q is not an http(s) address, want e.g. http://127.0.0.1:9200 (several separated by commas)", addrs[i])
		}
	}

	client, err := opensearchapi.NewClient(opensearchapi.Config{Client: osgo.Config{
		Addresses: addrs,
		// A request that fails to connect is tried once on each other
		// node, not retried for minutes.
		MaxRetries: len(addrs),
	}})
	if err != nil {
		return nil, fmt.Errorf("opensearch: client for %s: %w", o.URL, err)
	}
	x := &Index{client: client, url: o.URL, name: o.Index, files: o.Index + "-files", sources: o.Index + "-sources", changes: o.Index + "-changes", dim: o.Dim, timeout: o.Timeout}

	pctx, cancel := context.WithTimeout(ctx, ping)
	defer cancel()
	if _, err := client.Info(pctx, nil); err != nil {
		client.Close()
		if ctx.Err() != nil {
			return nil, fmt.Errorf("opensearch: open %s: %w", o.URL, ctx.Err())
		}
		return nil, fmt.Errorf("%w: %s did not answer (timeout %v): %v; start one with scripts/opensearch.sh start, or set the URL of a running node", ErrUnreachable, o.URL, ping, err)
	}

	ctx, cancel = x.bound(ctx)
	defer cancel()
	dim, props, err := x.ensure(ctx, x.name, chunkIndexBody(o), o.Dim, o.AnyDim)
	if err != nil {
		client.Close()
		return nil, err
	}
	x.dim = dim
	if props != nil && props[fieldGen] == nil {
		// Made by a braid before generations: add the field, so that
		// this braid's writes carry it (Changes).
		if err := x.addGen(ctx); err != nil {
			client.Close()
			return nil, err
		}
	}
	for _, small := range []struct {
		name string
		body map[string]any
	}{{x.files, filesIndexBody(o)}, {x.sources, sourcesIndexBody(o)}, {x.changes, changesIndexBody(o)}} {
		if _, _, err := x.ensure(ctx, small.name, small.body, 0, false); err != nil {
			client.Close()
			return nil, err
		}
	}
	return x, nil
}

// Close releases the client's connections. The indexes stay in the cluster.
func (x *Index) Close() {
	x.client.Close()
}

// Name is the chunk index's name in the cluster.
func (x *Index) Name() string { return x.name }

// Refresh makes every write so far visible to searches.
func (x *Index) Refresh(ctx context.Context) error {
	ctx, cancel := x.bound(ctx)
	defer cancel()
	if _, err := x.client.Indices.Refresh(ctx, &opensearchapi.IndicesRefreshReq{Index: []string{x.name, x.files, x.sources, x.changes}}); err != nil {
		return fmt.Errorf("opensearch: refresh %s: %w", x.name, x.explain(err))
	}
	return nil
}

// bound gives ctx the Index's timeout unless it has a deadline already.
func (x *Index) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, x.timeout)
}

// explain adds the node's URL to errors that come from not reaching it.
func (x *Index) explain(err error) error {
	var se *osgo.StructError
	if errors.As(err, &se) || errors.Is(err, context.Canceled) {
		return err
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%w: no answer from %s in time", err, x.url)
	}
	var str *osgo.StringError
	if errors.As(err, &str) {
		return err
	}
	return fmt.Errorf("%w (node %s)", err, x.url)
}

// meta is what braid keeps in an index's _meta.
type meta struct {
	BraidMapping *int `json:"braid_mapping"`
	Dim          *int `json:"dim"`
}

// ensure creates index name with body, or checks that the existing one
// has this mapping version and dimension and returns its fields (nil for
// an index it created).
func (x *Index) ensure(ctx context.Context, name string, body map[string]any, dim int, anyDim bool) (int, map[string]json.RawMessage, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return 0, nil, fmt.Errorf("opensearch: encode mapping of %s: %w", name, err)
	}
	_, err = x.client.Indices.Create(ctx, opensearchapi.IndicesCreateReq{Index: name, Body: strings.NewReader(string(b))})
	if err == nil {
		return dim, nil, nil
	}
	var se *osgo.StructError
	if !errors.As(err, &se) || se.Err.Type != "resource_already_exists_exception" {
		hint := ""
		if dim > 0 && strings.Contains(err.Error(), "index.knn") {
			hint = "; is the k-NN plugin installed on the cluster?"
		}
		return 0, nil, fmt.Errorf("opensearch: create index %s: %w%s", name, x.explain(err), hint)
	}

	resp, err := x.client.Indices.Mapping.Get(ctx, &opensearchapi.MappingGetReq{Indices: []string{name}})
	if err != nil {
		return 0, nil, fmt.Errorf("opensearch: read mapping of %s: %w", name, x.explain(err))
	}
	idx := resp.GetIndices()
	m, ok := idx[name]
	if !ok && len(idx) == 1 { // name is an alias of one index
		for _, v := range idx {
			m = v
		}
	}
	var got struct {
		Meta  meta                       `json:"_meta"`
		Props map[string]json.RawMessage `json:"properties"`
	}
	if len(m.Mappings) > 0 {
		if err := json.Unmarshal(m.Mappings, &got); err != nil {
			return 0, nil, fmt.Errorf("%w: index %s has a _meta braid cannot read (%v): delete it or choose another Options.Index", ErrReindexNeeded, name, err)
		}
	}
	switch {
	case got.Meta.BraidMapping == nil:
		return 0, nil, fmt.Errorf("%w: index %s exists but has no _meta.braid_mapping, so braid did not create it: delete it or choose another Options.Index", ErrReindexNeeded, name)
	case *got.Meta.BraidMapping != MappingVersion:
		return 0, nil, fmt.Errorf("%w: index %s has braid mapping version %d, this braid uses %d: delete the index and index again", ErrReindexNeeded, name, *got.Meta.BraidMapping, MappingVersion)
	}
	gotDim := 0
	if got.Meta.Dim != nil {
		gotDim = *got.Meta.Dim
	}
	if gotDim != dim && !anyDim {
		return 0, nil, fmt.Errorf("%w: index %s holds %d-dimensional vectors, Options.Dim is %d: delete the index and index again, or use its dimension", ErrReindexNeeded, name, gotDim, dim)
	}
	if got.Props == nil {
		got.Props = map[string]json.RawMessage{}
	}
	return gotDim, got.Props, nil
}

// analyzer is the text analysis of content, title and headings: the
// embedded index's (lexical/index.go) in OpenSearch's terms. A character
// filter turns . _ / \ : into spaces, so plant.water_level is indexed as
// plant water level; then the standard tokenizer, English possessives,
// lowercase, English stop words and Porter stemming.
const analyzer = "braid_en"

// stopWords is the embedded index's English stop list (bleve's copy of
// the Snowball list, 174 words), not OpenSearch's shorter _english_ (33):
// the same words must be dropped for BM25 to agree.
func stopWords() []string {
	var out []string
	for _, line := range strings.Split(string(en.EnglishStopWords), "\n") {
		if i := strings.IndexByte(line, '|'); i >= 0 {
			line = line[:i]
		}
		if f := strings.Fields(line); len(f) > 0 {
			out = append(out, f[0])
		}
	}
	return out
}

func analysis() map[string]any {
	return map[string]any{
		"char_filter": map[string]any{
			"braid_split": map[string]any{"type": "pattern_replace", "pattern": `[._/\\:]`, "replacement": " "},
		},
		"filter": map[string]any{
			"braid_possessive": map[string]any{"type": "stemmer", "language": "possessive_english"},
			"braid_stop":       map[string]any{"type": "stop", "stopwords": stopWords()},
		},
		"analyzer": map[string]any{
			analyzer: map[string]any{
				"type":        "custom",
				"char_filter": []string{"braid_split"},
				"tokenizer":   "standard",
				"filter":      []string{"braid_possessive", "lowercase", "braid_stop", "porter_stem"},
			},
		},
	}
}

// Field names in the chunk index.
const (
	fieldContent   = "content"
	fieldTitle     = "title"
	fieldHeadings  = "headings"
	fieldDoc       = "doc"
	fieldSource    = "source"
	fieldPath      = "path"
	fieldTags      = "tags"
	fieldOrd       = "ord"
	fieldStartLine = "start_line"
	fieldEndLine   = "end_line"
	fieldVector    = "vector"
	// Stored for Chunks and DocChunks, not searched.
	fieldText        = "text"
	fieldHeadingPath = "heading_path"
	fieldAliases     = "aliases"
	fieldLines       = "lines"
	fieldDocTitle    = "doc_title" // and fieldRecord, as in the source-record index
	// Keywords: exact values a filter may name.
	fieldDocHash = "doc_hash"
	fieldKind    = "kind"
	// The generation of the write that put the chunk (NextGen), on every
	// chunk an index run writes; absent on a chunk written by a braid
	// before generations.
	fieldGen = "gen"
)

func chunkIndexBody(o Options) map[string]any {
	text := map[string]any{"type": "text", "analyzer": analyzer, "similarity": similarityName}
	keyword := map[string]any{"type": "keyword"}
	integer := map[string]any{"type": "integer"}
	// Kept in _source only: no terms, no doc values, no length limit.
	storedText := map[string]any{"type": "text", "index": false}
	storedKeyword := map[string]any{"type": "keyword", "index": false, "doc_values": false}
	storedInteger := map[string]any{"type": "integer", "index": false, "doc_values": false}
	props := map[string]any{
		fieldContent: text, fieldTitle: text, fieldHeadings: text,
		fieldDoc: keyword, fieldSource: keyword, fieldPath: keyword, fieldTags: keyword,
		fieldDocHash: keyword, fieldKind: keyword,
		fieldOrd: integer, fieldStartLine: integer, fieldEndLine: integer,
		fieldGen:  map[string]any{"type": "long"},
		fieldText: storedText, fieldHeadingPath: storedKeyword, fieldAliases: storedKeyword,
		fieldLines: storedInteger, fieldDocTitle: storedText,
		fieldRecord: map[string]any{"type": "object", "enabled": false},
	}
	settings := map[string]any{
		"number_of_shards":   o.Shards,
		"number_of_replicas": o.Replicas,
		"analysis":           analysis(),
		"similarity": map[string]any{similarityName: map[string]any{
			"type": "scripted", "script": map[string]any{"source": similarity},
		}},
	}
	if o.Dim > 0 {
		settings["knn"] = true
		props[fieldVector] = map[string]any{
			"type":      "knn_vector",
			"dimension": o.Dim,
			// The engine must be named: lucene is pure Java, while faiss
			// and nmslib need native libraries (docs/opensearch.md).
			"method": map[string]any{"name": "hnsw", "engine": "lucene", "space_type": "cosinesimil"},
		}
	}
	return map[string]any{
		"settings": map[string]any{"index": settings},
		"mappings": map[string]any{
			"dynamic": "strict",
			// The vector lives in the k-NN graph only: braid never reads
			// it back, and in _source it would be loaded (and parsed) for
			// every hit a search or a read fetches.
			"_source":    map[string]any{"excludes": []string{fieldVector}},
			"_meta":      map[string]any{"braid_mapping": MappingVersion, "dim": o.Dim},
			"properties": props,
		},
	}
}

// Field names in the file-hash index.
const (
	fieldHash = "hash"
)

// filesIndexBody is the file-hash index.
func filesIndexBody(o Options) map[string]any {
	return smallIndexBody(o, map[string]any{
		fieldSource: map[string]any{"type": "keyword"},
		fieldPath:   map[string]any{"type": "keyword"},
		fieldHash:   map[string]any{"type": "keyword", "index": false},
	})
}

// smallIndexBody is a bookkeeping index beside the chunk index: one small
// shard, as many replicas as the chunk index, a strict mapping of props.
func smallIndexBody(o Options, props map[string]any) map[string]any {
	return map[string]any{
		"settings": map[string]any{"index": map[string]any{"number_of_shards": 1, "number_of_replicas": o.Replicas}},
		"mappings": map[string]any{
			"dynamic":    "strict",
			"_meta":      map[string]any{"braid_mapping": MappingVersion, "dim": 0},
			"properties": props,
		},
	}
}

// Drop deletes the chunk, file-hash, source-record and change indexes from the
// cluster, with everything in them; an index already gone is no error.
// The Index is unusable afterwards.
func (x *Index) Drop(ctx context.Context) error {
	ctx, cancel := x.bound(ctx)
	defer cancel()
	t := true
	_, err := x.client.Indices.Delete(ctx, opensearchapi.IndicesDeleteReq{
		Indices: []string{x.name, x.files, x.sources, x.changes},
		Params:  opensearchapi.IndicesDeleteParams{IgnoreUnavailable: &t},
	})
	if err != nil {
		return fmt.Errorf("opensearch: delete index %s: %w", x.name, x.explain(err))
	}
	return nil
}

// Meta returns the JSON values the engine keeps in the chunk index's
// _meta beside the mapping version (its search settings, the embedding
// model the vectors were made with), by key; a key never set is absent.
func (x *Index) Meta(ctx context.Context) (map[string]json.RawMessage, error) {
	ctx, cancel := x.bound(ctx)
	defer cancel()
	resp, err := x.client.Indices.Mapping.Get(ctx, &opensearchapi.MappingGetReq{Indices: []string{x.name}})
	if err != nil {
		return nil, fmt.Errorf("opensearch: read the _meta of %s: %w", x.name, x.explain(err))
	}
	for _, m := range resp.GetIndices() {
		var got struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		}
		if err := json.Unmarshal(m.Mappings, &got); err != nil {
			return nil, fmt.Errorf("opensearch: read the _meta of %s: %w", x.name, err)
		}
		delete(got.Meta, "braid_mapping")
		delete(got.Meta, "dim")
		return got.Meta, nil
	}
	return map[string]json.RawMessage{}, nil
}

// SetMeta sets one key of the chunk index's _meta (see Meta), keeping
// the others. Two braids setting different keys at once may lose one of
// the writes (OpenSearch replaces _meta whole); the engine sets them
// rarely (a config change, the first embedded chunk).
func (x *Index) SetMeta(ctx context.Context, key string, value json.RawMessage) error {
	if key == "braid_mapping" || key == "dim" {
		return fmt.Errorf("opensearch: _meta key %q is the mapping's own", key)
	}
	meta, err := x.Meta(ctx)
	if err != nil {
		return err
	}
	all := map[string]any{"braid_mapping": MappingVersion, "dim": x.dim}
	for k, v := range meta {
		all[k] = v
	}
	all[key] = value
	body, err := json.Marshal(map[string]any{"_meta": all})
	if err != nil {
		return fmt.Errorf("opensearch: encode _meta: %w", err)
	}
	ctx, cancel := x.bound(ctx)
	defer cancel()
	if _, err := x.client.Indices.Mapping.Put(ctx, opensearchapi.MappingPutReq{Indices: []string{x.name}, Body: bytes.NewReader(body)}); err != nil {
		return fmt.Errorf("opensearch: save %s in the _meta of %s: %w", key, x.name, x.explain(err))
	}
	return nil
}

// Health is the cluster's view of the chunk index.
type Health struct {
	Cluster    string // the cluster's name
	Status     string // green (every shard and replica assigned), yellow (a replica is not) or red (a shard is not)
	Nodes      int
	Unassigned int // shards (primaries and replicas) not on any node
}

// Health asks the cluster how the chunk index's shards stand.
func (x *Index) Health(ctx context.Context) (Health, error) {
	ctx, cancel := x.bound(ctx)
	defer cancel()
	resp, err := x.client.Cluster.Health(ctx, &opensearchapi.ClusterHealthReq{Indices: []string{x.name}})
	if err != nil {
		return Health{}, fmt.Errorf("opensearch: health of %s: %w", x.name, x.explain(err))
	}
	return Health{Cluster: resp.ClusterName, Status: resp.Status, Nodes: resp.NumberOfNodes, Unassigned: resp.UnassignedShards}, nil
}
