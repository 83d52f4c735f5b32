// Package rank carries a search's candidate chunks from the retrievers to
// the hits: Matched keeps the vector candidates a constrained lexical
// query (phrases, exclusions) matched too, Fuse ranks the lexical and
// vector lists as one (package fusion's arithmetic, at the search's vector
// weight), Signals applies what braid knows beyond the two retrievers
// (document evidence and the link prior), Reranked puts the chunks the
// cross-encoder scored first, Window picks the chunks to read for the
// hits, and Explain says how each stage scored a chunk.
//
// A Candidate keeps what every stage said about its chunk, so that a
// hit's score can be explained to the last step. The engine (the root
// package's search.go) runs the stages in order; this package does not
// read the index, call a model or import the root package: the one read
// it needs, the documents linking to each candidate's document, comes in
// as a function.
//
// Caveats: Fuse, Signals and Reranked reorder and rewrite the slice they
// are given; scores are comparable only within one search.
package rank
