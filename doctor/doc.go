// Package doctor checks an index's health and repairs what can be repaired
// from the index itself.
//
// Three kinds of check live here. The directory-level ones (CheckFiles,
// Files, Repair) look at the files of an index directory: VERSION, meta.db,
// lexical.bleve and the vectors-*.hnsw graphs. An engine opening an index
// checks the same files with indexdir.Version and OpenLexical (the lexical
// index against its store, through lexical.Check), and Size is the
// directory's bytes for braid stats. The directory's layout, VERSION and
// lock are package indexdir's; the lexical index's own checks are package
// lexical's. The engine-level one
// (Consistency) compares the parts of an open index with each other: the
// store and the lexical index commit for commit and chunk for chunk, the
// link graph, the vectors, the document store's blobs and the sources'
// paths. The engine hands it the open handles (Handles); the package never
// imports the root package, which keeps Check as an alias. And one
// check is of the machine, not the index: RerankLatency loads the
// cross-encoder and times it (TimeReranker) scoring a default search's 50
// pairs against the design's 50 ms (RerankTarget), and when it misses,
// Judge names the registry cross-encoder predicted to keep it
// (model.Faster); search --explain says the same of a slow rerank call
// (SlowNote).
//
// Every failed check names the file and the fix, and Repair returns one
// line per action it took.
//
// Caveats: CheckFiles and Repair take the index's lock (a read lock and a
// write lock); Files and Consistency take none and read through the
// handles they are given, so they suit an engine other goroutines use.
package doctor
