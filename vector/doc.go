// Package vector is an in-process approximate nearest-neighbour index of
// unit-length float32 vectors keyed by chunk id: a hierarchical navigable
// small world (HNSW) graph, safe for concurrent use, saved to and loaded
// from one versioned file.
//
//	x := vector.New(384, nil)
//	err := x.Add("notes/plugins.md#3", embedding)
//	hits, err := x.Search(query, 10) // best first, Score = cosine similarity
//	x.SetGen(storeCommit)
//	err = x.Save(path)               // whole: temp file, fsync, rename
//	x, err = vector.Load(path, nil)  // ErrFormat: rebuild from the embeddings
//	x.Add(id, v); x.SetGen(next)
//	err = x.Save(path)               // a few changes: appended to LogPath(path)
//	err = vector.Verify(path)        // every byte, the vectors' checksum too
//
// A Save of an index loaded from path, or last saved there, appends what
// changed since (new nodes with their vectors, the links of every node an
// insert rewired, tombstones, the gen) as one checksummed record to the
// file's change log and leaves the file alone, until the log would pass an
// eighth of the file: then Save writes the file whole and removes the log.
// Load replays the log's sound records; a record cut short by a crash or
// still being written is dropped, and a log written for another file is
// ignored, so a reader sees the graph as some Save left it (log.go).
//
// Load reads the graph's nodes and links and maps the vectors from the
// file into memory (read-only, where the system maps files) instead of
// reading them, so opening a graph costs its links, not its vectors, and
// the vectors are not on the Go heap; those the log adds are read into
// memory beside them, as are those added later: the mapped ones never
// change and never move (a rebuild makes a new graph in memory). Load checks every link and the nodes' checksum; the
// vectors' own checksum is Verify's (braid doctor).
//
// Vectors are normalised on the way in, so Score is the cosine similarity
// even for a query that is not unit length. Options.EfSearch trades
// latency for recall; its default is sized for the hardest case measured
// (uniformly random 384-d vectors, recall@10 >= 0.98 at 10,000 vectors).
//
// Caveats:
//
//   - Delete and replacing Add leave tombstones that searches walk through
//     but never return. When they reach a third of the graph, the mutation
//     that crossed the line rebuilds the graph from the live vectors while
//     holding the write lock, so that one call takes about as long as
//     building the index afresh (see BenchmarkAdd); searches wait for it.
//   - Level draws use a fixed-seed generator, stored in the file, so the
//     same adds build the same graph.
//   - The graph is this package's own. github.com/coder/hnsw v0.6.1, which
//     go.mod also names, was tried first and measured at recall@10 of 0.01
//     to 0.08 (random) and about 0.5 (clustered) at 10,000 vectors whatever
//     the candidate list size; its Add panics when replacing a key, and
//     its Delete can leave an empty top layer that makes Search panic.
//     BenchmarkCoderHNSW10k keeps the recall comparison reproducible.
package vector
