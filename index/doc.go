// Package index keeps braid's index directory in step with its sources.
//
// Ingest walks a source (a directory honouring .gitignore, a single file,
// a BEIR JSONL corpus, or the objects under an s3:// prefix, listed with
// package bucket and skipped by ETag when unchanged, their content kept in
// the blob store), hashes every file with sha256 to skip unchanged ones,
// parses markdown (package markdown) and chunks it (package chunk), and
// commits batches of changed documents to two stores: Store, a bbolt
// file with sources, documents (with their links and tags, for the link
// graph), chunks and a commit log; and the lexical index (package lexical),
// a bleve BM25 index over the chunks.
//
// Crash safety: Store.Commit writes the metadata and a Pending record of the
// lexical work in one transaction; lexical.Index.Apply persists that work in one
// bleve batch tagged with the commit number; the transaction that drops
// the record also moves the BM25 statistics Store keeps by what the batch
// indexed (bm25counts.go). Recover finishes a commit a crash interrupted. Readers
// drop lexical hits the store does not know, so they never see half a
// commit.
//
// Concurrency: Store and the lexical index are safe for concurrent use; an
// Indexer is not, and indexdir.Lock keeps other processes from writing at
// the same time.
//
//	st, _ := index.OpenStore("meta.db", false)
//	lex, _ := lexical.Open("lexical.bleve", false, st.Stamps("lexical.bleve.verified"))
//	lex.StatsFrom(st.BM25Totals)
//	_ = index.Recover(st, lex)
//	ix := &index.Indexer{Store: st, Lexical: lex}
//	var sum index.Summary
//	err := ix.Index(ctx, src, &sum)
package index
