package ingest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/braidsearch/braid/index"
)

// ErrNoBlobs means the store source was indexed without a blob store.
var ErrNoBlobs = errors.New("index: the store source needs the index's blob store")

// indexStored brings the store source's documents in step with the stored
// records: a record whose content (hash) the index does not have yet is read
// from the blob store and (re)indexed, a document whose record is gone is
// removed. So a crash between recording a stored document and indexing it
// is repaired by the next run.
func (ix *Indexer) indexStored(ctx context.Context, src *index.Source, sum *Summary) error {
	if ix.Blobs == nil {
		return ErrNoBlobs
	}
	entries, err := ix.Store.Entries(src.ID)
	if err != nil {
		return err
	}
	var recs []*index.Stored
	if err := ix.Store.ForEachStored(func(r *index.Stored) error { recs = append(recs, r); return nil }); err != nil {
		return err
	}
	seen := make(map[string]bool, len(recs))
	b := ix.newBatch(ctx, 1)
	for i, rec := range recs {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		seen[rec.Name] = true
		sum.Seen++
		e, known := entries[rec.Name]
		if known && e.Hash == rec.Hash && !ix.Force && !ix.Refresh[rec.Name] {
			sum.Unchanged++
			continue
		}
		data, err := ix.Blobs.Get(rec.Hash)
		if err != nil {
			sum.Errors = append(sum.Errors, FileError{Path: "store:" + rec.Name, Err: err.Error()})
			seen[rec.Name] = known // keep what the index has rather than drop it
			continue
		}
		p := ix.parse(ctx, src, file{rel: rec.Name, abs: rec.Name}, data, rec.Hash, rec.Modified)
		if p.err != nil || p.skip != "" {
			msg := p.skip
			if p.err != nil {
				msg = p.err.Error()
			}
			sum.Errors = append(sum.Errors, FileError{Path: "store:" + rec.Name, Err: msg})
			seen[rec.Name] = known
			continue
		}
		for _, t := range rec.Tags {
			if !slices.ContainsFunc(p.doc.Tags, func(x string) bool { return strings.EqualFold(x, t) }) {
				p.doc.Tags = append(p.doc.Tags, t)
			}
		}
		if known {
			sum.Updated++
		} else {
			sum.Added++
		}
		if p.capped != "" {
			sum.Capped = append(sum.Capped, FileError{Path: "store:" + rec.Name, Err: p.capped})
		}
		sum.Chunks += len(p.chunks)
		sum.Bytes += int64(len(data))
		if err := b.add(index.Change{Doc: p.doc, Chunks: p.chunks}); err != nil {
			return err
		}
	}
	if ix.Progress != nil {
		ix.Progress(Progress{Source: src.Name, Done: len(recs), Total: len(recs)})
	}
	if err := b.finish(entries, seen, sum); err != nil {
		return fmt.Errorf("index the stored documents: %w", err)
	}
	return nil
}
