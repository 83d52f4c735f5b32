// Command braid is the command-line interface of the braid search engine:
// the commands themselves, their flags and what they print live in
// package cli.
package main

import (
	"io"
	"log"
	"os"

	"github.com/braidsearch/braid/cli"
)

// version and commit are stamped in at build time by make build:
// -ldflags "-X main.version=$(git describe --always --dirty) -X main.commit=…".
// Left empty, braid version reads them from the build information.
var version, commit string

func main() {
	// bleve's index writes what it recovers from (a snapshot it cannot
	// load) to the standard logger; braid checks the index itself and
	// says what is wrong in one line, with the fix.
	log.SetOutput(io.Discard)
	cli.Version, cli.Commit = version, commit
	os.Exit(cli.Run(os.Args[1:], os.Stdout, os.Stderr))
}
