// Package sessions keeps an index's sessions: named working sets, as
// YAMS has them. A session pins paths and globs into a set that
// searches, greps and listings can be scoped to (their Session option,
// resolved by Docs), and whose sources a server can watch (SetWatch).
// Sessions are kept in the index's bbolt store (index.Store: the
// sessions bucket, with the current session's name in the meta bucket),
// so they outlast the process that made them; the current session is the
// one started last and not stopped.
//
// The engine builds one Store for its index and hands it out as
// Engine.Sources().Sessions():
//
//	ss := sessions.New(sessions.Config{Index: st})
//	if _, err := ss.Start("work", "the zeppelin notes"); err != nil { … }
//	p, err := ss.Pin(ctx, "", []string{"notes/*.md"}) // "" is the current session
//	docs, err := sessions.Docs(st, "work")      // the ids its pins select now
//
// Caveats: pins choose among the indexed documents only, so a session
// never makes braid read a file that is not an indexed document of a
// registered source; an absolute pin must lie in (or above) a registered
// source. A session holds at most MaxPins pins of at most 1024 bytes
// each. The errors callers test (index.ErrNotFound, ErrBadOption,
// ErrReadOnly) are the engine's shared ones from package index.
package sessions
