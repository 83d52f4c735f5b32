package cli

import (
	"fmt"
	"os"

	"github.com/braidsearch/braid"
)

// BatchCmd answers many queries with the index and models opened once.
type BatchCmd struct {
	File    string `arg:"" optional:"" default:"-" help:"JSONL file of queries, one object per line ({\"id\", \"query\", \"vector_weight\", \"limit\", ...}); - or nothing reads stdin."`
	Workers int    `help:"Queries answered at once (default: the number of CPUs)." placeholder:"N"`
}

// Run answers every line, in input order (braid.Batch).
func (c *BatchCmd) Run(g *Globals) error {
	in := g.stdin
	if c.File != "-" {
		f, err := os.Open(c.File)
		if err != nil {
			return fmt.Errorf("%w; give a JSONL file of queries or - for stdin", err)
		}
		defer f.Close()
		in = f
	}
	if c.Workers < 0 {
		return fmt.Errorf("--workers %d, want 1 or more", c.Workers)
	}
	e, done, err := g.openFor(true, "braid batch", true, true, false)
	if err != nil {
		return err
	}
	defer done()
	sum, err := braid.Batch(g.ctx, e, in, g.stdout, braid.BatchOptions{Workers: c.Workers,
		Panicked: func(line int, v any, stack []byte) { g.warn("the query on line %d panicked: %v\n%s", line, v, stack) }})
	if err != nil {
		return err
	}
	if !g.Quiet {
		fmt.Fprintf(g.stderr, "braid: %s\n", sum)
	}
	if sum.Failed > 0 {
		return errSilent
	}
	return nil
}
