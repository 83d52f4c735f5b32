// Package docstore is braid's document store: documents added to the index
// itself rather than read from a source's files (notes an agent writes,
// pages braid download fetched), with their versions, collections and
// snapshots. Fetch downloads a page (package download) into the AddRequest
// that stores it, without touching an index.
//
// A stored document's content is kept once per distinct text in the index's
// content-addressed blob store (package blob); its record (name, hash,
// tags, collection) and its versions live in the index's bbolt store
// (index.Store) beside the documents of every source. The store is indexed
// as an internal source named "store", so search, get and grep find stored
// documents like files; the engine that owns the Store re-indexes that
// source after each write through Config.Reindex.
//
// The engine builds one Store for its index and hands it what it needs:
//
//	s := docstore.New(docstore.Config{
//		Index: st, Blobs: blobs, Dir: filepath.Join(indexDir, "store"),
//		Reindex: reindex, Lookup: lookup, Current: current,
//	})
//	res, err := s.Add(ctx, docstore.AddRequest{Name: "ideas/zeppelin.md", Content: "# Zeppelin\n"})
//	snap, err := s.CreateSnapshot("", "before the rewrite")
//	out, err := s.Restore(docstore.RestoreRequest{SnapshotID: snap.ID, Output: "restored"})
//
// braid users reach it as Engine.Store(), and name its request and result
// types by this package.
//
// Caveats: a Store serialises its own writes, so an index must have one
// Store. Delete never removes a file of a source (ErrSourceFile); Restore
// never writes outside its output directory, through a name or a symbolic
// link, nor replaces a file unless asked. Content is written and synced
// before the record that names it, so a crash leaves at worst a blob that
// nothing refers to (braid doctor --repair removes it). The errors callers
// test (index.ErrNotFound, ErrAmbiguous, ErrBadOption, ErrReadOnly,
// ErrBackend) are the engine's shared ones from package index.
package docstore
