package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/alecthomas/kong"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/internal/relay"
	"github.com/braidsearch/braid/mcpserver"
)

// One index, many users. braid serve holds its index for writing for the
// whole session, so no other process can open it. It also listens on a
// Unix socket beside the index, or in a folder private to the user when
// the index path is long (relay.SocketPath), and a braid command
// started while it runs hands itself to the server there: the command
// runs inside the server on the server's open engine and models, its
// output streams back, and the exit code is the command's. Reads run
// alongside the server's own tool calls; writes (index, tag, sources rm)
// take the server's writer slot in turn with index_path and the watch.
//
// The client sends nothing unless the socket and the server answering on
// it are the user's own (relay.Dial).
//
// The command travels parsed (relay.Request): the client resolves flags,
// environment variables and relative paths as usual, and sends the chosen
// command's struct and the globals as JSON.

// local lists the commands that never go to a server: they do not use the
// shared index, or (serve) are the server.
var local = []string{"serve", "eval", "bench", "models", "version", "prompts", "tokens"}

// commandPath names the selected command, from the top.
func commandPath(n *kong.Node) []string {
	var names []string
	for ; n != nil && n.Type == kong.CommandNode; n = n.Parent {
		names = append([]string{n.Name}, names...)
	}
	return names
}

// forward hands the parsed command to the braid serve holding the index,
// when one is listening. ok is false when the command should run here.
func forward(ctx context.Context, cli *CLI, kctx *kong.Context, stdin io.Reader) (code int, ok bool) {
	sel := kctx.Selected()
	if sel == nil {
		return 0, false
	}
	names := commandPath(sel)
	if len(names) == 0 || slices.Contains(local, names[0]) {
		return 0, false
	}
	if d, isDoctor := sel.Target.Addr().Interface().(*DoctorCmd); isDoctor && d.Repair {
		return 0, false // repair needs the index to itself; it says so
	}
	globals, err := json.Marshal(&cli.Globals)
	var args []byte
	if err == nil {
		args, err = json.Marshal(sel.Target.Addr().Interface())
	}
	if err == nil {
		wd, _ := os.Getwd()
		code, err = relay.Forward(ctx, cli.Index, &relay.Request{Command: names, Globals: globals, Args: args, Cwd: wd, TTY: cli.tty}, stdin, cli.stdout, cli.stderr)
	}
	if errors.Is(err, relay.ErrNoServer) {
		return 0, false
	}
	if errors.Is(err, relay.ErrUnsafeFolder) {
		// braid serve refuses the same folder, so no server of ours can
		// be behind it: run here, as when none listens, but say why.
		cli.warn("not looking for a braid serve of this index: %v", err)
		return 0, false
	}
	if errors.Is(err, relay.ErrNotYours) {
		// Someone else answers on this user's socket: neither send the
		// command nor hide that by running it here.
		fmt.Fprintf(cli.stderr, "braid: %v\n", err)
		return 1, true
	}
	if err != nil {
		if ctx.Err() != nil {
			fmt.Fprintln(cli.stderr, "braid: interrupted")
			return 130, true
		}
		fmt.Fprintf(cli.stderr, "braid: braid serve holds the index and was running this command, but: %v\n", err)
		return 1, true
	}
	return code, true
}

// serveForwarded runs a client's command on the server's engine; it is
// the relay handler of braid serve.
func serveForwarded(ctx context.Context, srv *mcpserver.Server, dir string, raw []byte, sess *relay.Session) int {
	var req relay.Request
	if err := json.Unmarshal(raw, &req); err != nil {
		fmt.Fprintf(sess.Stderr, "braid: the server could not read the command (%v); are the client and braid serve the same version?\n", err)
		return 1
	}
	cli := &CLI{}
	parser, err := kong.New(cli, kong.Name("braid"), kong.Bind(&cli.Globals), defaults)
	if err != nil {
		fmt.Fprintf(sess.Stderr, "braid: internal error: %v\n", err)
		return 2
	}
	node := parser.Model.Node
	for _, name := range req.Command {
		i := slices.IndexFunc(node.Children, func(c *kong.Node) bool { return c.Name == name })
		if i < 0 || slices.Contains(local, req.Command[0]) {
			fmt.Fprintf(sess.Stderr, "braid: braid serve cannot run %q for another process; are the client and braid serve the same version?\n", strings.Join(req.Command, " "))
			return 1
		}
		node = node.Children[i]
	}
	target := node.Target.Addr().Interface()
	cmd, ok := target.(interface{ Run(*Globals) error })
	if !ok {
		err = errors.New("it names no command")
	} else if err = json.Unmarshal(req.Globals, &cli.Globals); err == nil {
		err = json.Unmarshal(req.Args, target)
	}
	if err != nil {
		fmt.Fprintf(sess.Stderr, "braid: the server could not read the command %q (%v); are the client and braid serve the same version?\n", strings.Join(req.Command, " "), err)
		return 1
	}
	if ic, isIndex := target.(*IndexCmd); isIndex && ic.Watch {
		fmt.Fprintln(sess.Stderr, "braid: braid serve holds this index: restart it with --watch, or call its index_path tool with watch: true, instead of braid index --watch")
		return 1
	}
	g := &cli.Globals
	g.ctx, g.stdin, g.stdout, g.stderr, g.tty = ctx, sess.Stdin, sess.Stdout, sess.Stderr, req.TTY
	g.Index, g.indexSet, g.cwd = dir, true, req.Cwd
	g.lend = func(write bool) (*braid.Engine, func(), error) {
		waiting := time.AfterFunc(500*time.Millisecond, func() {
			if write {
				g.warn("waiting for braid serve to finish its current write (index_path, inject_tags or a watch re-index)")
			}
		})
		e, release, err := srv.Lend(ctx, write)
		waiting.Stop()
		if errors.Is(err, braid.ErrReadOnly) {
			err = errors.New("braid serve holds this index read-only; stop it, or restart it without --read-only, to change the index")
		}
		if err == nil {
			g.loans = append(g.loans, release)
		}
		return e, release, err
	}
	defer func() {
		for _, release := range g.loans {
			release()
		}
	}()
	return exitStatus(cmd.Run(g), g.stderr)
}

// borrowed lends the server's engine to a forwarded command, or reports
// false when the command runs in its own process.
func (g *Globals) borrowed(readOnly bool) (*braid.Engine, func(), error, bool) {
	if g.lend == nil {
		return nil, nil, nil, false
	}
	e, release, err := g.lend(!readOnly)
	return e, release, err, true
}

// abs resolves a path the user typed against the directory braid was run
// from, which for a forwarded command is the client's.
func (g *Globals) abs(p string) string {
	if filepath.IsAbs(p) || g.cwd == "" {
		return p
	}
	return filepath.Join(g.cwd, p)
}

// docName is a document name as the engine should see it: a relative path
// to an existing file is made absolute against the client's directory when
// the command was forwarded (the engine resolves it against its own).
func (g *Globals) docName(name string) string {
	if g.cwd == "" || filepath.IsAbs(name) {
		return name
	}
	if _, err := os.Stat(g.abs(name)); err == nil {
		return g.abs(name)
	}
	return name
}

// exitStatus reports a command's error on stderr and returns the exit code.
func exitStatus(err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	if !errors.Is(err, errSilent) {
		fmt.Fprintln(stderr, errorLine(err))
	}
	return 1
}
