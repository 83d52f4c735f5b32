package index

// bucketLineage holds each document's recent versions' chunk hashes
// (document id -> []LineageVersion), written in the document's commit.
var bucketLineage = []byte("lineage")
