package ingest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/braidsearch/braid/blob"
	"github.com/braidsearch/braid/bucket"

	"github.com/braidsearch/braid/index"
)

// ErrNoAWS means an S3 source was indexed by an Indexer without AWS
// configuration (Indexer.AWS).
var ErrNoAWS = errors.New("index: S3 sources need the AWS configuration, and this indexer has none")

// s3Fetchers bounds the downloads under way at once: they wait on the
// network, not the CPU.
const s3Fetchers = 8

// fetched is an S3 object after downloading (or not), hashing, parsing and
// chunking.
type fetched struct {
	prepared
	obj   bucket.Object
	etag  string // the ETag of the content read
	gone  bool   // deleted since it was listed
	retag bool   // same content under a new ETag (or a lost blob): only the record changes
	fatal error  // stops the run: the bucket or its endpoint failed
}

// indexS3 brings an S3 source in step with its bucket. The whole prefix is
// listed first: a listing that fails changes nothing, so a network error
// can never be taken for deleted objects. Then objects whose ETag matches
// the one recorded are skipped without a download; the others are
// downloaded (in parallel), kept in the blob store by content hash (so
// get, cite and grep read them offline) and indexed like files; objects
// no longer listed are removed. A failed download of one object that
// still exists stops the run with its error; what was committed before
// stays, and the next run finishes the rest.
func (ix *Indexer) indexS3(ctx context.Context, src *index.Source, sum *Summary) error {
	if ix.Blobs == nil {
		return fmt.Errorf("index %s: %w", src.Path, ErrNoBlobs)
	}
	if ix.AWS == nil {
		return fmt.Errorf("index %s: %w", src.Path, ErrNoAWS)
	}
	u, err := bucket.ParseURL(src.Path)
	if err != nil {
		return err
	}
	include, err := index.NewMatcher(src.Patterns)
	if err != nil {
		return err
	}
	exclude, err := index.NewMatcher(src.Excludes)
	if err != nil {
		return err
	}
	cfg, err := ix.AWS(ctx)
	if err != nil {
		return fmt.Errorf("index %s: load the AWS configuration: %w", src.Path, err)
	}
	r, err := bucket.Open(ctx, cfg, u, &bucket.Options{Endpoint: src.Endpoint})
	if err != nil {
		return fmt.Errorf("%w; the index is unchanged", err)
	}
	listed, err := r.List(ctx, func(n int) {
		if ix.Progress != nil {
			ix.Progress(Progress{Phase: "list", Source: src.Name, Done: n})
		}
	})
	if err != nil {
		return fmt.Errorf("%w; the index is unchanged", err)
	}
	var objs []bucket.Object
	for _, o := range listed {
		switch {
		case hiddenKey(o.Rel):
			sum.Skipped.Hidden++
		case src.NoRecursive && strings.Contains(o.Rel, "/"):
		case (include != nil && !include.Match(o.Rel)) || exclude.Match(o.Rel):
			sum.Skipped.Excluded++
		case o.Size > fileLimit(src, o.Rel):
			sum.Skipped.Oversized++
		default:
			objs = append(objs, o)
		}
	}
	if limit := maxFiles(src); len(objs) > limit {
		sum.Skipped.OverFileLimit += len(objs) - limit
		sum.Errors = append(sum.Errors, FileError{Path: src.Path, Err: fmt.Errorf(
			"%w: %d objects, over the %d-file limit; the first %d in key order are indexed and the rest skipped; narrow the source with --pattern or --exclude",
			ErrTooManyFiles, len(objs), limit, limit).Error()})
		objs = objs[:limit]
	}
	entries, err := ix.Store.Entries(src.ID)
	if err != nil {
		return err
	}
	before, err := ix.Store.SkippedObjects(src.ID)
	if err != nil {
		return err
	}
	skipped := map[string]index.SkippedObject{}
	seen := make(map[string]bool, len(objs))
	var replaced []string // content hashes of updated and removed objects
	window := ix.batchDocs()
	b := &batch{ctx: ctx, ix: ix, limit: window}
	for start := 0; start < len(objs); start += window {
		if err := ctx.Err(); err != nil {
			return err
		}
		end := min(start+window, len(objs))
		for _, p := range ix.fetch(ctx, r, src, objs[start:end], entries, before) {
			if p.fatal != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				// Keep what was fetched before the failure; remove nothing.
				if err := b.flush(); err != nil {
					return err
				}
				if err := ix.dropBlobs(replaced); err != nil {
					return err
				}
				return fmt.Errorf("%w; the objects before it are indexed and none were removed: run braid index again", p.fatal)
			}
			rel := p.obj.Rel
			e, known := entries[rel]
			seen[rel] = true
			sum.Seen++
			where := index.ObjectURL(src, rel)
			switch {
			case p.gone:
				seen[rel] = false
			case p.skip == "oversized":
				sum.Skipped.Oversized++
				seen[rel] = false
			case p.skip == "too_many_chunks":
				sum.Skipped.TooManyChunks++
				sum.Errors = append(sum.Errors, FileError{Path: where, Err: p.err.Error()})
				seen[rel] = false
			case p.err != nil && p.skip != "":
				sum.Skipped.add(p.skip)
				sum.NotExtracted = append(sum.NotExtracted, FileError{Path: where, Err: p.err.Error()})
				skipped[rel] = index.SkippedObject{ETag: p.etag, Reason: p.skip}
				seen[rel] = false
			case p.err != nil:
				sum.Errors = append(sum.Errors, FileError{Path: where, Err: p.err.Error()})
				seen[rel] = known // keep what the index has rather than drop it
			case p.skip != "" && sum.Skipped.add(p.skip):
				skipped[rel] = index.SkippedObject{ETag: p.etag, Reason: p.skip}
				seen[rel] = false
			case p.same, p.retag:
				sum.Unchanged++
				if p.retag {
					if err := b.add(index.Change{Doc: p.doc, Chunks: p.chunks, KeepVersions: src.KeepVersions}); err != nil {
						return err
					}
				}
			default:
				if known {
					sum.Updated++
					replaced = append(replaced, e.Hash)
				} else {
					sum.Added++
				}
				sum.Chunks += len(p.chunks)
				sum.Bytes += p.f.size
				if err := b.add(index.Change{Doc: p.doc, Chunks: p.chunks, KeepVersions: src.KeepVersions}); err != nil {
					return err
				}
			}
		}
		if ix.Progress != nil {
			ix.Progress(Progress{Source: src.Name, Done: end, Total: len(objs)})
		}
	}
	for rel, e := range entries {
		if !seen[rel] {
			replaced = append(replaced, e.Hash)
		}
	}
	if err := b.finish(entries, seen, sum); err != nil {
		return err
	}
	if err := ix.Store.PutSkippedObjects(src.ID, skipped); err != nil {
		return err
	}
	return ix.dropBlobs(replaced)
}

// fetch downloads, hashes, parses and chunks a window of objects with a
// bounded pool, in order. After a fatal error the rest are not fetched.
func (ix *Indexer) fetch(ctx context.Context, r *bucket.Reader, src *index.Source, objs []bucket.Object, entries map[string]index.Entry, skipped map[string]index.SkippedObject) []fetched {
	out := make([]fetched, len(objs))
	var failed atomic.Bool
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(s3Fetchers, len(objs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if failed.Load() {
					out[i] = fetched{obj: objs[i], fatal: context.Canceled}
					continue
				}
				out[i] = ix.fetchOne(ctx, r, src, objs[i], entries, skipped)
				if out[i].fatal != nil {
					failed.Store(true)
				}
			}
		}()
	}
	for i := range objs {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}

func (ix *Indexer) fetchOne(ctx context.Context, r *bucket.Reader, src *index.Source, o bucket.Object, entries map[string]index.Entry, skipped map[string]index.SkippedObject) (p fetched) {
	p.obj, p.etag = o, o.ETag
	defer func() {
		if v := recover(); v != nil {
			p.prepared = prepared{err: fmt.Errorf("internal error while indexing (please report): %v", v)}
		}
	}()
	if sk, ok := skipped[o.Rel]; ok && o.ETag != "" && sk.ETag == o.ETag {
		p.skip = sk.Reason // binary or not UTF-8 last time, and unchanged
		return p
	}
	e, known := entries[o.Rel]
	sameTag := known && o.ETag != "" && e.ETag == o.ETag
	if sameTag && !ix.Force && ix.Blobs.Has(e.Hash) {
		p.same = true
		return p
	}
	var data []byte
	etag := o.ETag
	if sameTag {
		// Force (new chunk settings): the content is in the blob store.
		data, _ = ix.Blobs.Get(e.Hash)
	}
	if data == nil {
		var err error
		data, etag, err = r.Get(ctx, o.Key, fileLimit(src, o.Rel))
		switch {
		case errors.Is(err, bucket.ErrNoKey):
			p.gone = true
			return p
		case errors.Is(err, bucket.ErrTooLarge):
			p.skip = "oversized"
			return p
		case err != nil:
			p.fatal = err
			return p
		}
	}
	hash := blob.Hash(data)
	if known && e.Hash == hash && !ix.Force {
		if e.ETag == etag && ix.Blobs.Has(hash) {
			p.same = true
			return p
		}
		p.retag = true // record the new ETag (or restore the blob) so the next run skips it
	}
	p.etag = etag
	p.prepared = ix.parse(src, file{rel: o.Rel, abs: index.ObjectURL(src, o.Rel)}, data, hash, o.Modified)
	if p.doc == nil {
		return p
	}
	p.doc.ETag = etag
	if _, _, err := ix.Blobs.Put(data); err != nil {
		// The blob goes first: the document that names it is committed later.
		p.doc, p.err = nil, fmt.Errorf("keep its content: %w", err)
	}
	return p
}

// hiddenKey reports whether a key has a part starting with ".", which the
// walk of a folder would skip.
func hiddenKey(rel string) bool {
	for part := range strings.SplitSeq(rel, "/") {
		if strings.HasPrefix(part, ".") {
			return true
		}
	}
	return false
}

// dropBlobs removes the blobs of replaced or removed S3 content that
// nothing refers to any more (another object, a stored document, a kept
// version or a snapshot may share one).
func (ix *Indexer) dropBlobs(hashes []string) error {
	if len(hashes) == 0 {
		return nil
	}
	refs, err := ix.Store.BlobRefs()
	if err != nil {
		return err
	}
	for _, h := range hashes {
		if !refs[h] {
			if err := ix.Blobs.Remove(h); err != nil {
				return err
			}
		}
	}
	return nil
}
