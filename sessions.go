package braid

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/notes"
)

// Sessions are named working sets, as YAMS has them: paths and globs
// pinned into a set that searches (SearchOptions.Session), greps
// (GrepOptions.Session) and listings (ListOptions.Session) can be scoped
// to, and whose sources a server can watch (SetWatch). They are kept in
// the index, so they outlast the process that made them; the current
// session is the one started last and not stopped. Pins choose among the
// indexed documents only: a session never makes braid read a file that
// is not an indexed document of a registered source.
type Sessions struct{ e *Engine }

// Sessions is the index's sessions.
func (e *Engine) Sessions() *Sessions { return &Sessions{e} }

// SessionInfo is a session with what it selects now.
type SessionInfo struct {
	index.Session
	// Current says it is the current session: the one a tool that names
	// none is scoped to.
	Current bool `json:"current"`
	// Documents counts the indexed documents its pins select now.
	Documents int `json:"documents"`
}

// Limits on what a session holds.
const (
	MaxSessionPins = 256
	maxPinLen      = 1024
)

var sessionName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// checkName refuses a session name that is not 1 to 64 letters, digits,
// dots, dashes and underscores.
func checkName(name string) error {
	if !sessionName.MatchString(name) {
		return fmt.Errorf("%w: session name %q; want 1 to 64 letters, digits, '.', '-' or '_', starting with a letter or digit", ErrBadOption, name)
	}
	return nil
}

// List lists the sessions by name.
func (s *Sessions) List() ([]SessionInfo, error) {
	all, err := s.e.st.Sessions()
	if err != nil {
		return nil, err
	}
	cur, err := s.e.st.CurrentSession()
	if err != nil {
		return nil, err
	}
	out := []SessionInfo{}
	for _, se := range all {
		info, err := s.info(se, cur)
		if err != nil {
			return nil, err
		}
		out = append(out, *info)
	}
	return out, nil
}

// Current is the current session's name, "" when none is.
func (s *Sessions) Current() (string, error) { return s.e.st.CurrentSession() }

// Resolve names the session a call means: name, or for "" the current
// session; ErrNotFound when that session does not exist, or when name is
// "" and no session is current.
func (s *Sessions) Resolve(name string) (string, error) {
	se, err := s.load(name)
	if err != nil {
		return "", err
	}
	return se.Name, nil
}

// load reads the named session ("" for the current one), as Resolve
// finds it.
func (s *Sessions) load(name string) (*index.Session, error) {
	if name == "" {
		cur, err := s.Current()
		if err != nil {
			return nil, err
		}
		if cur == "" {
			return nil, fmt.Errorf("%w: no session is current; start one (braid sessions start NAME, or session_start) or name one", ErrNotFound)
		}
		name = cur
	}
	se, err := s.e.st.Session(name)
	if err != nil {
		return nil, err
	}
	if se == nil {
		return nil, fmt.Errorf("%w: no session %q; braid sessions lists them", ErrNotFound, name)
	}
	return se, nil
}

// Get describes the named session ("" for the current one).
func (s *Sessions) Get(name string) (*SessionInfo, error) {
	se, err := s.load(name)
	if err != nil {
		return nil, err
	}
	cur, err := s.e.st.CurrentSession()
	if err != nil {
		return nil, err
	}
	return s.info(se, cur)
}

func (s *Sessions) info(se *index.Session, cur string) (*SessionInfo, error) {
	info := &SessionInfo{Session: *se, Current: se.Name == cur}
	if info.Pins == nil {
		info.Pins = []string{}
	}
	if m, err := notes.CompilePins(se.Pins); err == nil {
		docs, err := s.e.nt.Pinned(m)
		if err != nil {
			return nil, err
		}
		info.Documents = len(docs)
	}
	return info, nil
}

// SessionStart is what Start did.
type SessionStart struct {
	SessionInfo
	Created bool `json:"created"` // the session did not exist before
}

// Start starts the named session, creating it (with description) when
// it does not exist, and makes it current; a description given for an
// existing session replaces its own. name "" starts the current session
// again.
func (s *Sessions) Start(name, description string) (*SessionStart, error) {
	if s.e.opt.ReadOnly {
		return nil, ErrReadOnly
	}
	if name == "" {
		var err error
		if name, err = s.Resolve(""); err != nil {
			return nil, err
		}
	}
	if err := checkName(name); err != nil {
		return nil, err
	}
	created := false
	now := time.Now().UTC()
	se, err := s.e.st.UpdateSession(name, func(se *index.Session, cur *string) (*index.Session, error) {
		if se == nil {
			created = true
			se = &index.Session{Pins: []string{}, Created: now}
		}
		if description != "" {
			se.Description = description
		}
		se.Active, se.Updated = true, now
		*cur = name
		return se, nil
	})
	if err != nil {
		return nil, err
	}
	info, err := s.info(se, name)
	if err != nil {
		return nil, err
	}
	return &SessionStart{SessionInfo: *info, Created: created}, nil
}

// Create creates the named session, neither started nor current, unless
// it exists; created says whether it did.
func (s *Sessions) Create(name, description string) (info *SessionInfo, created bool, err error) {
	if s.e.opt.ReadOnly {
		return nil, false, ErrReadOnly
	}
	if err := checkName(name); err != nil {
		return nil, false, err
	}
	var cur string
	now := time.Now().UTC()
	se, err := s.e.st.UpdateSession(name, func(se *index.Session, c *string) (*index.Session, error) {
		cur = *c
		if se != nil {
			return se, nil
		}
		created = true
		return &index.Session{Description: description, Pins: []string{}, Created: now, Updated: now}, nil
	})
	if err != nil {
		return nil, false, err
	}
	info, err = s.info(se, cur)
	return info, created, err
}

// Stop stops the named session ("" for the current one): it is no longer
// current nor watched. Its pins are kept, for a later Start.
func (s *Sessions) Stop(name string) (*SessionInfo, error) {
	return s.change(name, func(se *index.Session, cur *string) error {
		se.Active, se.Watch = false, false
		if *cur == se.Name {
			*cur = ""
		}
		return nil
	})
}

// SetWatch turns watching the named session's sources ("" for the current
// session's) on or off; a server watching the index acts on it.
func (s *Sessions) SetWatch(name string, on bool) (*SessionInfo, error) {
	return s.change(name, func(se *index.Session, _ *string) error {
		se.Watch = on
		return nil
	})
}

// Pinned is what Pin or Unpin did.
type Pinned struct {
	SessionInfo
	// Changed are the pins added (Pin) or removed (Unpin); pins already
	// there, or not there, are left out.
	Changed []string `json:"changed"`
	// Matched counts the indexed documents the pins given select now.
	Matched int `json:"matched"`
}

// Pin adds paths or globs to the named session ("" for the current one):
// relative to a source (notes/*.md, a folder such as projects/x), as
// source name/glob, or absolute inside a registered source. A pin
// selects among the indexed documents; it never adds a file.
func (s *Sessions) Pin(name string, pins []string) (*Pinned, error) {
	m, err := s.checkPins(pins)
	if err != nil {
		return nil, err
	}
	var added []string
	info, err := s.change(name, func(se *index.Session, _ *string) error {
		added = nil
		for _, p := range pins {
			if !slices.Contains(se.Pins, p) && !slices.Contains(added, p) {
				added = append(added, p)
			}
		}
		if len(se.Pins)+len(added) > MaxSessionPins {
			return fmt.Errorf("%w: session %s would hold %d pins, more than %d; unpin some first", ErrBadOption, se.Name, len(se.Pins)+len(added), MaxSessionPins)
		}
		se.Pins = append(se.Pins, added...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s.pinned(info, added, m)
}

// Unpin removes pins from the named session ("" for the current one):
// each as it was pinned.
func (s *Sessions) Unpin(name string, pins []string) (*Pinned, error) {
	if len(pins) == 0 {
		return nil, fmt.Errorf("%w: no pin to remove; give a path or glob as it was pinned", ErrBadOption)
	}
	var removed []string
	info, err := s.change(name, func(se *index.Session, _ *string) error {
		removed = nil
		se.Pins = slices.DeleteFunc(se.Pins, func(p string) bool {
			if slices.Contains(pins, p) {
				removed = append(removed, p)
				return true
			}
			return false
		})
		return nil
	})
	if err != nil {
		return nil, err
	}
	m, err := notes.CompilePins(pins)
	if err != nil {
		m, _ = notes.CompilePins(nil)
	}
	return s.pinned(info, removed, m)
}

func (s *Sessions) pinned(info *SessionInfo, changed []string, m *notes.PinMatcher) (*Pinned, error) {
	docs, err := s.e.nt.Pinned(m)
	if err != nil {
		return nil, err
	}
	if changed == nil {
		changed = []string{}
	}
	return &Pinned{SessionInfo: *info, Changed: changed, Matched: len(docs)}, nil
}

// change runs fn on the named session ("" for the current one) and saves
// it in one transaction.
func (s *Sessions) change(name string, fn func(se *index.Session, cur *string) error) (*SessionInfo, error) {
	if s.e.opt.ReadOnly {
		return nil, ErrReadOnly
	}
	name, err := s.Resolve(name)
	if err != nil {
		return nil, err
	}
	var cur string
	se, err := s.e.st.UpdateSession(name, func(se *index.Session, c *string) (*index.Session, error) {
		if se == nil {
			return nil, fmt.Errorf("%w: no session %q; braid sessions lists them", ErrNotFound, name)
		}
		if err := fn(se, c); err != nil {
			return nil, err
		}
		se.Updated = time.Now().UTC()
		cur = *c
		return se, nil
	})
	if err != nil {
		return nil, err
	}
	return s.info(se, cur)
}

// checkPins checks pins given to Pin: each a path or glob of at most
// 1024 bytes, an absolute one at or inside a registered source (or
// above one), and compiles them.
func (s *Sessions) checkPins(pins []string) (*notes.PinMatcher, error) {
	if len(pins) == 0 {
		return nil, fmt.Errorf("%w: no pin given; give a path or glob such as notes/*.md", ErrBadOption)
	}
	for _, p := range pins {
		if len(p) > maxPinLen {
			return nil, fmt.Errorf("%w: pin of %d bytes, want at most %d", ErrBadOption, len(p), maxPinLen)
		}
		if strings.ContainsRune(p, 0) {
			return nil, fmt.Errorf("%w: pin %q holds a NUL byte", ErrBadOption, p)
		}
	}
	m, err := notes.CompilePins(pins)
	if err != nil {
		return nil, err
	}
	srcs, err := s.e.Sources().List()
	if err != nil {
		return nil, err
	}
	for _, p := range pins {
		if !filepath.IsAbs(p) {
			continue
		}
		lit := literalDir(p)
		ok := false
		for _, src := range srcs {
			if src.Kind == index.SourceS3 || src.Kind == index.SourceStore {
				continue
			}
			if within(lit, src.Path) || within(src.Path, lit) {
				ok = true
				break
			}
		}
		if !ok {
			return nil, fmt.Errorf("%w: pin %q lies outside every registered source; a session selects indexed documents only (braid sources lists the sources)", ErrBadOption, p)
		}
	}
	return m, nil
}

// literalDir is the part of an absolute glob before its first wildcard,
// cut back to a whole path element.
func literalDir(glob string) string {
	i := strings.IndexAny(glob, "*?[\\")
	if i < 0 {
		return filepath.Clean(glob)
	}
	return filepath.Dir(glob[:i] + "x")
}

// within says whether path is dir or lies inside it.
func within(path, dir string) bool {
	r, err := filepath.Rel(dir, path)
	return err == nil && (r == "." || filepath.IsLocal(r))
}

// Sources lists the registered sources that hold documents the named
// session ("" for the current one) pins: those a watch of its set
// follows.
func (s *Sessions) Sources(name string) ([]*Source, error) {
	se, err := s.load(name)
	if err != nil {
		return nil, err
	}
	m, err := notes.CompilePins(se.Pins)
	if err != nil {
		return nil, fmt.Errorf("session %s: %w", se.Name, err)
	}
	return s.e.nt.PinnedSources(m)
}

// Text is the session as braid sessions prints it: its name, state and
// count, then its pins.
func (s *SessionInfo) Text() string {
	var b strings.Builder
	state := "stopped"
	switch {
	case s.Current:
		state = "current"
	case s.Active:
		state = "started"
	}
	if s.Watch {
		state += ", watched"
	}
	fmt.Fprintf(&b, "%s  (%s; %d documents)", s.Name, state, s.Documents)
	if s.Description != "" {
		fmt.Fprintf(&b, "  %s", s.Description)
	}
	b.WriteByte('\n')
	for _, p := range s.Pins {
		fmt.Fprintf(&b, "  pin %s\n", p)
	}
	return b.String()
}

// SessionList is the sessions as braid sessions lists them.
type SessionList []SessionInfo

// Text is one paragraph a session, or a line saying there are none.
func (l SessionList) Text() string {
	if len(l) == 0 {
		return "no sessions; braid sessions start NAME starts one\n"
	}
	var b strings.Builder
	for i := range l {
		b.WriteString(l[i].Text())
	}
	return b.String()
}

// Text is what Pin or Unpin did, then the session.
func (p *Pinned) Text() string {
	changed := "nothing changed"
	if len(p.Changed) > 0 {
		changed = "changed " + strings.Join(p.Changed, ", ")
	}
	return fmt.Sprintf("%s; the pins given select %d indexed documents now\n%s", changed, p.Matched, p.SessionInfo.Text())
}
