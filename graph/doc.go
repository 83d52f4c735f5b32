// Package graph keeps the link graph of the indexed documents in the
// index's bbolt file and answers questions about it: a document's links and
// backlinks up to five steps away, broken links, orphans, and gaps — pairs
// of similar documents that nothing links.
//
// Ingest (package index) hands it each document's edges as written, in the
// transaction that commits the document, so the graph and the documents
// never disagree, not even after a crash:
//
//	err := graph.Put(tx, graph.Node{ID: id, Path: "ADR/008 Go Backend.md", Title: "Go Backend"}, []graph.Edge{
//		{Type: graph.Cites, Target: "ADR/007 Core Application Logic on the Client", Line: 14},
//		{Type: "supersededBy", Target: "ADR/010 Rust Backend", Line: 9},
//		{Type: graph.TaggedAs, Target: "adr"},
//	})
//	err = graph.Delete(tx, oldID)
//
// Targets are resolved when the graph is read, not when it is written
// (see Reader for the rules): a link to a page that does not exist yet
// reads as broken until the page is indexed, and then resolves without the
// linking document being read again.
//
//	r := graph.Read(tx)
//	out, err := r.Out(id)     // edges written in id, resolved
//	in, err := r.In(id)       // backlinks; In("#adr") lists what is tagged adr
//	steps, err := r.Walk(id, graph.WalkOptions{Depth: 2, Reverse: true, Relation: "supersededBy"})
//	broken, err := r.Broken()
//	orphans, err := r.Orphans()
//
// Gaps compares document vectors (their nearest neighbours in an HNSW
// graph) or, without vectors, tf-idf vectors of their words.
//
// Queries asks these questions the way the engine answers them
// (Engine.Graph): names resolve to documents, a "#tag" starts a backwards
// walk, a cluster's mirror is synced first, and Gaps averages chunk
// embeddings into document vectors. The engine fills in the functions it
// calls; package graph imports neither the engine nor package vector.
//
// # Storage
//
// Three buckets: graph.nodes (id → the node and its edges as JSON),
// graph.names (lower-cased path, file name, title and alias → ids) and
// graph.in (lower-cased link key → the ids of documents with such a link),
// so that resolving a link and finding backlinks are prefix scans. Their
// layout is part of indexdir.SchemaVersion.
//
// # Caveats
//
// A Reader is bound to its transaction and caches what it reads; use one
// per question. Names compare with strings.ToLower, not full Unicode case
// folding. Links to a heading (#heading) resolve to the document, not the
// heading. Obsidian's shortest-path links to a non-markdown file elsewhere
// in the vault (![[image.png]] for assets/image.png) are not found; they
// read as broken unless the file sits beside the linking note or at the
// source root.
package graph
