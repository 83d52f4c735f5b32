package ingest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

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
	globs, err := sourceGlobs(src)
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
		case globs.leaveOut(o.Rel):
			sum.Skipped.Excluded++
		case o.Size > fileLimit(src, o.Rel):
			sum.Skipped.Oversized++
		default:
			objs = append(objs, o)
		}
	}
	objs = objs[:capFiles(src, len(objs), sum)]
	entries, err := ix.Store.Entries(src.ID)
	if err != nil {
		return err
	}
	before, err := ix.Store.SkippedObjects(src.ID)
	if err != nil {
		return err
	}
	remembered := map[string]index.SkippedObject{}
	seen := make(map[string]bool, len(objs))
	var replaced []string // content hashes of updated and removed objects
	window := ix.batchDocs()
	b := ix.newBatch(ctx, 1)
	for start := 0; start < len(objs); start += window {
		if err := ctx.Err(); err != nil {
			return err
		}
		end := min(start+window, len(objs))
		fetched := ix.fetch(ctx, r, src, objs[start:end], entries, before)
		if err := ctx.Err(); err != nil {
			return err
		}
		for _, p := range fetched {
			if p.fatal != nil {
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
			sum.Seen++
			switch {
			case p.gone:
				seen[rel] = false
				continue
			case p.skip == "oversized":
				sum.Skipped.Oversized++
				seen[rel] = false
				continue
			}
			out, err := ix.record(src, &p.prepared, index.ObjectURL(src, rel), known, sum, b)
			if err != nil {
				return err
			}
			switch out {
			case written:
				if known {
					replaced = append(replaced, e.Hash)
				}
			case skipped:
				if p.skip != "too_many_chunks" {
					remembered[rel] = index.SkippedObject{ETag: p.etag, Reason: p.skip}
				}
			}
			// An object that failed keeps what the index has rather than
			// dropping it.
			seen[rel] = out != skipped && (out != failed || known)
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
	if err := ix.Store.PutSkippedObjects(src.ID, remembered); err != nil {
		return err
	}
	return ix.dropBlobs(replaced)
}

// fetch downloads objects with a bounded pool and takes each through the
// steps every file shares (prepareContent), in order. After a fatal error
// the rest are not fetched.
func (ix *Indexer) fetch(ctx context.Context, r *bucket.Reader, src *index.Source, objs []bucket.Object, entries map[string]index.Entry, skipped map[string]index.SkippedObject) []fetched {
	var failed atomic.Bool
	return inOrder(len(objs), s3Fetchers, func(i int) fetched {
		if failed.Load() {
			return fetched{obj: objs[i], fatal: context.Canceled}
		}
		p := ix.fetchOne(ctx, r, src, objs[i], entries, skipped)
		if p.fatal != nil {
			failed.Store(true)
		}
		return p
	})
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
	p.etag = etag
	f := file{rel: o.Rel, abs: index.ObjectURL(src, o.Rel)}
	p.prepared = ix.prepareContent(ctx, src, content{f: f, data: data, etag: etag, mod: func() time.Time { return o.Modified }}, e, known)
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
