package watch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Options tune Run. The zero value (or nil) means the documented defaults.
type Options struct {
	// Debounce is how long the tree must stay quiet after the last change
	// before the changes are delivered. Zero means 250ms.
	Debounce time.Duration
	// MaxDelay bounds how long a steady stream of changes can hold a batch
	// back. Zero means 2s.
	MaxDelay time.Duration
	// Rescan is how often the roots are walked to catch changes the
	// notifications missed (queue overflow, network file systems). Zero
	// means 30s; negative means never (while notifications work).
	Rescan time.Duration
	// Poll is the rescan interval used instead of Rescan when notifications
	// are not available for every folder: the watcher could not start, or
	// adding a watch failed for a reason other than the system's limit on
	// watches. Zero means 2s. Where that limit is reached (inotify's
	// ENOSPC, or EMFILE) the folders left without a watch are rescanned
	// every Rescan instead (30s when Rescan is negative): a faster loop
	// would only spend the limit's cost again.
	Poll time.Duration
	// MaxFolders bounds the folders one Run takes in, all roots together:
	// once it holds that many, a folder it has not seen is neither watched
	// nor walked (said once through Warn), so a root that holds a whole
	// file system costs a bounded walk, every rescan included. Zero means
	// DefaultMaxFolders.
	MaxFolders int
	// Check, when set, is asked before each walk of a root (the first, and
	// every rescan) whether the root may still be walked, with the root as
	// given to Run. An error drops the root: it is said through Warn, the
	// root's watches are removed, and it is not walked again. nil walks
	// every root.
	Check func(root string) error
	// PollOnly uses periodic rescans every Poll and no notifications.
	PollOnly bool
	// Ignore, when set, leaves out a path (and, for a folder, everything in
	// it): it is neither watched nor reported. Hidden entries (a name
	// starting with ".") below a root are always left out, as the indexer
	// leaves them out, except those Hidden names.
	Ignore func(path string) bool
	// Hidden names hidden files that are reported all the same, such as
	// ".gitignore": the indexer reads them though it indexes no hidden
	// entry.
	Hidden []string
	// Warn receives problems that do not stop watching (a watch that could
	// not be added, an unreadable folder). nil discards them.
	Warn func(error)
	// Ready, when set, is called once the roots are watched: a change made
	// after it returns is reported. nil means no call.
	Ready func()
}

func (o *Options) defaults() Options {
	var opt Options
	if o != nil {
		opt = *o
	}
	if opt.Debounce <= 0 {
		opt.Debounce = 250 * time.Millisecond
	}
	if opt.MaxDelay <= 0 {
		opt.MaxDelay = 2 * time.Second
	}
	if opt.MaxDelay < opt.Debounce {
		opt.MaxDelay = opt.Debounce
	}
	if opt.Rescan == 0 {
		opt.Rescan = 30 * time.Second
	}
	if opt.Poll <= 0 {
		opt.Poll = 2 * time.Second
	}
	if opt.Warn == nil {
		opt.Warn = func(error) {}
	}
	if opt.MaxFolders <= 0 {
		opt.MaxFolders = DefaultMaxFolders
	}
	return opt
}

// Batch is what changed under one root since the previous batch.
type Batch struct {
	Root  string   // the root as given to Run
	Paths []string // files and folders created, written, removed or renamed, absolute and sorted
	// Lost says notifications were lost (the system's queue of them
	// overflowed): Paths are what a rescan found changed, which misses a
	// change that kept a file's size and modification time, and may be
	// none. After an overflow every root gets such a batch.
	Lost bool
}

// ErrNoRoots is returned by Run when it is given nothing to watch.
var ErrNoRoots = errors.New("watch: no roots to watch")

// ErrTooManyFolders is the warning of a Run that met Options.MaxFolders.
var ErrTooManyFolders = errors.New("watch: too many folders")

// DefaultMaxFolders is Options.MaxFolders's default: far more folders than
// a notes vault or a code tree holds, far fewer than a whole disk (a
// Linux root holds hundreds of thousands).
const DefaultMaxFolders = 100_000

// root is one watched tree, or one watched file.
type root struct {
	given string // as passed to Run
	path  string // absolute and clean
	file  bool   // a single file: its folder is watched, only it reported
}

// entry is what a rescan remembers of a path.
type entry struct {
	size  int64
	mtime time.Time
	dir   bool
}

// watcher is the state of one Run; only Run's goroutine touches it.
type watcher struct {
	ctx     context.Context // Run's: a walk stops when it is done
	opt     Options
	roots   []root
	fs      *fsnotify.Watcher      // nil when polling only
	add     func(dir string) error // fs.Add; a test replaces it
	watched map[string]bool        // folders with a notification watch
	polling bool                   // some folder has no watch: rescan every Poll
	limited bool                   // the system's limit on watches was reached: rescan every Rescan
	full    bool                   // this walk met the limit: it adds no more watches
	capped  bool                   // MaxFolders was reached (and said)
	snap    map[string]entry       // path -> state at the last look
	dirs    int                    // folders in snap
	pending map[string]map[string]bool
	lost    bool // notifications were lost since the last take
}

// Run watches roots (folders, or single files) until ctx is done, and
// calls fn with the changes, debounced: a burst of events (an editor's
// write-temp-then-rename save, a git checkout) becomes one call once the
// tree has been quiet for Options.Debounce. fn runs on its own goroutine,
// one call at a time; changes that happen meanwhile are delivered in the
// next call. New folders are watched as they appear. Notifications come
// from fsnotify; periodic rescans catch what they miss, and take over
// when a watch cannot be added. The folders taken in are bounded
// (Options.MaxFolders), and every walk stops as soon as ctx is done. Run
// returns nil when ctx is cancelled, after the call in progress returns;
// it returns an error only when a root cannot be read at the start.
func Run(ctx context.Context, roots []string, opt *Options, fn func(context.Context, []Batch)) error {
	if len(roots) == 0 {
		return ErrNoRoots
	}
	w := newWatcher(ctx, opt)
	for _, r := range roots {
		abs, err := filepath.Abs(r)
		if err != nil {
			return fmt.Errorf("watch: %s: %w", r, err)
		}
		info, err := os.Stat(abs)
		if err != nil {
			return fmt.Errorf("watch: %w", err)
		}
		w.roots = append(w.roots, root{given: r, path: abs, file: !info.IsDir()})
	}
	if !w.opt.PollOnly {
		fw, err := fsnotify.NewBufferedWatcher(1024)
		switch {
		case err != nil && atLimit(err):
			w.opt.Warn(fmt.Errorf("watch: notifications unavailable (the system's limit on inotify instances is reached; raise fs.inotify.max_user_instances), rescanning every %v: %w", w.limitedEvery(), err))
			w.limited = true
		case err != nil:
			w.opt.Warn(fmt.Errorf("watch: notifications unavailable, rescanning every %v: %w", w.opt.Poll, err))
			w.polling = true
		default:
			w.fs, w.add = fw, fw.Add
			defer fw.Close()
		}
	} else {
		w.polling = true
	}
	for _, r := range slices.Clone(w.roots) { // allowed may drop one
		if !w.allowed(r) {
			continue
		}
		if r.file {
			w.addWatch(filepath.Dir(r.path))
			w.look(r.path, nil)
		} else {
			w.addTree(r.path, nil, nil)
		}
	}
	if ctx.Err() != nil {
		return nil // cancelled during the first walk
	}
	if w.opt.Ready != nil {
		w.opt.Ready()
	}
	return w.loop(ctx, fn)
}

func newWatcher(ctx context.Context, opt *Options) *watcher {
	return &watcher{ctx: ctx, opt: opt.defaults(), watched: map[string]bool{}, snap: map[string]entry{}, pending: map[string]map[string]bool{}}
}

// allowed asks Options.Check whether r may be walked; a root it refuses is
// dropped, with its watches and what the snapshot had of it.
func (w *watcher) allowed(r root) bool {
	if w.opt.Check == nil {
		return true
	}
	err := w.opt.Check(r.given)
	if err == nil {
		return true
	}
	w.opt.Warn(fmt.Errorf("watch: no longer watching %s: %w", r.given, err))
	w.roots = slices.DeleteFunc(w.roots, func(o root) bool { return o == r })
	w.forget(r.path, nil) // a file root's folder keeps its watch; its events have no root now
	return false
}

// atLimit says whether err is the system's limit on watches or on
// inotify instances.
func atLimit(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EMFILE)
}

func (w *watcher) loop(ctx context.Context, fn func(context.Context, []Batch)) error {
	var events <-chan fsnotify.Event
	var errs <-chan error
	if w.fs != nil {
		events, errs = w.fs.Events, w.fs.Errors
	}
	work := make(chan []Batch)
	idle := make(chan struct{})
	go func() {
		defer close(idle)
		for b := range work {
			fn(ctx, b)
		}
	}()
	defer func() { close(work); <-idle }()

	debounce := time.NewTimer(time.Hour)
	debounce.Stop()
	var first time.Time // when the oldest pending change came in
	var due []Batch     // ready, waiting for fn to be free
	var out chan []Batch
	rescan := time.NewTimer(w.rescanEvery())
	defer rescan.Stop()
	changed := func() {
		if len(w.pending) == 0 {
			return
		}
		now := time.Now()
		if first.IsZero() {
			first = now
		}
		wait := min(w.opt.Debounce, w.opt.MaxDelay-now.Sub(first))
		debounce.Reset(max(wait, 0))
	}
	for {
		select {
		case <-ctx.Done():
			debounce.Stop()
			return nil
		case out <- due:
			due, out = nil, nil
		case ev, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			w.event(ev)
			changed()
		case err, ok := <-errs:
			if !ok {
				errs = nil
				continue
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				w.opt.Warn(fmt.Errorf("watch: too many changes at once, rescanning: %w", err))
				w.overflowed()
				changed()
				continue
			}
			w.opt.Warn(fmt.Errorf("watch: %w", err))
		case <-rescan.C:
			w.rescan()
			changed()
			rescan.Reset(w.rescanEvery())
		case <-debounce.C:
			first = time.Time{}
			due = merge(due, w.take())
			if len(due) > 0 {
				out = work
			}
		}
	}
}

func (w *watcher) rescanEvery() time.Duration {
	switch {
	case w.polling:
		return w.opt.Poll
	case w.limited:
		return w.limitedEvery()
	case w.opt.Rescan < 0:
		return 100 * 365 * 24 * time.Hour
	}
	return w.opt.Rescan
}

// limitedEvery is the rescan interval once the system's limit on watches
// is reached: the usual one, never faster.
func (w *watcher) limitedEvery() time.Duration {
	if w.opt.Rescan < 0 {
		return 30 * time.Second
	}
	return w.opt.Rescan
}

// overflowed follows notifications that were lost: a rescan finds what
// changed, and every root's next batch says that it may miss some.
func (w *watcher) overflowed() {
	w.rescan()
	w.lost = true
	for _, r := range w.roots {
		if w.pending[r.given] == nil {
			w.pending[r.given] = map[string]bool{}
		}
	}
}

// skip says whether a path below a root is left out.
func (w *watcher) skip(p string) bool {
	for _, r := range w.roots {
		if p == r.path {
			return false
		}
	}
	base := filepath.Base(p)
	hidden := strings.HasPrefix(base, ".") && !slices.Contains(w.opt.Hidden, base)
	return hidden || (w.opt.Ignore != nil && w.opt.Ignore(p))
}

// owners lists the roots a path belongs to.
func (w *watcher) owners(p string) []*root {
	var rs []*root
	for i := range w.roots {
		r := &w.roots[i]
		if p == r.path || (!r.file && strings.HasPrefix(p, r.path+string(filepath.Separator))) {
			rs = append(rs, r)
		}
	}
	return rs
}

// mark records a change to p for every root it belongs to.
func (w *watcher) mark(p string) {
	for _, r := range w.owners(p) {
		set := w.pending[r.given]
		if set == nil {
			set = map[string]bool{}
			w.pending[r.given] = set
		}
		set[p] = true
	}
}

// take returns the pending changes as batches and clears them.
func (w *watcher) take() []Batch {
	var bs []Batch
	for r, set := range w.pending {
		b := Batch{Root: r, Lost: w.lost}
		for p := range set {
			b.Paths = append(b.Paths, p)
		}
		slices.Sort(b.Paths)
		bs = append(bs, b)
	}
	clear(w.pending)
	w.lost = false
	return bs
}

// merge adds the batches of more to bs, one batch per root.
func merge(bs, more []Batch) []Batch {
	for _, m := range more {
		i := slices.IndexFunc(bs, func(b Batch) bool { return b.Root == m.Root })
		if i < 0 {
			bs = append(bs, m)
			continue
		}
		bs[i].Lost = bs[i].Lost || m.Lost
		for _, p := range m.Paths {
			if !slices.Contains(bs[i].Paths, p) {
				bs[i].Paths = append(bs[i].Paths, p)
			}
		}
		slices.Sort(bs[i].Paths)
	}
	slices.SortFunc(bs, func(a, b Batch) int { return strings.Compare(a.Root, b.Root) })
	return bs
}

// addWatch asks for notifications on one folder. When the system's
// limit on watches is reached, that is said once, the folders left without
// a watch are rescanned every Rescan, and the rest of this walk asks for no
// more (the next rescan tries once again, in case watches were freed).
// Another failure falls back to polling every Poll.
func (w *watcher) addWatch(dir string) {
	if w.add == nil || w.watched[dir] || w.full {
		return
	}
	if err := w.add(dir); err != nil {
		if atLimit(err) {
			if !w.limited {
				w.opt.Warn(fmt.Errorf("watch: cannot watch %s: the system's limit on watches is reached after %d folders (raise fs.inotify.max_user_watches); the folders without a watch are rescanned every %v instead: %w", dir, len(w.watched), w.limitedEvery(), err))
			}
			w.limited, w.full = true, true
			return
		}
		if !w.polling {
			w.opt.Warn(fmt.Errorf("watch: cannot watch %s; rescanning every %v instead: %w", dir, w.opt.Poll, err))
		}
		w.polling = true
		return
	}
	w.watched[dir] = true
}

// addTree watches a folder and every folder below it, and records their
// files (into seen, when not nil). With report set, every file found is marked as changed (a folder
// that appeared, or was moved in, with files already inside). A folder
// not seen before is left out once the watcher holds MaxFolders; the walk
// stops when the Run's context is done.
func (w *watcher) addTree(dir string, report func(string), seen map[string]bool) {
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if w.ctx.Err() != nil {
			return fs.SkipAll
		}
		if err != nil {
			if p != dir {
				w.opt.Warn(fmt.Errorf("watch: %w", err))
			}
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if w.skip(p) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if _, known := w.snap[p]; !known && w.dirs >= w.opt.MaxFolders {
				if !w.capped {
					w.capped = true
					w.opt.Warn(fmt.Errorf("%w: %d taken in, the most one watch takes; %s and the folders after it are left out, and changes there are not followed (watch a smaller folder, or run braid index for them)", ErrTooManyFolders, w.dirs, p))
				}
				return fs.SkipDir
			}
			w.addWatch(p)
		}
		w.look(p, report)
		if seen != nil {
			seen[p] = true
		}
		return nil
	})
	if err != nil {
		w.opt.Warn(fmt.Errorf("watch: %w", err))
	}
}

// look records p's state in the snapshot, and reports it when the state
// differs from what the snapshot had.
func (w *watcher) look(p string, report func(string)) {
	info, err := os.Stat(p)
	if err != nil {
		w.forget(p, report)
		return
	}
	e := entry{size: info.Size(), mtime: info.ModTime(), dir: info.IsDir()}
	if e.dir {
		e.size, e.mtime = 0, time.Time{} // a folder's own changes show in its entries
	}
	old, ok := w.snap[p]
	if ok && old.dir {
		w.dirs--
	}
	if e.dir {
		w.dirs++
	}
	w.snap[p] = e
	if report != nil && (!ok || old != e) {
		report(p)
	}
}

// forget drops p and everything below it from the snapshot and the
// watch list, reporting each path the snapshot had.
func (w *watcher) forget(p string, report func(string)) {
	prefix := p + string(filepath.Separator)
	for q, e := range w.snap {
		if q == p || strings.HasPrefix(q, prefix) {
			if e.dir {
				w.dirs--
			}
			delete(w.snap, q)
			if report != nil {
				report(q)
			}
		}
	}
	for q := range w.watched {
		if q == p || strings.HasPrefix(q, prefix) {
			delete(w.watched, q)
			if w.fs != nil {
				_ = w.fs.Remove(q) // gone already when the folder was deleted
			}
		}
	}
}

// event handles one notification.
func (w *watcher) event(ev fsnotify.Event) {
	p := filepath.Clean(ev.Name)
	if ev.Op == fsnotify.Chmod || len(w.owners(p)) == 0 || w.skip(p) {
		return
	}
	w.mark(p)
	info, err := os.Stat(p)
	switch {
	case err != nil: // removed, or renamed away
		w.forget(p, w.mark)
	case info.IsDir():
		if w.inRecursiveRoot(p) {
			w.addTree(p, w.mark, nil) // a new or moved-in folder: files may be in it already
		}
	default:
		w.look(p, nil)
	}
}

func (w *watcher) inRecursiveRoot(p string) bool {
	for _, r := range w.owners(p) {
		if !r.file {
			return true
		}
	}
	return false
}

// rescan walks every root and marks what changed since the last look. A
// rescan cut short by the Run's end marks nothing more.
func (w *watcher) rescan() {
	seen := map[string]bool{}
	w.full = false
	for _, r := range slices.Clone(w.roots) {
		if !w.allowed(r) {
			continue
		}
		if r.file {
			w.look(r.path, w.mark)
			seen[r.path] = true
			continue
		}
		w.addTree(r.path, w.mark, seen)
	}
	if w.ctx.Err() != nil {
		return
	}
	for q := range w.snap {
		if !seen[q] {
			w.forget(q, w.mark)
		}
	}
}
