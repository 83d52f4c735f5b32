// Package vecstore keeps an index directory's HNSW graph of chunk
// embeddings on disk: one file per embedding model (File), loaded at open
// and brought in step with the store from the embeddings the store keeps
// until the graph is saved (Load),
// and saved after an index run (Save: a few changes appended to the
// file's change log, more written as a new file renamed into place). It
// also builds the throwaway graph of document vectors behind the link
// graph's gaps (Nearest), and decides what a search can do with the
// vectors: why they are unavailable and the vector weight a search gets
// (Availability.Unavailable and Weight, over plain values the engine
// hands in).
//
// The graph file is the one copy of each chunk's vector: the store keeps
// an embedding only until a save makes the graph that holds it durable,
// so a graph behind the store (a crash before its save) is brought in
// step from the store without calling the model, while one missing or
// damaged has lost the vectors it alone held: Load says how many, and
// the next braid index embeds them again with the model. A damaged file
// is reported, not removed; braid doctor --repair removes it.
//
// The package takes what it needs explicitly (directory, model key and
// dimension, the *index.Store, vector.Options) and never imports the root
// package.
package vecstore
