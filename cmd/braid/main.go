// Command braid is the command-line interface of the braid search engine:
// the commands themselves, their flags and what they print live in
// package cli.
package main

import (
	"fmt"
	"io"
	"log"
	"os"
	"runtime/pprof"

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
	os.Exit(run())
}

// run runs the command, under a CPU profile written to the file
// BRAID_CPUPROFILE names when it is set (for the bench's profiles:
// go tool pprof braid FILE).
func run() int {
	if file := os.Getenv("BRAID_CPUPROFILE"); file != "" {
		f, err := os.Create(file)
		if err != nil {
			fmt.Fprintf(os.Stderr, "BRAID_CPUPROFILE: %v\n", err)
			return 1
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintf(os.Stderr, "BRAID_CPUPROFILE: %v\n", err)
			return 1
		}
		defer pprof.StopCPUProfile()
	}
	return cli.Run(os.Args[1:], os.Stdout, os.Stderr)
}
