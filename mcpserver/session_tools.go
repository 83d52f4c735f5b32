package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/sessions"
)

// YAMS's sessions (session_start, session_stop, session_pin,
// session_unpin, watch): named working sets kept in the index
// (sessions.Store). search, grep and list take session and use_session
// to scope themselves to one.

const (
	descSession    = "Only documents this session pins. Default: the current session, if any."
	descUseSession = "false: ignore the current session."
)

// scope is the session a search, grep or list is scoped to: the one
// named, else the current one unless use is false, else none (""). A
// server that offers no session tools scopes nothing by itself: its
// agent could not see or leave the current session.
//
// Sessions are the whole index's: a user granted only some sources
// (access.go) is scoped to none, and one named is refused.
func (s *Server) scope(ctx context.Context, e *braid.Engine, name string, use *bool) (string, error) {
	if s.grantOf(ctx).partial() {
		if name != "" {
			return "", argError("session", "sessions need a grant of every source; leave session out")
		}
		return "", nil
	}
	if name != "" {
		return e.Sources().Sessions().Resolve(name)
	}
	if use != nil && !*use || !s.sessions() {
		return "", nil
	}
	return e.Sources().Sessions().Current()
}

// sessions says whether the server offers the session tools.
func (s *Server) sessions() bool { return slices.Contains(s.offered, "session_start") }

// sessionArgs are the arguments that scope a tool to a session, offered
// only beside the session tools (every tool listed costs an agent
// context on every turn).
var sessionArgs = []string{"session", "use_session"}

// withoutSessionArgs is t without the session arguments in its schema.
func withoutSessionArgs(t tool) tool {
	props := t.def.InputSchema.Properties
	if _, ok := props["session"]; !ok {
		return t
	}
	t.def.InputSchema.Properties = maps.Clone(props)
	for _, a := range sessionArgs {
		delete(t.def.InputSchema.Properties, a)
	}
	return t
}

type sessionStartArgs struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Warm        *bool  `json:"warm"`
}

func (s *Server) sessionStartTool() tool {
	def := mcp.NewTool("session_start",
		mcp.WithDescription("Start a named working set (created if new) and make it current: search, grep and list are then "+
			"scoped to the documents it pins (session_pin) until session_stop. Kept in the index across restarts. Returns "+
			"{name, description, pins, watch, active, current, documents, created, warmed_count}."),
		writes("Start session", false),
		mcp.WithString("name", mcp.Description("The session: 1 to 64 letters, digits, '.', '-', '_'. Default: the current session.")),
		mcp.WithString("description", mcp.Description("What the session is for; replaces an existing session's.")),
		mcp.WithBoolean("warm", mcp.Description("Accepted for YAMS clients; braid keeps no session cache to warm, so warmed_count is 0.")),
	)
	return tool{def, adapt(s, "session_start", sessionStartArgs{}, func(ctx context.Context, c call, a *sessionStartArgs) (any, error) {
		var st *sessions.Started
		err := s.write(ctx, func() (err error) {
			st, err = c.e.Sources().Sessions().Start(a.Name, a.Description)
			return err
		})
		if err != nil {
			return nil, err
		}
		s.syncSessionWatches(c.e)
		return struct {
			*sessions.Started
			Warmed int `json:"warmed_count"`
		}{st, 0}, nil
	})}
}

type sessionStopArgs struct {
	Name  string `json:"name"`
	Clear *bool  `json:"clear"`
}

func (s *Server) sessionStopTool() tool {
	def := mcp.NewTool("session_stop",
		mcp.WithDescription("Stop a session: it is no longer current nor watched, so search, grep and list read every document "+
			"again. Its pins are kept for a later session_start. Returns {name, cleared, pins, active: false, ...}."),
		writes("Stop session", false),
		mcp.WithString("name", mcp.Description("The session. Default: the current session.")),
		mcp.WithBoolean("clear", mcp.Description("Accepted for YAMS clients; braid keeps no session cache, so there is nothing to clear.")),
	)
	return tool{def, adapt(s, "session_stop", sessionStopArgs{}, func(ctx context.Context, c call, a *sessionStopArgs) (any, error) {
		var info *sessions.Info
		err := s.write(ctx, func() (err error) {
			info, err = c.e.Sources().Sessions().Stop(a.Name)
			return err
		})
		if err != nil {
			return nil, err
		}
		s.syncSessionWatches(c.e)
		return struct {
			*sessions.Info
			Cleared bool `json:"cleared"`
		}{info, a.Clear == nil || *a.Clear}, nil
	})}
}

type pinArgs struct {
	Path    string `json:"path"`
	Session string `json:"session"`
}

func (a *pinArgs) check() error { return required("path", a.Path) }

func (s *Server) sessionPinTool() tool {
	def := mcp.NewTool("session_pin",
		mcp.WithDescription("Pin a path or glob into a session's set: relative to a source (notes/*.md, projects/x), as "+
			"source-name/glob, or absolute inside a registered source; a folder pins what is under it. Returns {name, pins, "+
			"changed (the pins added), matched (indexed documents the path selects now), updated (the same), documents}."),
		writes("Pin documents", false),
		mcp.WithString("path", mcp.Required(), mcp.Description("The path or glob to pin (** across folders, * and ? within one).")),
		mcp.WithString("session", mcp.Description("The session. Default: the current session.")),
	)
	return tool{def, adapt(s, "session_pin", pinArgs{}, func(ctx context.Context, c call, a *pinArgs) (any, error) {
		return s.pin(ctx, c.e, a, true)
	})}
}

func (s *Server) sessionUnpinTool() tool {
	def := mcp.NewTool("session_unpin",
		mcp.WithDescription("Unpin a path or glob from a session's set, as it was pinned. Returns {name, pins, changed (the pins "+
			"removed), matched, updated, documents}."),
		writes("Unpin documents", false),
		mcp.WithString("path", mcp.Required(), mcp.Description("The path or glob to unpin, as session_pin was given it.")),
		mcp.WithString("session", mcp.Description("The session. Default: the current session.")),
	)
	return tool{def, adapt(s, "session_unpin", pinArgs{}, func(ctx context.Context, c call, a *pinArgs) (any, error) {
		return s.pin(ctx, c.e, a, false)
	})}
}

func (s *Server) pin(ctx context.Context, e *braid.Engine, a *pinArgs, add bool) (any, error) {
	var p *sessions.Pinned
	err := s.write(ctx, func() (err error) {
		if add {
			p, err = e.Sources().Sessions().Pin(ctx, a.Session, []string{a.Path})
		} else {
			p, err = e.Sources().Sessions().Unpin(a.Session, []string{a.Path})
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	s.syncSessionWatches(e)
	return struct {
		*sessions.Pinned
		Updated int `json:"updated"`
	}{p, p.Matched}, nil
}

type watchArgs struct {
	Session     string `json:"session"`
	Root        string `json:"root"`
	IntervalMS  int    `json:"interval_ms"`
	Enable      *bool  `json:"enable"`
	AddSelector *bool  `json:"add_selector"`
	SetCurrent  *bool  `json:"set_current"`
	AllowCreate *bool  `json:"allow_create"`
}

// check refuses a root that as a pin would select no document ("/",
// "../x", file://…: sessions.PinProblem) before a session is made for it.
func (a *watchArgs) check() error {
	if why := sessions.PinProblem(a.Root); a.Root != "" && why != "" {
		return argError("root", "%q %s", a.Root, why)
	}
	return intRange("interval_ms", a.IntervalMS, 0, 3_600_000)
}

// watchReply is the watch tool's answer, YAMS's fields first.
type watchReply struct {
	Session       string   `json:"session"`
	Root          string   `json:"root,omitempty"`
	Enabled       bool     `json:"enabled"`
	IntervalMS    int      `json:"interval_ms"`
	Created       bool     `json:"created"`
	SelectorAdded bool     `json:"selector_added"`
	Watching      []string `json:"watching"` // the sources watched for the session's set
}

func (s *Server) sessionWatchTool() tool {
	def := mcp.NewTool("watch",
		mcp.WithDescription("Turn watching on or off for a session's set: while on, the registered sources holding its "+
			"documents are re-indexed as their files change, and this lasts across restarts of braid serve. With root, the "+
			"folder (inside a registered source) is pinned first. Returns {session, root, enabled, interval_ms, created, "+
			"selector_added, watching (the sources watched)}."),
		writes("Watch session", false),
		mcp.WithString("session", mcp.Description("The session. Default: the current one, else one named after root.")),
		mcp.WithString("root", mcp.Description("A folder inside a registered source to pin into the session before watching.")),
		mcp.WithBoolean("enable", mcp.Description("false turns watching off. Default true.")),
		mcp.WithInteger("interval_ms", mcp.Description("Accepted for YAMS clients; braid watches by file events, so it is unused."),
			mcp.Min(0), mcp.Max(3_600_000)),
		mcp.WithBoolean("add_selector", mcp.Description("Pin root into the session. Default true.")),
		mcp.WithBoolean("set_current", mcp.Description("Make the session current. Default true.")),
		mcp.WithBoolean("allow_create", mcp.Description("Create the session if it does not exist. Default true.")),
	)
	return tool{def, adapt(s, "watch", watchArgs{}, func(ctx context.Context, c call, a *watchArgs) (any, error) {
		yes := func(b *bool) bool { return b == nil || *b }
		ss := c.e.Sources().Sessions()
		r := watchReply{Root: a.Root, Enabled: yes(a.Enable), IntervalMS: a.IntervalMS, Watching: []string{}}
		err := s.write(ctx, func() error {
			name := a.Session
			if name == "" {
				cur, err := ss.Current()
				if err != nil {
					return err
				}
				name = cur
			}
			if name == "" && a.Root != "" {
				name = sessionNameFor(a.Root)
			}
			if name == "" {
				return argError("session", "no session is current; name one, or give root to watch a folder")
			}
			if _, err := ss.Resolve(name); errors.Is(err, braid.ErrNotFound) {
				if !yes(a.AllowCreate) {
					return fmt.Errorf("%w (allow_create is false)", err)
				}
				desc := "made by watch"
				if a.Root != "" {
					desc += " for " + a.Root
				}
				var err error
				if _, r.Created, err = ss.Create(name, desc); err != nil {
					return err
				}
			} else if err != nil {
				return err
			}
			if yes(a.SetCurrent) {
				if _, err := ss.Start(name, ""); err != nil {
					return err
				}
			}
			if a.Root != "" && yes(a.AddSelector) {
				p, err := ss.Pin(ctx, name, []string{a.Root})
				if err != nil {
					return err
				}
				r.SelectorAdded = len(p.Changed) > 0
			}
			info, err := ss.SetWatch(name, r.Enabled)
			if err != nil {
				return err
			}
			r.Session, r.Enabled = info.Name, info.Watch
			return nil
		})
		if err != nil {
			return nil, err
		}
		s.syncSessionWatches(c.e)
		r.Watching = s.sessionWatched(c.e, r.Session)
		return r, nil
	})}
}
