// Package embedded is the retriever of the embedded index: a search's
// candidates from one index directory's bleve BM25 index (package
// lexical) and HNSW graph (package vector), and their text read back from
// its bbolt store (package index). Package cluster is the other
// retriever, over an OpenSearch cluster; the engine ranks both lists the
// same way (the root package's search.go).
//
// The HNSW graph cannot filter while it walks: Vector tests each
// neighbour it reads against the request's filters (Retriever.Keep, the
// engine's notes.Reader.Keep), once per document.
//
// A Retriever is safe for concurrent use when the store, the lexical
// index and the graph it reads are.
package embedded
