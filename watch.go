package braid

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/braidsearch/braid/ingest"
	"github.com/braidsearch/braid/watch"
)

// WatchOptions tune Engine.Watch. The zero value (or nil) means the
// defaults.
type WatchOptions struct {
	// Debounce is how long a source must stay quiet after a change before
	// it is re-indexed. Zero means 250ms.
	Debounce time.Duration
	// Rescan is how often the sources are walked to catch changes that
	// notifications missed. Zero means 30s. Where a folder cannot be
	// watched (the inotify limit), they are walked every 2s instead.
	Rescan time.Duration
	// Serialize runs each re-index; nil runs it directly. A caller that
	// also calls Index, Sources().Remove or Tag from other goroutines
	// passes a function that holds its own writer lock around index, since
	// those must not run concurrently.
	Serialize func(ctx context.Context, index func() error) error
	// Indexed is called after each re-index of a source, with its summary
	// (nil when the run failed before it began) and error. nil ignores them.
	Indexed func(src *Source, sum *Summary, err error)
	// Warn receives problems that do not stop watching. nil discards them.
	Warn func(error)
	// Ready is called once the sources are watched: a change made after
	// it returns is re-indexed. nil means no call.
	Ready func()
	// MaxFolders bounds the folders watched, all sources together
	// (watch.Options.MaxFolders); zero means 100,000.
	MaxFolders int
}

// Watch keeps registered sources indexed until ctx is done: a change to a
// source's files (create, write, delete, rename, an editor's atomic save,
// a new folder) re-indexes the changed files once the changes pause,
// reading only them (and the images a changed note links to), each
// decided as the walk of braid index decides. Where that might differ
// from indexing the whole source (a .gitignore changed, the folder itself
// changed, most of its files changed, notifications were lost, the
// source's file limit) it indexes the whole source, reading every file but
// re-embedding only the changed ones, and the summary says why
// (Summary.Walked). A source that is not a folder, or an index in a
// cluster, is indexed whole at each change. paths names the sources by
// their path (as given to Index); none means every registered source.
// A source Source.Usable refuses (untrusted, or moved) is neither walked
// nor watched, said once through Warn; with none left Watch returns that
// error. Sources removed meanwhile are no longer re-indexed. Watch returns
// nil when ctx is cancelled, after a re-index under way has finished.
func (e *Engine) Watch(ctx context.Context, paths []string, opt *WatchOptions) error {
	if err := e.mirrored(); err != nil {
		return err
	}
	if e.opt.ReadOnly {
		return ErrReadOnly
	}
	var o WatchOptions
	if opt != nil {
		o = *opt
	}
	all, err := e.st.Sources()
	if err != nil {
		return err
	}
	srcs, err := ingest.Watched(all, paths, o.Warn)
	if err != nil {
		return err
	}
	byRoot := map[string]*Source{}
	var roots []string
	for _, s := range srcs {
		if byRoot[s.Path] == nil {
			roots = append(roots, s.Path)
		}
		byRoot[s.Path] = s
	}
	// A .gitignore is hidden, and changes what is indexed.
	wopt := &watch.Options{Debounce: o.Debounce, Rescan: o.Rescan, MaxFolders: o.MaxFolders, Warn: o.Warn, Ready: o.Ready, Hidden: []string{".gitignore"},
		// A folder now reached through a link is dropped before a rescan.
		Check: func(root string) error { return byRoot[root].Usable() }}
	if e.cl == nil {
		dir, err := filepath.Abs(e.dir)
		if err != nil {
			return fmt.Errorf("watch %s: %w", e.dir, err)
		}
		// The index may live inside a source; its own writes are no change.
		wopt.Ignore = func(p string) bool { return p == dir || strings.HasPrefix(p, dir+string(filepath.Separator)) }
	}
	serialize := o.Serialize
	if serialize == nil {
		serialize = func(_ context.Context, index func() error) error { return index() }
	}
	return watch.Run(ctx, roots, wopt, func(ctx context.Context, batches []watch.Batch) {
		for _, b := range batches {
			src := byRoot[b.Root]
			if ctx.Err() != nil || src == nil {
				return
			}
			var sum *Summary
			gone := false
			err := serialize(ctx, func() error {
				cur, err := e.sourceByID(ctx, src.ID)
				if err != nil {
					return err
				}
				if cur == nil { // removed since: do not register it again
					gone = true
					return nil
				}
				// The registered record, as it is: naming its path again
				// would register wherever a link there now leads.
				if e.opt.ReadOnly {
					return ErrReadOnly
				}
				sum, err = e.indexChanged(ctx, cur, b, time.Now())
				return err
			})
			if gone {
				continue
			}
			if ctx.Err() != nil && err != nil {
				return // cancelled while indexing: every finished commit is kept
			}
			if o.Indexed != nil {
				o.Indexed(src, sum, err)
			}
		}
	})
}
