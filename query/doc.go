// Package query parses what a user types into a search: free words,
// "quoted phrases" that must appear and -excluded words (Parse, Query),
// and turns a path glob into the regular expression a path filter matches
// with (GlobRegexp).
//
//	q, err := query.Parse(`"space script" api -draft`)
//	// q.Terms: [api], q.Phrases: [space script], q.Excluded: [draft]
//
// A query is at most MaxQueryLen bytes of UTF-8; one with nothing to
// search for (only exclusions, or only spaces) is ErrEmptyQuery. An
// unterminated quote runs to the end of the query. The package knows
// nothing of the index: the lexical index (package lexical), the
// OpenSearch backend and the embedding model each read a Query their own
// way (Words, Semantic).
package query
