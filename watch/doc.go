// Package watch reports changes to files below a set of folders, debounced
// into batches, so that an index can follow edits as they happen.
//
// Run watches roots (folders, or single files) and calls back with one
// Batch per root that changed. Notifications come from fsnotify (inotify,
// kqueue, ReadDirectoryChangesW); folders created later are watched as they
// appear, and an editor's atomic save (write a temporary file, rename it
// over the original) arrives as one change to the original. A periodic
// rescan compares sizes and modification times to catch what notifications
// miss, and covers the folders left without a watch: at the system's limit
// on watches (inotify's ENOSPC, said once) at its usual interval, after
// another failure more often.
//
// Bounds: a Run takes in at most Options.MaxFolders folders (100,000 by
// default; past it a new folder is neither walked nor watched, said once),
// every walk stops as soon as the context is done, and Options.Check can
// drop a root before a rescan walks it (a folder that has come to pass
// through a symbolic link). The package does not follow symbolic links.
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
