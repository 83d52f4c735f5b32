package vector

import (
	"bytes"
	"encoding/binary"
	"errors"
	"flag"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/braidsearch/braid/internal/testenv"
)

var update = flag.Bool("update", false, "rewrite testdata/v4.vec and v4log.vec, the current format's fixtures")

func searchAll(t *testing.T, x *Index, qs [][]float32, k int) [][]Result {
	t.Helper()
	out := make([][]Result, len(qs))
	for i, q := range qs {
		res, err := x.Search(q, k)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = res
	}
	return out
}

func TestSaveLoad(t *testing.T) {
	d := randomSet(400, 30, 24, 7)
	x := build(t, d, &Options{EfSearch: 20})
	for i := 0; i < 400; i += 5 {
		x.Delete(idOf(i)) // leave tombstones in the file
	}
	x.SetGen(42)
	path := filepath.Join(t.TempDir(), "v.vec")
	if err := x.Save(path); err != nil {
		t.Fatal(err)
	}
	y, err := Load(path, &Options{EfSearch: 20})
	if err != nil {
		t.Fatal(err)
	}
	if y.Gen() != 42 || y.Len() != x.Len() || y.Dim() != 24 || y.Changed() {
		t.Errorf("loaded Gen, Len, Dim, Changed = %d, %d, %d, %v, want 42, %d, 24, false", y.Gen(), y.Len(), y.Dim(), y.Changed(), x.Len())
	}
	if mapped := y.g.mapped != nil && y.g.mapped.mmapped; mapped != (littleEndian && mapFileWorks) {
		t.Errorf("file mapped = %v, want %v", mapped, littleEndian && mapFileWorks)
	}
	if y.slot != nil || y.g.over != nil || len(y.g.rows.ps) != 0 || y.g.nbase != y.g.size() {
		t.Errorf("loaded: id map %v, overlay %v, %d rows in memory, %d of %d rows mapped; want no map, no overlay, every row mapped",
			y.slot != nil, y.g.over != nil, len(y.g.rows.ps), y.g.nbase, y.g.size())
	}
	if err := Verify(path); err != nil {
		t.Errorf("Verify: %v", err)
	}
	if diff := cmp.Diff(searchAll(t, x, d.queries, 10), searchAll(t, y, d.queries, 10)); diff != "" {
		t.Errorf("search after round trip (-saved +loaded):\n%s", diff)
	}
	if y.slot != nil {
		t.Error("searches made the map of ids")
	}
	// The graph and its level draws survive too: the same adds to both
	// give the same answers.
	r := rand.New(rand.NewSource(8))
	for i := range 50 {
		v := unitVec(r, 24)
		testenv.Must(t, x.Add(idOf(1000+i), v))
		testenv.Must(t, y.Add(idOf(1000+i), v))
	}
	if diff := cmp.Diff(searchAll(t, x, d.queries, 10), searchAll(t, y, d.queries, 10)); diff != "" {
		t.Errorf("search after adds to both (-saved +loaded):\n%s", diff)
	}
	// The file's vectors stay mapped; the added ones are in memory.
	if mapFileWorks && littleEndian && (y.g.mapped == nil || len(y.g.tail.ps) != 1 || len(y.g.tail.ps[0]) != 50*24) {
		t.Errorf("after 50 adds: mapped %v, %d pages in memory; want the file's still mapped and 50×24 fp16 values in one page", y.g.mapped != nil, len(y.g.tail.ps))
	}
	// The rows of the file's nodes those adds linked to were copied to the
	// overlay; the new nodes' rows are in memory.
	if y.g.over == nil || len(y.g.rows.ps) != 1 || len(y.g.rows.ps[0]) != 50*y.g.stride() {
		t.Errorf("after 50 adds: overlay %v, %d pages of rows in memory; want an overlay and 50 rows in one page", y.g.over != nil, len(y.g.rows.ps))
	}
	// The changed graph saves over the file it was mapped from, and loads
	// back the same.
	if err := y.Save(path); err != nil {
		t.Fatal(err)
	}
	z, err := Load(path, &Options{EfSearch: 20})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(searchAll(t, y, d.queries, 10), searchAll(t, z, d.queries, 10)); diff != "" {
		t.Errorf("search after saving over the mapped file (-saved +loaded):\n%s", diff)
	}

	// An empty index round-trips too.
	if err := New(3, nil).Save(path); err != nil {
		t.Fatal(err)
	}
	if e, err := Load(path, nil); err != nil || e.Len() != 0 || e.Dim() != 3 {
		t.Errorf("empty round trip: %v, %v", e, err)
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.vec")
	x := build(t, randomSet(50, 0, 8, 9), nil)
	x.Delete(idOf(3))
	if err := x.Save(good); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	patch := func(off int, b ...byte) []byte {
		out := bytes.Clone(data)
		copy(out[off:], b)
		return out
	}
	version5 := patch(8, binary.LittleEndian.AppendUint32(nil, 5)...)
	lay := layoutOf(t, data)
	upper := int(lay.off[secUpper] + lay.len[secUpper]/2)
	tests := []struct {
		name string
		data []byte
		opt  *Options
		want string // in the message
	}{
		{"empty", nil, nil, "not a braid vector file"},
		{"garbage", []byte(strings.Repeat("not a graph ", 20)), nil, "not a braid vector file"},
		{"other version", version5, nil, "format version 5, want 4"},
		{"truncated header", data[:20], nil, "not a braid vector file"},
		{"truncated body", data[:len(data)/2], nil, "truncated"},
		{"no trailer", data[:len(data)-4], nil, "truncated"},
		{"trailing data", append(bytes.Clone(data), 0), nil, "trailing data"},
		{"flipped bit in the header", patch(60, data[60]^0x10), nil, "checksum mismatch in the header"},
		{"flipped bit in the upper layers", patch(upper, data[upper]^0x10), nil, "checksum mismatch in the upper layers"},
		{"flipped bit in the tombstones", patch(int(lay.off[secDead]), data[lay.off[secDead]]^0x01), nil, "checksum mismatch in the tombstones"},
		{"flipped bit in the trailer", patch(len(data)-8, data[len(data)-8]^0x10), nil, "checksum mismatch in the trailer"},
		{"huge count", patch(40, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f), nil, "cannot fit"},
		{"other M", data, &Options{M: 32}, "built with M=16, want 32"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, "bad.vec")
			if err := os.WriteFile(path, tc.data, 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := Load(path, tc.opt)
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("err = %v, want ErrFormat", err)
			}
			if msg := err.Error(); !strings.Contains(msg, tc.want) || !strings.Contains(msg, "braid index") {
				t.Errorf("err = %q, want it to say %q and `braid index`", msg, tc.want)
			}
		})
	}

	// A flipped bit among the links of layer 0 or the ids is Load's to
	// find too; among the codes or vectors, Verify's only: Load maps them
	// unread.
	for _, sec := range []int{secLinks, secIDOffsets, secIDs, secCodes, secHalfs} {
		at := int(lay.off[sec] + lay.len[sec]/2)
		flipped := filepath.Join(dir, "flipped.vec")
		if err := os.WriteFile(flipped, patch(at, data[at]^0x10), 0o600); err != nil {
			t.Fatal(err)
		}
		want := "checksum mismatch in the " + sectionNames[sec]
		_, err := Load(flipped, nil)
		switch {
		case sec >= secCodes && err != nil:
			t.Errorf("Load with damaged %s: %v", sectionNames[sec], err)
		case sec < secCodes && (!errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), want)):
			t.Errorf("Load with damaged %s: %v, want ErrFormat saying %q", sectionNames[sec], err, want)
		}
		if err := Verify(flipped); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), want) {
			t.Errorf("Verify with damaged %s: %v, want ErrFormat saying %q", sectionNames[sec], err, want)
		}
	}

	// Every cut of the file is reported, none panics.
	for n := range len(data) {
		if _, err := decode(bytes.NewReader(data[:n]), int64(n), nil); err == nil {
			t.Fatalf("cut at %d of %d bytes: no error", n, len(data))
		}
	}

	_, err = Load(filepath.Join(dir, "missing.vec"), nil)
	if !errors.Is(err, os.ErrNotExist) || errors.Is(err, ErrFormat) {
		t.Errorf("missing file: err = %v, want os.ErrNotExist", err)
	}
}

// layoutOf is where the sections of the version 3 or 4 file data lie.
func layoutOf(t testing.TB, data []byte) layout {
	t.Helper()
	h, err := parseHeader(data, int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	h.idBytes = binary.LittleEndian.Uint64(data[headerSize:])
	h.upBytes = binary.LittleEndian.Uint64(data[headerSize+8:])
	lay, err := h.layout(int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	return lay
}

// TestSaveAtomic checks a failed save leaves the previous file as it was
// and no temporary file behind.
func TestSaveAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "v.vec")
	x := build(t, randomSet(30, 0, 8, 10), nil)
	if err := x.Save(path); err != nil {
		t.Fatal(err)
	}
	before := testenv.Must1(os.ReadFile(path))(t)

	full := errors.New("disk full")
	_, err := writeAtomic(path, func(w io.Writer) error {
		w.Write([]byte("half a graph"))
		return full
	})
	if !errors.Is(err, full) {
		t.Errorf("err = %v, want %v", err, full)
	}
	after := testenv.Must1(os.ReadFile(path))(t)
	if !bytes.Equal(before, after) {
		t.Error("a failed save changed the file")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("dir holds %d entries after a failed save, want 1", len(ents))
	}

	if err := x.Save(filepath.Join(dir, "no", "such", "dir", "v.vec")); err == nil {
		t.Error("save into a missing directory: no error")
	}
	if err := x.Save(dir); err == nil { // rename over a directory fails
		t.Error("save over a directory: no error")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("dir holds %d entries after failed saves, want 1", len(ents))
	}
}

// fixture is the index in testdata/v1.vec to v4.vec: 20 vectors
// of 8 dimensions, one deleted, gen 7.
func fixture() (*Index, dataset) {
	d := randomSet(20, 5, 8, 11)
	x := New(8, nil)
	for i, v := range d.vecs {
		x.Add(idOf(i), v)
	}
	x.Delete(idOf(4))
	x.SetGen(7)
	return x, d
}

// TestBackwardsCompat reads the committed files of each format version
// (v1.vec: vectors inline; v2.vec: vectors after the nodes, mapped;
// v3.vec: sections, mapped; v4.vec: codes and fp16 vectors in sections
// of their own); regenerate v4.vec with -update only when the
// format version changes, and keep the older ones. An older file loads as
// changed, and its next Save writes the current format whole.
func TestBackwardsCompat(t *testing.T) {
	want, d := fixture()
	if *update {
		if err := want.Save(filepath.Join("testdata", "v4.vec")); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		file    string
		changed bool
	}{{"v1.vec", true}, {"v2.vec", true}, {"v3.vec", true}, {"v4.vec", false}} {
		path := filepath.Join("testdata", tc.file)
		got, err := Load(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := Verify(path); err != nil {
			t.Errorf("%s: Verify: %v", tc.file, err)
		}
		if got.Gen() != 7 || got.Len() != 19 || got.Dim() != 8 || got.Has(idOf(4)) || got.Changed() != tc.changed {
			t.Errorf("%s: Gen, Len, Dim, Has(deleted), Changed = %d, %d, %d, %v, %v, want 7, 19, 8, false, %v",
				tc.file, got.Gen(), got.Len(), got.Dim(), got.Has(idOf(4)), got.Changed(), tc.changed)
		}
		for i, q := range d.queries {
			res, err := got.Search(q, 3)
			if err != nil {
				t.Fatal(err)
			}
			wantIDs := exact(d.vecs, q, 4)
			wantIDs = slicesDelete(wantIDs, idOf(4))[:3]
			if diff := cmp.Diff(wantIDs, ids(res)); diff != "" {
				t.Errorf("%s: query %d (-exact +loaded):\n%s", tc.file, i, diff)
			}
		}
		if !tc.changed {
			continue
		}
		// Its next Save writes the same graph as version 4.
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(t.TempDir(), tc.file)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		y, err := Load(p, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := y.Save(p); err != nil {
			t.Fatal(err)
		}
		if data, err = os.ReadFile(p); err != nil || binary.LittleEndian.Uint32(data[8:]) != formatVersion {
			t.Fatalf("%s saved: %v, version %d, want %d", tc.file, err, binary.LittleEndian.Uint32(data[8:]), formatVersion)
		}
		z, err := Load(p, nil)
		if err != nil {
			t.Fatal(err)
		}
		sameIndex(t, tc.file+" saved as version 4", y, z)
	}
}

func slicesDelete(s []string, v string) []string {
	out := s[:0:0]
	for _, x := range s {
		if x != v {
			out = append(out, x)
		}
	}
	return out
}

// FuzzLoad feeds damaged files to the decoder: it must return an error,
// never panic or allocate without bound.
func FuzzLoad(f *testing.F) {
	data, err := os.ReadFile(filepath.Join("testdata", "v1.vec"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add(data[:70])
	v2, err := os.ReadFile(filepath.Join("testdata", "v2.vec"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(v2)
	f.Add([]byte(magic))
	v3, err := os.ReadFile(filepath.Join("testdata", "v3.vec"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(v3)
	v4, err := os.ReadFile(filepath.Join("testdata", "v4.vec"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(v4)
	f.Fuzz(func(t *testing.T, b []byte) {
		x, err := decode(bytes.NewReader(b), int64(len(b)), nil)
		if err == nil {
			// Whatever decodes must be searchable.
			q := make([]float32, x.Dim())
			q[0] = 1
			x.Search(q, 5)
		}
	})
}
