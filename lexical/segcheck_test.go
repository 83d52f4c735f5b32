package lexical

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/blevesearch/bleve/v2"
	"github.com/braidsearch/braid/indexdir"
	"github.com/braidsearch/braid/internal/formattest"
	"github.com/braidsearch/braid/internal/userkey"
	"github.com/braidsearch/braid/query"
	bolt "go.etcd.io/bbolt"
)

// oneSegment writes a lexical index of one commit, which is one segment,
// at dir/lexical.bleve: 40 chunks with positions, tags (an array: array
// positions) and paths, over more than one doc-value chunk's worth of
// nothing (zap chunks doc values by 1,024 documents). It returns the
// index's path and the segment's.
func oneSegment(t testing.TB, dir string) (string, string) {
	t.Helper()
	return segmentOf(t, dir, false)
}

// segmentOf is oneSegment, written with doc values on every field when
// docValues is set: as braid wrote indexes before 2026-11-29 (their
// mapping, buildMapping(true), stays theirs).
func segmentOf(t testing.TB, dir string, docValues bool) (string, string) {
	t.Helper()
	path := filepath.Join(dir, "lexical.bleve")
	if docValues {
		idx, err := bleve.New(path, buildMapping(true))
		if err != nil {
			t.Fatal(err)
		}
		if err := idx.Close(); err != nil {
			t.Fatal(err)
		}
	}
	l, err := Open(path, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	var chunks []Chunk
	for i := range 40 {
		doc := fmt.Sprintf("d%d", i%9)
		herb := "basil"
		if i%5 > 0 {
			herb = "thyme"
		}
		chunks = append(chunks, Chunk{ID: fmt.Sprintf("%s#%04d.0", doc, i), DocID: doc, Ord: i,
			Text: fmt.Sprintf("garden tomatoes %d ripen in the garden; tomatoes and %s %d", i, herb, i%5)})
	}
	meta := func(doc string) ChunkMeta {
		return ChunkMeta{Title: "Garden " + doc, Path: doc + ".md", SourceID: "s1", Tags: []string{"veg", "summer"}}
	}
	if _, err := l.Apply(1, nil, chunks, meta); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	names, err := segmentNames(filepath.Join(path, "store", "root.bolt"))
	if err != nil || len(names) != 1 {
		t.Fatalf("segments %v, %v; want one", names, err)
	}
	return path, filepath.Join(path, "store", names[0])
}

// zapSegment is oneSegment's index and segment file in dir, with the
// segment's bytes as written, its fields and its footer.
func zapSegment(tb testing.TB, dir string) (path, seg string, good []byte, fields []formattest.ZapField, ft formattest.ZapFooter) {
	tb.Helper()
	path, seg = segmentOf(tb, dir, true) // the crafted doc values need some
	good, err := os.ReadFile(seg)
	if err != nil {
		tb.Fatal(err)
	}
	if fields, err = formattest.ZapFields(good); err != nil {
		tb.Fatal(err)
	}
	return path, seg, good, fields, formattest.ZapFooterOf(good)
}

// New indexes write no doc values (braid never sorts or facets on a
// field); an index written with them keeps writing them, and opens.
func TestDocValues(t *testing.T) {
	for _, docValues := range []bool{false, true} {
		_, seg := segmentOf(t, t.TempDir(), docValues)
		b, err := os.ReadFile(seg)
		if err != nil {
			t.Fatal(err)
		}
		fields, err := formattest.ZapFields(b)
		if err != nil {
			t.Fatal(err)
		}
		with := map[string]bool{}
		for _, f := range fields {
			if f.DocValueHeader >= 0 {
				with[f.Name] = true
			}
		}
		if want := docValues; with[fieldContent] != want || with[fieldTags] != want || with[fieldTitle] != want {
			t.Errorf("mapping with doc values %v: fields with doc values %v", docValues, with)
		}
	}
}

// editSnapshots runs edit on every snapshot bucket of the root.bolt of
// the lexical index at path, in one update.
func editSnapshots(t *testing.T, path string, edit func(snap *bolt.Bucket) error) {
	t.Helper()
	db, err := bolt.Open(filepath.Join(path, "store", "root.bolt"), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		snaps := tx.Bucket(scorchSnapshots)
		return snaps.ForEachBucket(func(k []byte) error { return edit(snaps.Bucket(k)) })
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
}

// eachSegment runs edit on every segment bucket of the snapshot snap.
func eachSegment(snap *bolt.Bucket, edit func(seg *bolt.Bucket) error) error {
	return snap.ForEachBucket(func(k []byte) error {
		if k[0] == scorchInternal || k[0] == scorchMeta {
			return nil
		}
		return edit(snap.Bucket(k))
	})
}

// opensWith writes data to the segment seg and checks that the lexical
// index at path opens: what names data in the failure.
func opensWith(t *testing.T, path, seg string, data []byte, what string) {
	t.Helper()
	if err := os.WriteFile(seg, data, 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := Open(path, true, nil)
	if err != nil {
		t.Fatalf("open of %s: %v", what, err)
	}
	l.Close()
}

// refused checks that opening the lexical index at path fails with a
// damaged-index error naming the segment seg and the repair, whose detail
// holds want.
func refused(t *testing.T, path, seg, want string) {
	t.Helper()
	l, err := Open(path, true, nil)
	if err == nil {
		l.Close()
		t.Fatalf("open succeeded, want a damaged-index error saying %q", want)
	}
	var corrupt *indexdir.CorruptError
	msg := err.Error()
	if !errors.As(err, &corrupt) || !strings.Contains(msg, filepath.Base(seg)) || !strings.Contains(msg, "doctor --repair") ||
		!strings.Contains(msg, want) || strings.Contains(msg, "\n") {
		t.Errorf("open: %v\nwant one line naming %s, doctor --repair and %q", err, filepath.Base(seg), want)
	}
}

// TestCraftedSegmentRefused crafts a segment as an attacker would, each
// count or offset zap allocates from or seeks to set wild and the CRC
// fixed, and checks that the open refuses it, naming the file and the
// fix, before zap reads it: the first case made zap ask for 8 TiB at open,
// a fatal error.
func TestCraftedSegmentRefused(t *testing.T) {
	path, seg, good, fields, ft := zapSegment(t, t.TempDir())
	// dv is the doc-value header of the first field with doc values.
	dv := -1
	for _, f := range fields {
		if f.DocValueHeader >= 0 {
			dv = f.DocValueHeader
			break
		}
	}
	if dv < 0 {
		t.Fatalf("no field with doc values in %v", fields)
	}
	u64 := func(at int, v uint64) func([]byte) {
		return func(b []byte) { binary.BigEndian.PutUint64(b[at:], v) }
	}
	u32 := func(at int, v uint32) func([]byte) {
		return func(b []byte) { binary.BigEndian.PutUint32(b[at:], v) }
	}
	tests := []struct {
		name  string
		craft func([]byte)
		want  string
	}{
		{"doc-value chunk count 2^40", u64(dv+8, 1<<40), "doc values: 1099511627776 chunks"},
		{"doc-value chunk count just past the documents", u64(dv+8, 2), "doc values: 2 chunks, for 40 documents"},
		{"no doc-value chunks", u64(dv+8, 0), "doc values: 0 chunks, for 40 documents"},
		{"doc-value offsets longer than the doc values", u64(dv, 1<<40), "bytes of chunk offsets"},
		{"document count 2^40", u64(ft.NumDocs, 1<<40), "1099511627776 documents"},
		{"stored index past the end", u64(ft.StoredIndex, uint64(len(good))), "stored index"},
		{"sections index past the end", u64(ft.SectionsIndex, math.MaxUint64), "sections index"},
		{"no sections index", u64(ft.SectionsIndex, 0), "sections index"},
		{"doc-value offset past the end", u64(ft.DocValues, 1<<40), "doc values at"},
		{"zap version 15", u32(ft.Version, 15), "zap version 15"},
		{"chunk mode 0", u32(ft.ChunkMode, 0), "chunk mode 0"},
		{"chunk mode 2^31", u32(ft.ChunkMode, 1<<31), "chunk mode 2147483648"},
		{"dictionary root past its end", func(b []byte) {
			for _, f := range fields {
				if f.Dict > 0 {
					n, k := binary.Uvarint(b[f.Dict:])
					binary.LittleEndian.PutUint64(b[f.Dict+k+int(n)-8:], 1<<40)
					return
				}
			}
			t.Fatal("no dictionary")
		}, "root 1099511627776"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := append([]byte(nil), good...)
			tt.craft(b)
			formattest.FixZapCRC(b)
			if err := os.WriteFile(seg, b, 0o600); err != nil {
				t.Fatal(err)
			}
			refused(t, path, seg, tt.want)
		})
	}
	opensWith(t, path, seg, good, "the segment as written")
}

// TestSegmentFormatInRootBolt: scorch opens a snapshot's segments with the
// plugin the snapshot names, v11 to v16; braid writes v16 only and checks
// that format alone, so any other is refused before bleve opens anything.
func TestSegmentFormatInRootBolt(t *testing.T) {
	path, seg := oneSegment(t, t.TempDir())
	for _, tt := range []struct {
		name, typ string
		ver       []byte
	}{
		{"zap v11", "zap", []byte{0, 0, 0, 11, 0}},
		{"short version", "zap", []byte{16}},
		{"another type", "mem", []byte{0, 0, 0, 16, 0}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			editSnapshots(t, path, func(snap *bolt.Bucket) error {
				meta := snap.Bucket([]byte{scorchMeta})
				if err := meta.Put(scorchSegmentType, []byte(tt.typ)); err != nil {
					return err
				}
				return meta.Put(scorchSegmentVersion, tt.ver)
			})
			l, err := Open(path, true, nil)
			var corrupt *indexdir.CorruptError
			if !errors.As(err, &corrupt) || !strings.Contains(err.Error(), "not zap 16") {
				if l != nil {
					l.Close()
				}
				t.Errorf("open: %v, want a damaged-index error naming the segment format", err)
			}
		})
	}
	_ = seg
}

// TestDeletedDocumentsInRootBolt: root.bolt keeps each segment's deleted
// documents, which a merge subtracts from the segment's count and sizes
// an allocation by (a wrap past zero asked for 2^64 entries, in a merge's
// goroutine); they must be documents of the segment. Updated fields,
// which braid never writes and which take merges down other paths, are
// refused too.
func TestDeletedDocumentsInRootBolt(t *testing.T) {
	path, _ := oneSegment(t, t.TempDir())
	bitmap := func(docs ...uint32) []byte {
		b, err := roaring.BitmapOf(docs...).ToBytes()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for _, tt := range []struct {
		name, key string
		val       []byte
		want      string // "" for an open that succeeds
	}{
		{"deleted documents of the segment", "d", bitmap(0, 7, 39), ""},
		{"a deleted document past the segment", "d", bitmap(3, 40), "document 40 after 3"},
		{"more deleted documents than the segment has", "d", bitmap(func() []uint32 {
			var d []uint32
			for i := range 41 {
				d = append(d, uint32(i))
			}
			return d
		}()...), "41 documents, in a segment of 40"},
		{"not a bitmap", "d", []byte("crafted"), "deleted documents"},
		{"updated fields", "fields", []byte(`{"content":{"index":true}}`), "updated"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			editSnapshots(t, path, func(snap *bolt.Bucket) error {
				return eachSegment(snap, func(seg *bolt.Bucket) error {
					seg.Delete(scorchDeleted)
					seg.Delete(scorchUpdatedFields)
					return seg.Put([]byte(tt.key), tt.val)
				})
			})
			l, err := Open(path, true, nil)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("open: %v", err)
				}
				if n, err := l.DocCount(); err != nil || n != 37 {
					t.Errorf("%d chunks (%v), want 37", n, err)
				}
				l.Close()
				return
			}
			var corrupt *indexdir.CorruptError
			if !errors.As(err, &corrupt) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "doctor --repair") {
				if l != nil {
					l.Close()
				}
				t.Errorf("open: %v, want a damaged-index error saying %q", err, tt.want)
			}
		})
	}
}

// TestWriterStampsItsSegments: the segments a writer's bleve wrote are
// stamped at its Close, so the next open reads none of them; a segment
// placed in the index by anyone else is still read.
func TestWriterStampsItsSegments(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "lexical.bleve")
	key, err := userkey.Load(filepath.Join(t.TempDir(), "key"))
	if err != nil {
		t.Fatal(err)
	}
	stamps := func() *indexdir.Stamps { return indexdir.ReadStamps(path+indexdir.StampSuffix, key) }
	for gen := range 3 {
		l, err := Open(path, false, stamps())
		if err != nil {
			t.Fatal(err)
		}
		if l.segmentsRead != 0 {
			t.Errorf("writer %d read %d segments, want none: its predecessors stamped theirs", gen, l.segmentsRead)
		}
		chunk := Chunk{ID: fmt.Sprintf("d%d#0000.0", gen), DocID: fmt.Sprintf("d%d", gen), Text: "garden tomatoes"}
		if _, err := l.Apply(uint64(gen+1), nil, []Chunk{chunk}, func(string) ChunkMeta { return ChunkMeta{} }); err != nil {
			t.Fatal(err)
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
	}
	l, err := Open(path, true, stamps())
	if err != nil {
		t.Fatal(err)
	}
	if n, err := l.DocCount(); err != nil || n != 3 || l.segmentsRead != 0 {
		t.Errorf("reader: %d chunks (%v), %d segments read; want 3 and none read", n, err, l.segmentsRead)
	}
	l.Close()
	// A segment rewritten by someone else (a clone, a copy): read again.
	names, err := segmentNames(filepath.Join(path, "store", "root.bolt"))
	if err != nil || len(names) == 0 {
		t.Fatalf("segments %v, %v", names, err)
	}
	seg := filepath.Join(path, "store", names[0])
	b, err := os.ReadFile(seg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(seg); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(seg, b, 0o600); err != nil {
		t.Fatal(err)
	}
	l, err = Open(path, true, stamps())
	if err != nil {
		t.Fatal(err)
	}
	if l.segmentsRead != 1 {
		t.Errorf("after a segment was replaced the open read %d segments, want that one", l.segmentsRead)
	}
	l.Close()
}

// FuzzSegmentOpen crafts a segment as an attacker would: its footer, a
// field's doc-value header and any bytes anywhere set at will, the CRC
// fixed, and opens the index holding it. The open either succeeds or
// fails with an error, never a panic or a fatal error (an allocation of
// terabytes kills the fuzzing process); an open that succeeds answers a
// search, a phrase (positions) and a tag filter (doc values) without one
// either, and a segment the check accepts is read whole through zap
// (readAll) without a panic. The seeds are the segment as written and the attack of issue
// 47; the committed test runs only them (go test -fuzz FuzzSegmentOpen
// to search).
func FuzzSegmentOpen(f *testing.F) {
	dir := f.TempDir()
	path, seg, good, fields, ft := zapSegment(f, dir)
	footer := good[ft.NumDocs : len(good)-4]
	header := func(i int) []byte {
		at := fields[i%len(fields)].DocValueHeader
		if at < 0 {
			return nil
		}
		return good[at : at+16]
	}
	f.Add(footer, uint8(0), header(0), uint32(0), []byte(nil))
	for i := range fields {
		if h := header(i); h != nil {
			attack := append([]byte(nil), h...)
			binary.BigEndian.PutUint64(attack[8:], 1<<40)
			f.Add(footer, uint8(i), attack, uint32(0), []byte(nil))
			break
		}
	}
	wild := append([]byte(nil), footer...)
	binary.BigEndian.PutUint64(wild[0:], 1<<40) // documents
	f.Add(wild, uint8(1), header(1), uint32(len(good)/2), []byte{0xff, 0xff, 0xff, 0xff, 0x0f})
	for i := range fields {
		if fields[i].Dict > 0 {
			f.Add(footer, uint8(i), header(i), uint32(fields[i].Dict), []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0x7f})
		}
	}
	q, err := query.Parse(`"garden tomatoes" ripen -basil`)
	if err != nil {
		f.Fatal(err)
	}
	// The segment as written opens and answers: the fuzzing reaches bleve.
	if l, err := Open(path, true, nil); err != nil {
		f.Fatal(err)
	} else {
		hits, _, err := l.Search(context.Background(), Request{Query: q, Size: 10, Tags: []string{"veg"}})
		l.Close()
		if err != nil || len(hits) == 0 {
			f.Fatalf("search of the segment as written: %d hits, %v; want some", len(hits), err)
		}
	}
	scratch := f.TempDir()
	f.Fuzz(func(t *testing.T, foot []byte, field uint8, dvHeader []byte, at uint32, patch []byte) {
		b := append([]byte(nil), good...)
		copy(b[ft.NumDocs:len(b)-4], foot)
		if h := fields[int(field)%len(fields)].DocValueHeader; h >= 0 {
			copy(b[h:h+16], dvHeader)
		}
		if int(at) < len(b)-4 {
			copy(b[at:len(b)-4], patch)
		}
		formattest.FixZapCRC(b)
		if err := os.WriteFile(seg, b, 0o600); err != nil {
			t.Fatal(err)
		}
		if checkZap(b) == nil {
			if p := readAll(seg, scratch); p != "" {
				t.Fatalf("the check accepts the segment and zap panics reading it: %s", p)
			}
		}
		l, err := Open(path, true, nil)
		if err != nil {
			var corrupt *indexdir.CorruptError
			if !errors.As(err, &corrupt) {
				t.Fatalf("open failed with %v, want a damaged-index error", err)
			}
			return
		}
		defer l.Close()
		l.DocCount()
		l.Search(context.Background(), Request{Query: q, Size: 10})
		l.Search(context.Background(), Request{Query: q, Size: 10, Tags: []string{"veg"}, PathGlob: "d1*", Explain: true})
	})
}

// TestCraftedBytesNeverCrash sets each byte of a segment in turn (every
// byte of the footer, and up to 1,500 places, 400 with -short) to values a
// crafted file might hold and fixes the CRC. Every segment the check
// accepts is read whole through zap, merged included (readAll), without a
// panic: bleve reads segments in goroutines of its own, where one is
// fatal. Every tenth is opened and searched through braid, which fails
// with a damaged-index error or answers.
func TestCraftedBytesNeverCrash(t *testing.T) {
	path, seg := oneSegment(t, t.TempDir())
	good, err := os.ReadFile(seg)
	if err != nil {
		t.Fatal(err)
	}
	q, err := query.Parse(`"garden tomatoes" ripen -basil`)
	if err != nil {
		t.Fatal(err)
	}
	places := 1500
	if testing.Short() {
		places = 400
	}
	var at []int
	for i := max(0, len(good)-64); i < len(good)-4; i++ {
		at = append(at, i)
	}
	for i := 0; i < len(good)-64; i += max(1, len(good)/places) {
		at = append(at, i)
	}
	scratch := t.TempDir()
	crafted := filepath.Join(scratch, "crafted.zap")
	accepted, opened := 0, 0
	for _, i := range at {
		for _, v := range []byte{0x00, 0x7f, 0xff, good[i] ^ 0x01} {
			b := append([]byte(nil), good...)
			b[i] = v
			formattest.FixZapCRC(b)
			if checkZap(b) != nil {
				continue
			}
			accepted++
			if err := os.WriteFile(crafted, b, 0o600); err != nil {
				t.Fatal(err)
			}
			if p := readAll(crafted, scratch); p != "" {
				t.Fatalf("byte %d set to %#x: the check accepts the segment and zap panics reading it: %s", i, v, p)
			}
			if accepted%10 != 1 {
				continue
			}
			if err := os.WriteFile(seg, b, 0o600); err != nil {
				t.Fatal(err)
			}
			l, err := Open(path, true, nil)
			if err != nil {
				var corrupt *indexdir.CorruptError
				if !errors.As(err, &corrupt) {
					t.Fatalf("byte %d set to %#x: open gave %v, want a damaged-index error", i, v, err)
				}
				continue
			}
			opened++
			l.DocCount()
			l.Search(context.Background(), Request{Query: q, Size: 10})
			l.Search(context.Background(), Request{Query: q, Size: 10, Tags: []string{"veg"}, PathGlob: "d1*", DocIDs: []string{"d1", "d2"}, Explain: true})
			l.Close()
		}
	}
	if accepted == 0 || opened == 0 {
		t.Errorf("%d crafted segments accepted, %d opened: zap was never tried", accepted, opened)
	}
}
