package main

import "github.com/braidsearch/braid"

// checkFiles runs doctor's checks of the index files. When braid serve
// runs doctor for another process (forward.go), the server holds the
// index open for writing, and a second open of meta.db or lexical.bleve
// would wait on its locks: the files are checked through the server's
// engine instead, beside its tool calls. Repair is never forwarded.
func (g *Globals) checkFiles() ([]braid.Check, error) {
	if g.lend == nil {
		return braid.CheckFiles(g.Index)
	}
	e, _, err := g.open(true, "braid doctor") // the server's engine, lent for the command
	if err != nil {
		return nil, err
	}
	return e.CheckFiles()
}
