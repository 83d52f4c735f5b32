// Package index keeps braid's index directory: Store, a bbolt file with
// sources, documents (with their links and tags, for the link graph),
// chunks, embeddings and a commit log, and the lexical index (package
// lexical), a bleve BM25 index over the chunks. Package ingest fills them from the sources; Commit
// writes one batch of its changes to both.
//
// Crash safety: Store.Commit writes the metadata and a Pending record of the
// lexical work in one transaction; lexical.Index.Apply persists that work in one
// bleve batch tagged with the commit number; the transaction that drops
// the record also moves the BM25 statistics Store keeps by what the batch
// indexed (bm25counts.go). Recover finishes a commit a crash interrupted. Readers
// drop lexical hits the store does not know, so they never see half a
// commit.
//
// Concurrency: Store and the lexical index are safe for concurrent use; a writer is
// not (package ingest's Indexer), and indexdir.Lock keeps other processes from
// writing at the same time.
//
//	st, _ := index.OpenStore("meta.db", false)
//	lex, _ := lexical.Open("lexical.bleve", false, st.Stamps("lexical.bleve.verified"))
//	lex.StatsFrom(st.BM25Totals)
//	_ = index.Recover(st, lex)
//	_, _, err := index.Commit(st, lex, changes, nil)
package index
