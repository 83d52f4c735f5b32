// Package opensearch stores braid's chunks in an OpenSearch cluster and
// retrieves them: the storage side of an OpenSearch backend, beside the
// embedded one (bleve + our HNSW graph in index/ and vector/). It is not
// wired into the engine yet.
//
// One Index holds two OpenSearch indexes: the chunk index (Options.Index,
// default "braid") with BM25 text fields, keyword fields for filters and,
// when Options.Dim > 0, a knn_vector field (Lucene HNSW, cosine); and
// Options.Index+"-files", the hash of each indexed file per source, so a
// re-index of unchanged files sends nothing.
//
// The text analysis matches the embedded index's as closely as OpenSearch
// allows: . _ / \ : become spaces (plant.water_level is plant water level),
// then the standard tokenizer, English possessives, lowercase, English
// stop words and Porter stemming; title and headings are searched with the
// embedded boosts (1.0 and 0.3 relative to content).
//
// There is no hybrid query: OpenSearch's neural-search plugin, which has
// one, is not on Maven Central (docs/opensearch.md). Lexical and Vector
// return separate candidate lists for the client-side fusion in fusion/.
//
//	x, err := opensearch.Open(ctx, opensearch.Options{URL: "http://127.0.0.1:9200", Dim: 384})
//	if err != nil {
//		return err // errors.Is(err, opensearch.ErrReindexNeeded): delete the index and index again
//	}
//	defer x.Close()
//	err = x.Put(ctx, docs) // a *BulkError names the chunks that were not indexed
//	err = x.Refresh(ctx)
//	lex, err := x.Lexical(ctx, "water level", opensearch.Filter{Sources: []string{id}}, 50)
//	vec, err := x.Vector(ctx, queryVector, opensearch.Filter{Sources: []string{id}}, 50)
//
// Caveats:
//   - Writes are visible to searches after Refresh or OpenSearch's periodic
//     refresh (1 s by default); SetFileHashes refreshes the file-hash index
//     itself, so FileHashes sees its writes at once.
//   - BM25 statistics are per shard: with several shards and few chunks,
//     scores differ from the embedded index's.
//   - Filter.PathRegexp is a Lucene regular expression, anchored at both
//     ends, not Go's syntax nor the engine's path globs.
//   - The mapping's version is MappingVersion; an index with another version
//     or dimension is never read: Open returns ErrReindexNeeded.
//   - Vector mappings always name the lucene engine: faiss and nmslib need
//     native libraries (docs/opensearch.md).
package opensearch
