// Package lexical is braid's BM25 index over chunks: a bleve (scorch)
// index in the index directory's lexical.bleve, opened with Open, written
// with Apply (one persisted batch per commit, tagged with the store's
// commit number) and searched with Search (a Request: a parsed query,
// filters by source, path glob, tags and documents, and the title and
// heading weights).
//
// A query of free words is answered by MaxScore over scorch's segments
// (maxscore.go): bleve's top k and scores without scoring every posting,
// with block-max bounds kept in memory per segment once a word is asked
// twice (blockmax.go); anything else goes through bleve's own searchers.
// Scores use collection statistics counted over the whole index, so they
// do not depend on how it is cut into segments (bm25.go): meta.db keeps
// them, moved by each commit (package index), and StatsFrom reads them
// there. Explain breaks a score down by term (BM25, explain.go).
//
// Opening checks every segment's CRC before bleve reads it (a damaged
// segment would crash bleve's goroutines), skipping those the stamp file
// beside the index (package indexdir's Stamps) says this user's braid
// read before; Check and Verify compare the index's commit with the
// store's, and a damaged or behind index is an indexdir.CorruptError
// naming doctor --repair (LexicalFix).
//
//	lex, err := lexical.Open("lexical.bleve", false, nil)
//	if err != nil { ... }
//	defer lex.Close()
//	_, err = lex.Apply(1, nil, []lexical.Chunk{{ID: "a#1.0", DocID: "a", Text: "garden tomatoes"}},
//		func(string) lexical.ChunkMeta { return lexical.ChunkMeta{Title: "Garden"} })
//	q, _ := query.Parse("tomato")
//	hits, total, err := lex.Search(ctx, lexical.Request{Query: q, Size: 10})
//
// The package sits below package index, which feeds it the store's
// chunks (index.Chunk.Lexical) and keeps its BM25 counts; it never imports
// index. An Index is safe for concurrent use.
package lexical
