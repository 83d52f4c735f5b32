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

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

func main() {
	// bleve's index writes what it recovers from (a snapshot it cannot
	// load) to the standard logger; braid checks the index itself and
	// says what is wrong in one line, with the fix.
	log.SetOutput(io.Discard)
	cli.Version = version
	os.Exit(cli.Run(os.Args[1:], os.Stdout, os.Stderr))
}
