package cli

import (
	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/sessions"
)

// SessionsCmd lists and changes the index's sessions (YAMS's named
// working sets; braid serve --tools yams offers them to agents).
type SessionsCmd struct {
	List  SessionsListCmd  `cmd:"" default:"1" help:"List the sessions, their pins and how many documents they select."`
	Start SessionsStartCmd `cmd:"" help:"Start a session (created if new) and make it current: braid serve's search, grep and list are scoped to it."`
	Pin   SessionsPinCmd   `cmd:"" help:"Pin paths or globs into a session's set (relative to a source, source-name/glob, or absolute inside a source)."`
	Unpin SessionsUnpinCmd `cmd:"" help:"Unpin paths or globs from a session's set, as they were pinned."`
	Stop  SessionsStopCmd  `cmd:"" help:"Stop a session: no longer current nor watched; its pins are kept."`
	Watch SessionsWatchCmd `cmd:"" help:"Have braid serve watch a session's sources (--off stops it)."`
}

// SessionsListCmd lists sessions.
type SessionsListCmd struct{}

// Run lists.
func (c *SessionsListCmd) Run(g *Globals) error {
	return g.show("braid sessions", func(e *braid.Engine) (texter, error) {
		l, err := e.Sources().Sessions().List()
		return sessions.List(l), err
	})
}

// SessionsStartCmd starts a session.
type SessionsStartCmd struct {
	Name        string `arg:"" help:"The session: 1 to 64 letters, digits, '.', '-' or '_'."`
	Description string `help:"What the session is for." placeholder:"TEXT"`
}

// Run starts it.
func (c *SessionsStartCmd) Run(g *Globals) error {
	return g.write("braid sessions start", func(e *braid.Engine) (texter, error) {
		st, err := e.Sources().Sessions().Start(c.Name, c.Description)
		if err != nil {
			return nil, err
		}
		return &st.Info, nil
	})
}

// SessionsPinCmd pins paths and globs.
type SessionsPinCmd struct {
	Pins    []string `arg:"" help:"Paths or globs (** across folders, * and ? within one)."`
	Session string   `help:"The session; default: the current one." placeholder:"NAME"`
}

// Run pins.
func (c *SessionsPinCmd) Run(g *Globals) error {
	return g.write("braid sessions pin", func(e *braid.Engine) (texter, error) {
		return e.Sources().Sessions().Pin(g.ctx, c.Session, c.Pins)
	})
}

// SessionsUnpinCmd unpins paths and globs.
type SessionsUnpinCmd struct {
	Pins    []string `arg:"" help:"Paths or globs, as they were pinned."`
	Session string   `help:"The session; default: the current one." placeholder:"NAME"`
}

// Run unpins.
func (c *SessionsUnpinCmd) Run(g *Globals) error {
	return g.write("braid sessions unpin", func(e *braid.Engine) (texter, error) {
		return e.Sources().Sessions().Unpin(c.Session, c.Pins)
	})
}

// SessionsStopCmd stops a session.
type SessionsStopCmd struct {
	Name string `arg:"" optional:"" help:"The session; default: the current one."`
}

// Run stops it.
func (c *SessionsStopCmd) Run(g *Globals) error {
	return g.write("braid sessions stop", func(e *braid.Engine) (texter, error) {
		return e.Sources().Sessions().Stop(c.Name)
	})
}

// SessionsWatchCmd turns a session's watch on or off.
type SessionsWatchCmd struct {
	Name string `arg:"" optional:"" help:"The session; default: the current one."`
	Off  bool   `help:"Stop watching the session's sources."`
}

// Run sets it.
func (c *SessionsWatchCmd) Run(g *Globals) error {
	return g.write("braid sessions watch", func(e *braid.Engine) (texter, error) {
		return e.Sources().Sessions().SetWatch(c.Name, !c.Off)
	})
}

// write opens the engine for writing and prints what fn answers.
func (g *Globals) write(purpose string, fn func(*braid.Engine) (texter, error)) error {
	e, done, err := g.open(false, purpose)
	return g.showOpened(e, done, err, fn)
}
