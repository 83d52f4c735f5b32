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
// twice (blockmax.go); a segment where the words' postings are kept is
// searched term at a time instead, every posting's estimated score
// summed per chunk and only the chunks that can reach the top k scored
// (accumulate.go). Anything else goes through bleve's own searchers.
// Scores use collection statistics counted over the whole index, so they
// do not depend on how it is cut into segments (bm25.go): meta.db keeps
// them, moved by each commit (package index), and StatsFrom reads them
// there. Explain breaks a score down by term (BM25, explain.go).
//
// The mapping (buildMapping) keeps no stored fields, no _all text and no
// doc values: braid reads chunks from its own store and never sorts or
// facets on a field. Term vectors (positions) are kept on the content
// field only, for phrases and matched-term locations. An index written
// before doc values were left out keeps its own mapping, which bleve reads
// from the index: both open (knownMappings).
//
// An index file braid did not write is not trusted to be well-formed.
// Before bleve reads anything, opening checks that index_meta.json and
// root.bolt say what braid writes (a scorch index, zap v16 segments,
// one of braid's mappings, deleted documents of their segments), and every
// segment's CRC, which catches damage, then its structure (checkZap in
// segcheck.go), which catches crafting: every count, length and offset
// that zap allocates from, loops over or seeks to, at open, in a search
// or in a merge, is bounded by the file (a crafted chunk count once made
// zap ask for 8 TiB, a fatal error no guard recovers). It skips the
// segments the stamp file beside the index (package indexdir's Stamps)
// says this user's braid checked or wrote before: a writer's Close stamps
// the segments its bleve wrote. Check and Verify compare the index's
// commit with the store's, and a damaged, crafted or behind index is an
// indexdir.CorruptError naming doctor --repair (LexicalFix), which
// rebuilds it from meta.db.
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
