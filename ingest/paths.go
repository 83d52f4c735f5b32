package ingest

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/braidsearch/braid/index"
)

// minWalkPaths is the fewest changed paths for which IndexPaths walks the
// whole source because they are most of it: below it, looking at each is
// cheap whatever the source's size.
const minWalkPaths = 64

// IndexPaths brings the index in step with what changed at paths
// (absolute, below the folder source src, as package watch reports them)
// as Index brings it in step with the whole source, looking only at them:
// each is decided as the walk decides (the source's globs, .gitignore
// files, hidden entries, size limits, links leading out, FIFOs), a folder
// that appeared is walked, a path that is gone or no longer listed loses
// its document and those below it, and only the listed files are read.
// An image linked from a changed note, before or after the change, is
// indexed again, as a walk would find its text changed. The commits are
// those of Index, each crash-safe.
//
// It walks the whole source instead, as Index, saying why in sum.Walked,
// where looking at the paths alone might not do what the walk does: a
// .gitignore changed, the source folder itself changed, the paths are
// most of the source, its files are not counted yet (Source.Files) or
// new files could take it past its MaxFiles. A source that is not a
// folder, or a Remote target, is indexed whole.
func (ix *Indexer) IndexPaths(ctx context.Context, src *index.Source, paths []string, sum *Summary) (err error) {
	defer ix.settle(&err)
	if src.Kind != index.SourceDir || ix.Remote != nil {
		return ix.Index(ctx, src, sum)
	}
	rels, why := changedRels(src, paths)
	if why == "" && src.Files == 0 {
		// Zero is an empty source, or one an older braid indexed.
		held, err := ix.Store.Holds(src.ID)
		if err != nil {
			return err
		}
		if held {
			why = "the source's files are not counted yet"
		}
	}
	if why == "" {
		before := *sum
		sum.Sources++
		var err error
		if why, err = ix.indexPaths(ctx, src, rels, sum); err != nil {
			return err
		}
		if why == "" {
			src.IndexedAt = time.Now().UTC()
			return ix.Store.PutSource(src)
		}
		*sum = before // nothing was written: the walk counts afresh
	}
	sum.Walked = why
	return ix.Index(ctx, src, sum)
}

// changedRels turns a watch's paths into paths relative to the source,
// sorted and distinct, or says why the whole source must be walked.
func changedRels(src *index.Source, paths []string) ([]string, string) {
	var rels []string
	for _, p := range paths {
		rel, err := filepath.Rel(src.Path, p)
		switch {
		case err == nil && rel == ".":
			return nil, "the source folder itself changed"
		case err != nil || !filepath.IsLocal(rel):
			return nil, fmt.Sprintf("%s is not below the source", p)
		case filepath.Base(rel) == ".gitignore":
			return nil, "a .gitignore changed"
		}
		rels = append(rels, filepath.ToSlash(rel))
	}
	slices.Sort(rels)
	rels = slices.Compact(rels)
	if len(rels) >= minWalkPaths && 2*len(rels) > src.Files {
		return nil, fmt.Sprintf("%d paths changed, over half the source's %d files", len(rels), src.Files)
	}
	return rels, ""
}

// indexPaths is IndexPaths over the changed paths rels, once they are
// known to be few and none a .gitignore. Before it writes anything it may
// find that the whole source must be walked, and says why.
func (ix *Indexer) indexPaths(ctx context.Context, src *index.Source, rels []string, sum *Summary) (string, error) {
	w, err := newWalker(src, &sum.Skipped, func(err error) {
		sum.Errors = append(sum.Errors, FileError{Path: src.Path, Err: err.Error()})
	})
	if err != nil {
		return "", err
	}
	var files []file
	for _, rel := range rels {
		if files, err = w.changed(rel, files); err != nil {
			return "", err
		}
	}
	// A folder that appeared comes with the files in it: each once.
	slices.SortFunc(files, func(a, b file) int { return strings.Compare(a.rel, b.rel) })
	files = slices.CompactFunc(files, func(a, b file) bool { return a.rel == b.rel })
	entries, err := ix.Store.EntriesAt(src.ID, rels)
	if err != nil {
		return "", err
	}
	listed := make(map[string]bool, len(files))
	added := 0
	for _, f := range files {
		listed[f.rel] = true
		if _, ok := entries[f.rel]; !ok {
			added++
		}
	}
	if limit := maxFiles(src); src.Files+added > limit {
		return fmt.Sprintf("%d new file(s) could take the source's %d files past its %d-file limit", added, src.Files, limit), nil
	}
	sum.Paths = len(rels)
	if added > 0 {
		// Counted before the commits, so that a run cut short leaves an
		// upper bound.
		src.Files += added
		if err := ix.Store.PutSource(src); err != nil {
			return "", err
		}
		src.Files -= added
	}
	// The images the changed notes linked to before: their text may lose
	// a passage.
	var links []imageLink
	for rel, e := range entries {
		if IsImage(rel) {
			continue
		}
		d, err := ix.Store.Doc(e.DocID)
		if err != nil {
			return "", err
		}
		links = imageLinks(links, d)
	}
	notes, imgs := ix.images(src, files)
	seen := make(map[string]bool, len(files))
	rd := openReader(src)
	defer rd.close()
	b := ix.newBatch(ctx, 1)
	if err := ix.ingest(ctx, src, rd, notes, len(imgs), entries, seen, sum, b, nil); err != nil {
		return "", err
	}
	if err := b.flush(); err != nil {
		return "", err
	}
	for _, f := range notes {
		if !seen[f.rel] {
			continue
		}
		d, err := ix.Store.DocByPath(src.ID, f.rel)
		if err != nil {
			return "", err
		}
		links = imageLinks(links, d)
	}
	imgs, all, err := ix.relinked(src, w, imgs, entries, links)
	if err != nil {
		return "", err
	}
	removed := 0
	for _, f := range imgs {
		listed[f.rel] = true
	}
	for rel := range entries {
		if !listed[rel] {
			removed++
		}
	}
	if err := b.drop(entries, seen, imgs, sum); err != nil {
		return "", err
	}
	if err := ix.indexImages(src, rd, imgs, all, entries, seen, sum, b); err != nil {
		return "", err
	}
	if err := b.finish(entries, seen, sum); err != nil {
		return "", err
	}
	src.Files = max(src.Files+added-removed, 0)
	return "", nil
}

// imageLink is a link from a note that may lead to an image: the note's
// path and the link's target, as imageContexts reads them.
type imageLink struct{ note, target string }

// imageLinks adds the links of d that may lead to an image to links.
func imageLinks(links []imageLink, d *index.Document) []imageLink {
	if d == nil || d.Kind == index.KindImage {
		return links
	}
	for _, l := range d.Links {
		if t := strings.TrimPrefix(l.Target, "/"); IsImage(t) {
			links = append(links, imageLink{note: d.Path, target: t})
		}
	}
	return links
}

// relinked adds to imgs, the changed images a changed-paths run lists,
// every other image of the source whose text the run may have changed:
// one that a changed note links to (links, by any of the ways
// imageContexts resolves a link) and one whose file name a changed image
// shares (a link by name finds one image fewer or more). Each is listed
// through w as the walk would list it, and its entry added to entries.
// It also returns every image of the source, the paths a link may name.
func (ix *Indexer) relinked(src *index.Source, w *walker, imgs []file, entries map[string]index.Entry, links []imageLink) ([]file, []string, error) {
	names := map[string]bool{}
	for rel := range entries {
		if IsImage(rel) {
			names[strings.ToLower(path.Base(rel))] = true
		}
	}
	for _, f := range imgs {
		names[strings.ToLower(path.Base(f.rel))] = true
	}
	if len(names) == 0 && len(links) == 0 {
		return imgs, nil, nil
	}
	targets := map[string]bool{}
	for _, l := range links {
		targets[path.Join(path.Dir(l.note), l.target)] = true
		targets[path.Clean(l.target)] = true
		names[strings.ToLower(path.Base(l.target))] = true
	}
	stored, err := ix.Store.Entries(src.ID)
	if err != nil {
		return nil, nil, err
	}
	var all []string
	for _, f := range imgs {
		all = append(all, f.rel)
	}
	for rel, e := range stored {
		if _, changed := entries[rel]; changed || !IsImage(rel) || !utf8.ValidString(rel) {
			continue
		}
		all = append(all, rel)
		if !targets[rel] && !names[strings.ToLower(path.Base(rel))] {
			continue
		}
		entries[rel] = e
		found, err := w.changed(rel, nil)
		if err != nil {
			return nil, nil, err
		}
		imgs = append(imgs, found...)
	}
	slices.Sort(all)
	slices.SortFunc(imgs, func(a, b file) int { return strings.Compare(a.rel, b.rel) })
	return imgs, all, nil
}
