// Package watch reports changes to files below a set of folders, debounced
// into batches, so that an index can follow edits as they happen.
//
// Run watches roots (folders, or single files) and calls back with one
// Batch per root that changed. Notifications come from fsnotify (inotify,
// kqueue, ReadDirectoryChangesW); folders created later are watched as they
// appear, and an editor's atomic save (write a temporary file, rename it
// over the original) arrives as one change to the original. A periodic
// rescan compares sizes and modification times to catch what notifications
// miss, and takes over, more often, where a watch cannot be added (the
// inotify limit, ENOSPC) or notifications are not available at all.
//
//	err := watch.Run(ctx, []string{"notes"}, nil, func(ctx context.Context, bs []watch.Batch) {
//		for _, b := range bs {
//			fmt.Println(b.Root, len(b.Paths), "changed")
//		}
//	})
//
// The package knows nothing of indexes; the caller decides what a change
// means. Caveats: hidden entries (names starting with ".") are never
// watched or reported, except files Options.Hidden names; a change that
// leaves a file's size and modification time as they were is seen only by
// notifications, not by rescans (a batch after lost notifications says
// so: Batch.Lost); the callback runs on one goroutine, one call at a
// time, and a slow callback delays the next batch but loses no change.
package watch
