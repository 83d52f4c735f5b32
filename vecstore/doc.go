// Package vecstore keeps an index directory's HNSW graph of chunk
// embeddings on disk: one file per embedding model (File), loaded at open
// and brought in step with the store from its stored embeddings (Load),
// and saved after an index run (Save: a few changes appended to the
// file's change log, more written as a new file renamed into place). It
// also builds the throwaway graph of document vectors behind the link
// graph's gaps (Nearest), and decides what a search can do with the
// vectors: why they are unavailable and the vector weight a search gets
// (Availability.Unavailable and Weight, over plain values the engine
// hands in).
//
// The store is the source of truth: a graph file that is missing, behind
// the store or damaged is rebuilt from the embeddings the store holds,
// without calling the model. A damaged file is reported, not removed;
// braid doctor --repair removes it.
//
// The package takes what it needs explicitly (directory, model key and
// dimension, the *index.Store, vector.Options) and never imports the root
// package.
package vecstore
