// Package vector is an in-process approximate nearest-neighbour index of
// unit-length vectors keyed by chunk id: a hierarchical navigable small
// world (HNSW) graph, safe for concurrent use, saved to and loaded from
// one versioned file.
//
//	x := vector.New(384, nil)
//	err := x.Add("notes/plugins.md#3", embedding)
//	hits, err := x.Search(query, 10) // best first, Score = cosine similarity
//	x.SetGen(storeCommit)
//	err = x.Save(path)               // whole: temp file, fsync, rename
//	x, err = vector.Load(path, nil)  // ErrFormat: rebuild from the embeddings
//	x.Add(id, v); x.SetGen(next)
//	err = x.Save(path)               // a few changes: appended to LogPath(path)
//	err = vector.Verify(path)        // every byte, the vectors' and codes' checksums too
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
// Each vector is kept twice over, small (quant.go, issue 45): once at
// full precision in IEEE half precision (fp16, 768 bytes at 384-d), the
// only copy of its values, and once as its int8 code (one byte a value
// and a float32 scale, 388 bytes). A search walks the graph comparing the
// query's code with the nodes' codes in integer arithmetic (AVX2 on
// amd64, dot_amd64.s; a Go loop elsewhere), keeps max(k, EfSearch)
// candidates, and measures the 2·k nearest of them (at least 32) again at
// full precision: Score is the cosine similarity with the fp16 vector. So a search reads the codes of the nodes it visits and
// the vectors of its few finalists; Add and rebuilds link nodes by the
// fp16 vectors, as the graph was linked before codes, and Vector returns
// one.
//
// The file (format 4, file.go) keeps the graph in flat sections: layer
// 0's links as one row of 2·M+1 uint32s a node, the ids as offsets into a
// blob, the codes, the fp16 vectors, and, small, the tombstones and the
// layers above 0.
// Load maps the file into memory (read-only, where the system maps
// files) and decodes only the small parts, so opening a graph costs
// nothing in proportion to it and nothing of the bulk is on the Go heap:
// a search touches only the pages of the nodes it visits (their links and
// codes) and of its finalists' vectors, and the map
// from id to slot is made only when a mutation or a lookup by id (Add,
// Delete, Has, Vector) first needs it. What the log adds, and what is
// added later, is held in memory beside the mapped graph; a mapped node
// whose links change has its row copied to memory first (an overlay), so
// the file is never written (a rebuild makes a new graph in memory). The
// graph code reads links through one accessor (graph.links), which hides
// where a row lies.
// A process that searches once (braid search) loads with Options.Pread:
// its search then reads the layer-0 rows and codes of the nodes it visits,
// and its finalists' vectors, with pread (pread.go) instead of through
// the mapping, since a fault on a cached page maps its 64 KiB around it
// and one search at a million nodes would leave ~430 MB of the file
// mapped; the answers are the same.
//
// Load checks the header, the section sizes against the file's, every
// section's checksum but the codes' and the vectors' (a damaged link or
// id is said at every open, as a format 2 file's nodes were), and the
// small sections' links. It does not check the mapped links and ids one
// by one, so the walks read them with care: a row's count is clamped to
// the row, a link past the graph is skipped, an id's offsets are checked
// before they slice, a code's scale that is not finite counts as 0; a
// file crafted with fitting checksums can misrank, never panic
// (TestHostileSections, FuzzHostileSections). Verify (braid doctor)
// checks the codes' and vectors' checksums too, every link, and that each
// code is the one its vector makes. Files of formats 1 to 3 still load, as
// changed, so that the next Save writes format 4 whole: formats 1 and 2
// decoded onto the heap and every link checked, format 3 mapped as a
// format 4 file is, its float32 vectors rounded to fp16 as they are read;
// their codes are made at Load, on the heap (388 bytes a node at 384-d).
//
// Vectors are normalised on the way in, so Score is the cosine similarity
// even for a query that is not unit length. Options.EfSearch trades
// latency for recall; its default is sized for the hardest case measured
// (uniformly random 384-d vectors, recall@10 >= 0.98 at 10,000 vectors,
// with the int8 walk and the rescoring as without them).
//
// Caveats:
//
//   - Vector returns the vector rounded to fp16 (a relative error under
//     2^-11 a value), not the float32s that were added; Add of a vector
//     equal to the held one after that rounding changes nothing.
//   - Every vector is kept in fp16, mapped from the file or added in
//     memory (768 bytes a node at 384-d, beside its 388-byte code), and
//     read to rescore a search's finalists. Linking a node measures by
//     codes, as a search's walk does: its candidates from its own code,
//     and the neighbour heuristic's pairs code against code (half the
//     bytes fetched a distance, the cost of a 1M build's inserts, which
//     wait on memory: 12% less build CPU at 100k, BenchmarkBuild100k,
//     and 15% less ingest CPU at 1M; recall unchanged). On amd64 a walk (an insert's or a search's)
//     asks for the codes it will measure next, and the next row, ahead
//     (PREFETCHT0), so that their fetches from memory overlap; elsewhere
//     it waits on each in turn.
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
