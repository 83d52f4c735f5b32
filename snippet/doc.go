// Package snippet cuts a search hit's snippet out of its chunk and marks
// the words that match the query.
//
// Terms turns a query's words into the analysed terms to mark; Best picks
// the window of a text (about width bytes) that holds the most marked
// words and returns it with the byte ranges of the marks within it:
//
//	terms := snippet.Terms([]string{"plugins", "load"})
//	text, marks := snippet.Best(chunkText, terms, 240)
//
// Caveats. Words are matched through the lexical index's analyzer
// (lexical.Analyze: lowercased, stemmed English), so "loading" is marked for
// "load" and a word the analyzer drops (a stop word) is never marked. The
// window snaps to rune and word boundaries, so it can be up to 30 bytes
// shorter than width; newlines and tabs become spaces, one byte each, so
// the ranges stay valid in the returned text.
package snippet
