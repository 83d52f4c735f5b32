package lexical

import (
	"fmt"
	"path/filepath"
	"runtime/debug"

	"github.com/RoaringBitmap/roaring/v2"
	segment "github.com/blevesearch/scorch_segment_api/v2"
	"github.com/blevesearch/vellum"
	zap "github.com/blevesearch/zapx/v16"
)

// readAll reads the zap segment at path through zap itself, everything
// that bleve reads of a segment in goroutines of its own (where a panic is
// fatal): each field's dictionary, every term's postings with their
// frequencies, norms and locations, every document's stored fields and
// doc values, a lookup by id, and a merge of the segment, whole and with
// a document dropped, into files in dir. It reads in this goroutine and
// returns what panicked there, "" when nothing did; errors are fine.
func readAll(path, dir string) (panicked string) {
	old := debug.SetPanicOnFault(true)
	defer func() {
		debug.SetPanicOnFault(old)
		if r := recover(); r != nil {
			panicked = fmt.Sprintf("%v\n%s", r, debug.Stack())
		}
	}()
	seg, err := (&zap.ZapPlugin{}).Open(path)
	if err != nil {
		return ""
	}
	defer seg.Close()
	s := seg.(*zap.Segment)
	for _, field := range s.Fields() {
		d, err := s.Dictionary(field)
		if err != nil {
			continue
		}
		it := d.AutomatonIterator(&vellum.AlwaysMatch{}, nil, nil)
		for e, err := it.Next(); err == nil && e != nil; e, err = it.Next() {
			pl, err := d.PostingsList([]byte(e.Term), nil, nil)
			if err != nil {
				continue
			}
			pl.Count()
			pi := pl.Iterator(true, true, true, nil)
			for p, err := pi.Next(); err == nil && p != nil; p, err = pi.Next() {
				for _, l := range p.Locations() {
					l.ArrayPositions()
				}
			}
		}
	}
	var dvs segment.DocVisitState
	for doc := range s.Count() {
		s.VisitStoredFields(doc, func(string, byte, []byte, []uint64) bool { return true })
		s.DocID(doc)
		dvs, _ = s.VisitDocValues(doc, s.Fields(), func(string, []byte) {}, dvs)
	}
	s.DocNumbers([]string{"d1#0001.0", "zzz"})
	(&zap.ZapPlugin{}).Merge([]segment.Segment{s}, []*roaring.Bitmap{nil}, filepath.Join(dir, "whole.zap"), nil, nil)
	if s.Count() > 0 { // bleve drops only documents the segment has (checkDocs)
		(&zap.ZapPlugin{}).Merge([]segment.Segment{s}, []*roaring.Bitmap{roaring.BitmapOf(0)}, filepath.Join(dir, "dropped.zap"), nil, nil)
	}
	return ""
}
