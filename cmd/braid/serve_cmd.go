package main

import (
	"context"
	"errors"
	"io"
	"os"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/mcpserver"
)

// ServeCmd runs the MCP server on stdin and stdout.
type ServeCmd struct {
	MaxOutput   ByteSize `help:"Tool output longer than this is cut; the whole of it is kept for scratchpad_read (default 8KiB)." default:"8KiB" placeholder:"SIZE"`
	Scratchpads int      `help:"Long outputs kept for scratchpad_read (default 32; least recently used dropped first)." default:"32" placeholder:"N"`
	ReadOnly    bool     `help:"Hold the index for reading only, so CLI searches can run beside the server; index_path, remove_source and inject_tags are refused."`
	Watch       bool     `help:"Keep every registered source indexed while serving: changed files are re-indexed as they change (log lines on stderr)."`
}

// Run serves until stdin ends or the process is interrupted. The engine
// and its models load in the background: initialize is answered at once.
func (c *ServeCmd) Run(g *Globals) error {
	if c.Scratchpads < 1 {
		return errors.New("--scratchpads wants 1 or more")
	}
	if c.Watch && c.ReadOnly {
		return errors.New("--watch re-indexes, which --read-only forbids; drop one of them")
	}
	logs := g.stderr
	if g.Quiet {
		logs = io.Discard
	}
	open := func() (*braid.Engine, func(), error) {
		return g.openFor(c.ReadOnly, "braid serve", true, true)
	}
	srv := mcpserver.New(open, &mcpserver.Options{MaxOutput: int(c.MaxOutput), Scratchpads: c.Scratchpads, Log: logs, Version: version, Watch: c.Watch})
	err := srv.Serve(g.ctx, os.Stdin, g.stdout)
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}
