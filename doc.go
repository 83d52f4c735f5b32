// Package braid is a local hybrid search engine for knowledge bases:
// markdown notes with frontmatter, tags and [[wikilinks]], docs and code.
//
// An Engine lives in one index directory, or, with Options.Backend, in an
// OpenSearch cluster that several processes share (package cluster; the link
// graph and navigation then read a local copy of the documents, and the
// document store, grep and gaps stay embedded-only). Index registers sources
// (directories, single files, BEIR JSONL corpora) and brings the index in
// step with them: changed files are re-indexed, unchanged ones skipped by
// content hash, vanished ones removed. Search answers hybrid queries over
// heading-aware chunks: BM25 and vector candidates fused under a per-query
// vector weight (lexical only without an embedding model), then ranking
// signals (document evidence, a backlink prior) and the cross-encoder,
// one hit per document by default, each with a
// snippet, highlight ranges, a line range and, on request, an explanation of
// its score, running BM25 beside the query embedding. Grep runs a regular
// expression over the current files of the indexed documents.
//
// The rest of the engine is grouped behind five accessors. Sources lists
// the registered sources and removes one. Notes (package notes) reads
// documents: a name resolved to a document, its current content, a chunk's
// neighbours and excerpts, citations, what an id names, the folder tree,
// listings and find-by-name. Graph walks the link graph
// ([[wikilinks]], embeds, markdown links, tags and frontmatter relations)
// forwards or backwards, finds broken links and orphans, and lists gaps
// (similar documents nothing links). Store (package docstore) is the
// document store: Add keeps documents that live in no source in the
// index's content-addressed store, and Update, Delete, Versions,
// Collections and snapshots manage them. Config holds the index's settings,
// the defaults its searches take. Tag writes tags into a note. Ask gathers
// the evidence for a question: Search's best chunks, de-duplicated, cited
// and fitted to a token budget, for a caller that writes the answer itself.
//
//	e, err := braid.Open(".braid", nil)
//	if err != nil { … }
//	defer e.Close()
//	sum, err := e.Index(ctx, []braid.SourceSpec{{Path: "notes"}}, nil)
//	res, err := e.Search(ctx, "how do plugins load", braid.SearchOptions{Limit: 5})
//
// Caveats: one process writes an index at a time (a second writer gets
// ErrLocked at once); readers in other processes are refused while a writer
// runs. The engine reads no environment variables and prints nothing.
package braid
