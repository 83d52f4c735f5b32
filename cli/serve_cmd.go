package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/auth"
	"github.com/braidsearch/braid/download"
	"github.com/braidsearch/braid/indexdir"
	"github.com/braidsearch/braid/internal/relay"
	"github.com/braidsearch/braid/mcpserver"
)

// ServeCmd runs the MCP server on stdin and stdout, or over HTTP (--http).
type ServeCmd struct {
	MaxOutput   ByteSize `help:"Tool output longer than this is cut; the whole of it is kept for scratchpad_read (default 8KiB)." default:"8KiB" placeholder:"SIZE"`
	Scratchpads int      `help:"Long outputs kept for scratchpad_read (default 32; least recently used dropped first)." default:"32" placeholder:"N"`
	ReadOnly    bool     `help:"Hold the index for reading only, so CLI searches can run beside the server; index_path, remove_source and inject_tags are refused."`
	Watch       bool     `help:"Keep every registered source indexed while serving: changed files are re-indexed as they change (log lines on stderr)."`
	Allow       []string `help:"A folder agents may name in tools that take a path (index_path, add, restore, inject_tags), besides the index's sources and the roots the client declares; or an s3://bucket[/prefix] URL index_path may index (repeatable)." placeholder:"DIR|S3URL"`
	AllowWrites bool     `help:"Offer the tools that write files outside the index directory (restore, inject_tags); without it an agent cannot write outside the index."`
	AllowNet    []string `help:"An address range the download tool may reach although it is not public (loopback, private, link-local such as cloud metadata), e.g. 10.0.0.0/8 (repeatable)." placeholder:"CIDR"`
	Init        bool     `help:"Create the --index directory's index when there is none; without it braid serve refuses to start there, so a mistyped path is not served as an empty index."`
	Tools       string   `help:"The tools to offer: a profile (core: search, search_keyword, grep, read, get, read_around, explore_links, list, ask, scratchpad_read; all: every tool; or a seed system's tool names: amalfa, yams, ks, alloy) or a comma-separated list of profiles and tool names, e.g. core,index_path." default:"core" placeholder:"PROFILE|LIST"`
	promptsFolder
	httpFlags
}

// Run serves until stdin ends or the process is interrupted (with --http:
// until it is interrupted). The engine
// and its models load in the background: initialize is answered at once.
func (c *ServeCmd) Run(g *Globals) error {
	if c.Scratchpads < 1 {
		return errors.New("--scratchpads wants 1 or more")
	}
	if c.Watch && c.ReadOnly {
		return errors.New("--watch re-indexes, which --read-only forbids; drop one of them")
	}
	if err := c.httpFlags.check(); err != nil {
		return err
	}
	if err := mcpserver.CheckTools(c.Tools); err != nil {
		return errors.New(strings.TrimPrefix(err.Error(), "mcpserver: "))
	}
	nets, err := download.ParseAllow(c.AllowNet)
	if err != nil {
		return err
	}
	allow, err := mcpserver.CheckAllow(c.Allow)
	if err != nil {
		return err
	}
	logs := g.stderr
	if g.Quiet {
		logs = io.Discard
	}
	g.warm = true // the first tool call should not pay the models' first run
	open := func() (*braid.Engine, func(), error) {
		return g.openFor(c.ReadOnly, "braid serve", true, true, false)
	}
	var rs *relay.Server
	promptDir, perr := c.promptsFolder.dir(g)
	if perr != nil {
		return perr
	}
	if g.Backend == "" && !braid.Exists(g.Index) {
		switch {
		case !c.Init:
			return fmt.Errorf("no index in %s; check --index (or BRAID_INDEX) for a typo, or pass --init to create an empty index there (braid index PATH creates and fills one)", g.Index)
		case c.ReadOnly:
			return fmt.Errorf("--init creates the index in %s, which --read-only forbids; drop one of them", g.Index)
		}
	}
	opt := &mcpserver.Options{MaxOutput: int(c.MaxOutput), Scratchpads: c.Scratchpads, Log: logs, Version: build().version, Watch: c.Watch,
		Prompts: promptDir, Allow: allow, AllowWrites: c.AllowWrites, AllowNet: nets, Tools: c.Tools,
		BeforeClose: func() {
			if rs != nil {
				rs.Close() // commands run for other processes end before the engine closes
			}
		}}
	var grants func(*auth.Principal) []string // the policy's, for the audit log
	if c.Policy != "" {
		if grants, err = loadPolicy(c.Policy, opt); err != nil {
			return err
		}
	}
	srv := mcpserver.New(open, opt)
	if !c.ReadOnly && g.Backend == "" {
		// Other braid commands cannot open the index this server holds for
		// writing: they run here instead (see forward.go).
		dir := g.Index
		_, err := indexdir.MakeDir(dir) // the user's alone, as Open makes it
		var sock string
		if err == nil {
			sock, err = relay.SocketPath(dir)
		}
		if err == nil {
			rs, err = relay.Listen(sock, func(ctx context.Context, req []byte, sess *relay.Session) int {
				return serveForwarded(ctx, srv, dir, req, sess)
			})
		}
		if err != nil {
			fmt.Fprintf(logs, "braid serve: other braid commands cannot reach this server, so they cannot use the index while it runs: %v\n", err)
		}
	}
	if c.HTTP != "" {
		return c.serveHTTP(g.ctx, srv, logs, grants)
	}
	err = srv.Serve(g.ctx, g.stdin, g.stdout)
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}
