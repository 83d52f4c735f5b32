// Package opensearch stores braid's chunks in an OpenSearch cluster and
// retrieves them: the storage side of an OpenSearch backend, beside the
// embedded one (bleve + our HNSW graph in index/ and vector/). It is not
// wired into the engine yet.
//
// One Index holds three OpenSearch indexes: the chunk index (Options.Index,
// default "braid") with BM25 text fields, keyword fields for filters,
// fields kept only to be read back (the chunk's text, heading path, the
// document's aliases and line count) and, when Options.Dim > 0, a
// knn_vector field (Lucene HNSW, cosine); Options.Index+"-files", the hash
// of each indexed file per source, so a re-index of unchanged files sends
// nothing; Options.Index+"-sources", one opaque JSON record per source
// (an indexed folder or file), which OpenSearch stores without parsing;
// and Options.Index+"-changes", a generation counter (NextGen) and a
// tombstone per removed document (Gone), so that a reader's copy of the
// document records follows the writes by reading only what changed
// (RecordsSince, GoneSince, RecordSum).
//
// The text analysis matches the embedded index's as closely as OpenSearch
// allows: . _ / \ : become spaces (plant.water_level is plant water level),
// then the standard tokenizer, English possessives, lowercase, English
// stop words and Porter stemming; title and headings are searched with the
// weights the query gives them (LexQuery; 0, braid's default, leaves them
// out), as in the embedded index. Lexical takes the
// parts of the engine's query syntax that reach the index (free terms,
// phrases, excluded words, fuzziness) and builds the same boolean query
// as the embedded index; Filter.PathGlob filters paths with the embedded
// index's glob semantics (index.Matcher), as a Lucene regexp query.
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
//	err = x.PutSource(ctx, id, record) // record: the engine's JSON object for the source
//	err = x.Put(ctx, docs)             // a *BulkError names the chunks that were not indexed
//	err = x.Refresh(ctx)
//	f := opensearch.Filter{Sources: []string{id}, PathGlob: "notes/**/*.md"}
//	lex, total, err := x.Lexical(ctx, opensearch.LexQuery{Terms: "water level", Phrases: []string{"tomato plants"}}, f, 50)
//	vec, err := x.Vector(ctx, queryVector, f, 50)
//	chunks, err := x.Chunks(ctx, []string{lex[0].ChunkID}) // text, heading path, ... for snippets
//	err = x.DeleteDocs(ctx, []string{removedDocID})
//	err = x.DeleteSource(ctx, id) // its record, chunks and file hashes
//
// Caveats:
//   - Writes are visible to searches after Refresh or OpenSearch's periodic
//     refresh (1 s by default). Chunks reads the latest writes at once;
//     SetFileHashes, PutSource, DeleteDocs and DeleteSource refresh what
//     they wrote themselves.
//   - DeleteDocs and DeleteSource search for what to delete and delete it
//     in bulk, 500 at a time, rather than with _delete_by_query, which
//     clusters without OpenSearch's reindex module (such as the tests')
//     lack. They are not atomic: after an error, call them again.
//   - Count's document count is exact up to 40,000 documents and an
//     estimate above (a cardinality aggregation).
//   - BM25 statistics are per shard: with several shards and few chunks,
//     scores differ from the embedded index's.
//   - Filter.PathRegexp is a Lucene regular expression, anchored at both
//     ends, not Go's syntax; Filter.PathGlob is the engine's glob.
//   - The mapping's version is MappingVersion; an index with another version
//     or dimension is never read: Open returns ErrReindexNeeded. A chunk
//     index made before generations gets the gen field added by Open; its
//     old chunks have none (Record.Gen 0).
//   - Tombstones are never removed: one small document per removed
//     document, read only by readers that passed their generation.
//   - Vector mappings always name the lucene engine: faiss and nmslib need
//     native libraries (docs/opensearch.md).
package opensearch
