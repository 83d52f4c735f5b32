package lexical

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	blevequery "github.com/blevesearch/bleve/v2/search/query"
	bleveindex "github.com/blevesearch/bleve_index_api"

	"github.com/braidsearch/braid/internal/lru"
)

// filterCacheEntries bounds the filter sets a filterCache keeps: a team
// server asks the same few (one per user's grants) on every search.
const filterCacheEntries = 64

// filterCache keeps, per set of filters, the documents they keep in each
// segment of the snapshot they were counted on (filterBitmaps walks every
// document the filters match: on a server, where every search of a user
// carries the same source filter, that walk was a quarter of a BM25
// search). An entry is used only for the same filters, compared whole
// (they are a user's grants: a hash alone must not stand for them), and a
// snapshot of the same segments with the same documents deleted in each:
// a segment's documents never change, and a deletion only ever adds to a
// segment's deleted set, so its size says whether the set changed.
type filterCache struct{ lru *lru.Cache[*filterEntry] }

type filterEntry struct {
	key  string   // the filters, as JSON
	segs []uint64 // the segments' ids and deleted counts, in the snapshot's order
	keep []*roaring.Bitmap
}

func newFilterCache() *filterCache {
	return &filterCache{lru: lru.New[*filterEntry](filterCacheEntries)}
}

// bitmaps is filterBitmaps, from the cache where it holds the filters for
// snap's segments. The bitmaps returned are shared: never modified.
func (c *filterCache) bitmaps(ctx context.Context, rd bleveindex.IndexReader, m mapping.IndexMapping, snap *scorch.IndexSnapshot, filters []blevequery.Query) ([]*roaring.Bitmap, error) {
	if c == nil {
		return filterBitmaps(ctx, rd, m, snap, filters)
	}
	raw, err := json.Marshal(filters)
	if err != nil { // a filter that cannot say what it is: count it afresh
		return filterBitmaps(ctx, rd, m, snap, filters)
	}
	key := string(raw)
	segs := make([]uint64, 0, 2*len(snap.Segments()))
	for _, s := range snap.Segments() {
		var deleted uint64
		if d := s.Deleted(); d != nil {
			deleted = d.GetCardinality()
		}
		segs = append(segs, s.Id(), deleted)
	}
	k := c.lru.Key(key)
	if e, ok := c.lru.Get(k); ok && e.key == key && slices.Equal(e.segs, segs) {
		return e.keep, nil
	}
	keep, err := filterBitmaps(ctx, rd, m, snap, filters)
	if err != nil {
		return nil, err
	}
	c.lru.Put(k, &filterEntry{key: key, segs: segs, keep: keep})
	return keep, nil
}
