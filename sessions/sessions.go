package sessions

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/braidsearch/braid/index"
)

// Config is what a Store needs from the engine that owns it.
type Config struct {
	// Index keeps the sessions (on a cluster backend, the engine's local
	// copy of the cluster's documents) and the documents their pins
	// select.
	Index *index.Store
	// Sources lists the registered sources, which an absolute pin must
	// lie in. Nil reads Index's.
	Sources func(ctx context.Context) ([]*index.Source, error)
	// ReadOnly refuses every change with index.ErrReadOnly.
	ReadOnly bool
}

// Store is the index's sessions: named working sets, as YAMS has them.
// Its methods are safe for concurrent use; each change is one
// transaction of the index's store.
type Store struct{ c Config }

// New returns the sessions c's index keeps.
func New(c Config) *Store { return &Store{c: c} }

// Info is a session with what it selects now.
type Info struct {
	Record
	// Current says it is the current session: the one a tool that names
	// none is scoped to.
	Current bool `json:"current"`
	// Documents counts the indexed documents its pins select now.
	Documents int `json:"documents"`
}

// Limits on what a session holds.
const (
	MaxPins   = 256
	maxPinLen = 1024
)

var sessionName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// checkName refuses a session name that is not 1 to 64 letters, digits,
// dots, dashes and underscores.
func checkName(name string) error {
	if !sessionName.MatchString(name) {
		return fmt.Errorf("%w: session name %q; want 1 to 64 letters, digits, '.', '-' or '_', starting with a letter or digit", index.ErrBadOption, name)
	}
	return nil
}

// List lists the sessions by name.
func (s *Store) List() ([]Info, error) {
	all, err := records(s.c.Index)
	if err != nil {
		return nil, err
	}
	cur, err := current(s.c.Index)
	if err != nil {
		return nil, err
	}
	out := []Info{}
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
func (s *Store) Current() (string, error) { return current(s.c.Index) }

// Resolve names the session a call means: name, or for "" the current
// session; index.ErrNotFound when that session does not exist, or when name is
// "" and no session is current.
func (s *Store) Resolve(name string) (string, error) {
	se, err := s.load(name)
	if err != nil {
		return "", err
	}
	return se.Name, nil
}

// load reads the named session ("" for the current one), as Resolve
// finds it.
func (s *Store) load(name string) (*Record, error) {
	if name == "" {
		cur, err := s.Current()
		if err != nil {
			return nil, err
		}
		if cur == "" {
			return nil, fmt.Errorf("%w: no session is current; start one (braid sessions start NAME, or session_start) or name one", index.ErrNotFound)
		}
		name = cur
	}
	se, err := record(s.c.Index, name)
	if err != nil {
		return nil, err
	}
	if se == nil {
		return nil, fmt.Errorf("%w: no session %q; braid sessions lists them", index.ErrNotFound, name)
	}
	return se, nil
}

// Get describes the named session ("" for the current one).
func (s *Store) Get(name string) (*Info, error) {
	se, err := s.load(name)
	if err != nil {
		return nil, err
	}
	cur, err := current(s.c.Index)
	if err != nil {
		return nil, err
	}
	return s.info(se, cur)
}

func (s *Store) info(se *Record, cur string) (*Info, error) {
	info := &Info{Record: *se, Current: se.Name == cur}
	if info.Pins == nil {
		info.Pins = []string{}
	}
	if m, err := compile(se.Pins); err == nil {
		docs, err := pinned(s.c.Index, m)
		if err != nil {
			return nil, err
		}
		info.Documents = len(docs)
	}
	return info, nil
}

// Started is what Start did.
type Started struct {
	Info
	Created bool `json:"created"` // the session did not exist before
}

// Start starts the named session, creating it (with description) when
// it does not exist, and makes it current; a description given for an
// existing session replaces its own. name "" starts the current session
// again.
func (s *Store) Start(name, description string) (*Started, error) {
	if s.c.ReadOnly {
		return nil, index.ErrReadOnly
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
	se, err := update(s.c.Index, name, func(se *Record, cur *string) (*Record, error) {
		if se == nil {
			created = true
			se = &Record{Pins: []string{}, Created: now}
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
	return &Started{Info: *info, Created: created}, nil
}

// Create creates the named session, neither started nor current, unless
// it exists; created says whether it did.
func (s *Store) Create(name, description string) (info *Info, created bool, err error) {
	if s.c.ReadOnly {
		return nil, false, index.ErrReadOnly
	}
	if err := checkName(name); err != nil {
		return nil, false, err
	}
	var cur string
	now := time.Now().UTC()
	se, err := update(s.c.Index, name, func(se *Record, c *string) (*Record, error) {
		cur = *c
		if se != nil {
			return se, nil
		}
		created = true
		return &Record{Description: description, Pins: []string{}, Created: now, Updated: now}, nil
	})
	if err != nil {
		return nil, false, err
	}
	info, err = s.info(se, cur)
	return info, created, err
}

// Stop stops the named session ("" for the current one): it is no longer
// current nor watched. Its pins are kept, for a later Start.
func (s *Store) Stop(name string) (*Info, error) {
	return s.change(name, func(se *Record, cur *string) error {
		se.Active, se.Watch = false, false
		if *cur == se.Name {
			*cur = ""
		}
		return nil
	})
}

// SetWatch turns watching the named session's sources ("" for the current
// session's) on or off; a server watching the index acts on it.
func (s *Store) SetWatch(name string, on bool) (*Info, error) {
	return s.change(name, func(se *Record, _ *string) error {
		se.Watch = on
		return nil
	})
}

// Pinned is what Pin or Unpin did.
type Pinned struct {
	Info
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
func (s *Store) Pin(ctx context.Context, name string, pins []string) (*Pinned, error) {
	m, err := s.checkPins(ctx, pins)
	if err != nil {
		return nil, err
	}
	var added []string
	info, err := s.change(name, func(se *Record, _ *string) error {
		added = nil
		for _, p := range pins {
			if !slices.Contains(se.Pins, p) && !slices.Contains(added, p) {
				added = append(added, p)
			}
		}
		if len(se.Pins)+len(added) > MaxPins {
			return fmt.Errorf("%w: session %s would hold %d pins, more than %d; unpin some first", index.ErrBadOption, se.Name, len(se.Pins)+len(added), MaxPins)
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
func (s *Store) Unpin(name string, pins []string) (*Pinned, error) {
	if len(pins) == 0 {
		return nil, fmt.Errorf("%w: no pin to remove; give a path or glob as it was pinned", index.ErrBadOption)
	}
	var removed []string
	info, err := s.change(name, func(se *Record, _ *string) error {
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
	m, err := compile(pins)
	if err != nil {
		m, _ = compile(nil)
	}
	return s.pinned(info, removed, m)
}

func (s *Store) pinned(info *Info, changed []string, m *matcher) (*Pinned, error) {
	docs, err := pinned(s.c.Index, m)
	if err != nil {
		return nil, err
	}
	if changed == nil {
		changed = []string{}
	}
	return &Pinned{Info: *info, Changed: changed, Matched: len(docs)}, nil
}

// change runs fn on the named session ("" for the current one) and saves
// it in one transaction.
func (s *Store) change(name string, fn func(se *Record, cur *string) error) (*Info, error) {
	if s.c.ReadOnly {
		return nil, index.ErrReadOnly
	}
	name, err := s.Resolve(name)
	if err != nil {
		return nil, err
	}
	var cur string
	se, err := update(s.c.Index, name, func(se *Record, c *string) (*Record, error) {
		if se == nil {
			return nil, fmt.Errorf("%w: no session %q; braid sessions lists them", index.ErrNotFound, name)
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
// 1024 bytes that can select a document (PinProblem), an absolute one at
// or inside a registered source (or above one), and compiles them.
func (s *Store) checkPins(ctx context.Context, pins []string) (*matcher, error) {
	if len(pins) == 0 {
		return nil, fmt.Errorf("%w: no pin given; give a path or glob such as notes/*.md", index.ErrBadOption)
	}
	for _, p := range pins {
		if len(p) > maxPinLen {
			return nil, fmt.Errorf("%w: pin of %d bytes, want at most %d", index.ErrBadOption, len(p), maxPinLen)
		}
		if strings.ContainsRune(p, 0) {
			return nil, fmt.Errorf("%w: pin %q holds a NUL byte", index.ErrBadOption, p)
		}
		if why := PinProblem(p); why != "" {
			return nil, fmt.Errorf("%w: pin %q %s", index.ErrBadOption, p, why)
		}
	}
	m, err := compile(pins)
	if err != nil {
		return nil, err
	}
	srcs, err := s.sources(ctx)
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
			return nil, fmt.Errorf("%w: pin %q lies outside every registered source; a session selects indexed documents only (braid sources lists the sources)", index.ErrBadOption, p)
		}
	}
	return m, nil
}

// sources lists the registered sources (Config.Sources).
func (s *Store) sources(ctx context.Context) ([]*index.Source, error) {
	if s.c.Sources == nil {
		return s.c.Index.Sources()
	}
	return s.c.Sources(ctx)
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
func (s *Store) Sources(name string) ([]*index.Source, error) {
	se, err := s.load(name)
	if err != nil {
		return nil, err
	}
	m, err := compile(se.Pins)
	if err != nil {
		return nil, fmt.Errorf("session %s: %w", se.Name, err)
	}
	return pinnedSources(s.c.Index, m)
}
