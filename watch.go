package braid

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/braidsearch/braid/bucket"
	"github.com/braidsearch/braid/index"
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
}

// Watch keeps registered sources indexed until ctx is done: a change to a
// source's files (create, write, delete, rename, an editor's atomic save,
// a new folder) re-indexes that source once the changes pause, which reads
// every file but re-embeds only the changed ones. paths names the sources
// by their path (as given to Index); none means every registered source.
// Sources removed while it runs are no longer re-indexed. Watch returns
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
	// The document store changes only through Add, Update and Delete,
	// which index it themselves: there is nothing to watch. A bucket has
	// no change notifications braid could follow.
	registered := len(all)
	all = slices.DeleteFunc(all, func(s *Source) bool { return s.Kind == index.SourceStore || s.Kind == index.SourceS3 })
	var srcs []*Source
	if len(paths) == 0 {
		srcs = all
		if len(srcs) == 0 && registered > 0 {
			return fmt.Errorf("%w: no source here can be watched (S3 sources and the document store are not); run braid index to pick up changes", ErrNotFound)
		}
		if len(srcs) == 0 {
			return fmt.Errorf("%w: no sources registered yet; run braid index PATH", ErrNotFound)
		}
	}
	for _, p := range paths {
		if bucket.IsURL(p) {
			return fmt.Errorf("%w: %s: S3 sources cannot be watched; run braid index again to pick up changes in the bucket", ErrBadOption, p)
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			return fmt.Errorf("braid: %s: %w", p, err)
		}
		var found *Source
		for _, s := range all {
			if s.Path == abs {
				found = s
			}
		}
		if found == nil {
			return fmt.Errorf("%w: no source at %s; index it before watching it", ErrNotFound, abs)
		}
		srcs = append(srcs, found)
	}
	byRoot := map[string]*Source{}
	var roots []string
	for _, s := range srcs {
		if byRoot[s.Path] == nil {
			roots = append(roots, s.Path)
		}
		byRoot[s.Path] = s
	}
	wopt := &watch.Options{Debounce: o.Debounce, Rescan: o.Rescan, Warn: o.Warn}
	if e.cl == nil {
		dir, err := filepath.Abs(e.dir)
		if err != nil {
			return fmt.Errorf("braid: %s: %w", e.dir, err)
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
				sum, err = e.Index(ctx, []SourceSpec{{Path: src.Path}}, nil)
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
