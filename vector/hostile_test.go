package vector

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hostileBase is a version 4 file of 400 8-d vectors with tombstones,
// searched by walking the graph (EfSearch 16), for the hostile tests to
// spoil.
func hostileBase(t testing.TB) []byte {
	t.Helper()
	x := New(8, &Options{M: 4, EfSearch: 16})
	d := randomSet(400, 0, 8, 31)
	for i, v := range d.vecs {
		if err := x.Add(idOf(i), v); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 400; i += 9 {
		x.Delete(idOf(i))
	}
	path := filepath.Join(t.TempDir(), "v.vec")
	if err := x.Save(path); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// useHostile loads data (a version 4 file whose mapped sections may hold
// anything) and uses the graph every way: Load must succeed or fail with
// ErrFormat, and nothing after a successful Load may panic; Verify must
// then say the file is damaged, unless it is not. loaded says Load took
// the file.
func useHostile(t *testing.T, data []byte, damaged bool) (loaded bool) {
	path := filepath.Join(t.TempDir(), "v.vec")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	x, err := Load(path, &Options{EfSearch: 16})
	if err != nil {
		if !errors.Is(err, ErrFormat) {
			t.Fatalf("Load: %v, want success or ErrFormat", err)
		}
		return false
	}
	r := rand.New(rand.NewSource(5))
	for range 20 {
		if _, err := x.Search(unitVec(r, 8), 10); err != nil {
			t.Fatal(err)
		}
	}
	x.IDs()
	x.Has(idOf(1))
	x.Vector(idOf(2))
	for i := range 30 {
		if err := x.Add(idOf(1000+i), unitVec(r, 8)); err != nil {
			t.Fatal(err)
		}
		x.Delete(idOf(r.Intn(400)))
	}
	if _, err := x.Search(unitVec(r, 8), 10); err != nil {
		t.Fatal(err)
	}
	if err := Verify(path); damaged && !errors.Is(err, ErrFormat) {
		t.Errorf("Verify of a spoiled file: %v, want ErrFormat", err)
	}
	if err := x.Save(path); err != nil { // to its log
		t.Fatal(err)
	}
	if y, err := Load(path, &Options{EfSearch: 16}); err == nil {
		y.Search(unitVec(r, 8), 10)
	}
	x.disk = nil
	if err := x.Save(path); err != nil { // whole
		t.Fatal(err)
	}
	y, err := Load(path, &Options{EfSearch: 16})
	if err != nil {
		t.Fatalf("Load of the hostile graph saved whole: %v", err)
	}
	y.Search(unitVec(r, 8), 10)
	return true
}

// TestHostileSections fills the sections Load maps unread (the links of
// layer 0, the id offsets, the ids, the codes, the vectors) with random
// bytes: Load succeeds or says ErrFormat, the graph is searched, changed
// and saved without a panic (links past the graph skipped, counts
// clamped, bad id offsets read as "", scales that are not finite as 0),
// and Verify reports the damage.
func TestHostileSections(t *testing.T) {
	base := hostileBase(t)
	lay := layoutOf(t, base)
	le := binary.LittleEndian
	n := (lay.len[secIDOffsets] / 8) - 1
	loads := 0
	for seed := range int64(15) {
		r := rand.New(rand.NewSource(seed))
		data := bytes.Clone(base)
		secs := []int{secLinks, secIDOffsets, secIDs, secCodes, secHalfs}
		if seed >= 12 { // each of the vectors' sections alone
			secs = secs[3+seed%2:]
		}
		for _, sec := range secs[:1+seed%int64(len(secs))] {
			b := data[lay.off[sec] : lay.off[sec]+lay.len[sec]]
			switch seed % 3 {
			case 0: // all of it
				r.Read(b)
			default: // a few values: a link, a count, an offset
				for range 40 {
					at := r.Intn(len(b)/4) * 4
					le.PutUint32(b[at:], uint32(r.Int63n(1<<32)))
				}
			}
		}
		if seed%2 == 1 {
			// Offsets that pass Load's check of the first and the last.
			off := data[lay.off[secIDOffsets]:]
			le.PutUint64(off, 0)
			le.PutUint64(off[n*8:], uint64(lay.len[secIDs]))
		}
		t.Run("", func(t *testing.T) {
			// As damaged, the section checksums say so at Load (or,
			// for the codes and vectors, at Verify); made to fit, as a hostile
			// file's would be, the graph is used as it stands.
			useHostile(t, data, true)
			if useHostile(t, reseal(t, data), false) {
				loads++
			}
		})
	}
	// Load checks the first and last id offset only: the resealed files
	// with those intact, and those with only their links spoiled, load.
	if loads < 8 {
		t.Errorf("%d of 15 spoiled files loaded, want at least 8", loads)
	}
}

// FuzzHostileSections writes the fuzzer's bytes over the sections Load
// maps unread, as TestHostileSections does with random ones.
func FuzzHostileSections(f *testing.F) {
	base := hostileBase(f)
	lay := layoutOf(f, base)
	f.Add([]byte{0xff, 0xff, 0xff, 0xff}, uint8(0))
	f.Add([]byte{0x21, 0, 0, 0, 0xff, 0xff, 0, 0}, uint8(0))
	f.Add([]byte{0x10, 0, 0, 0, 0, 0, 0, 0}, uint8(1))
	f.Add([]byte("hello"), uint8(2))
	f.Add([]byte{0, 0, 0xc0, 0x7f}, uint8(3)) // NaN scales
	f.Add([]byte{0x00, 0x7c}, uint8(4))       // +Inf values
	f.Fuzz(func(t *testing.T, b []byte, sec uint8) {
		if len(b) == 0 {
			return
		}
		i := []int{secLinks, secIDOffsets, secIDs, secCodes, secHalfs}[sec%5]
		data := bytes.Clone(base)
		s := data[lay.off[i] : lay.off[i]+lay.len[i]]
		for j := range s {
			s[j] = b[j%len(b)]
		}
		useHostile(t, data, !bytes.Equal(data, base))
		useHostile(t, reseal(t, data), false)
	})
}

// reseal makes the section checksums of the version 4 file data fit what
// its sections hold, as someone crafting a file would.
func reseal(t *testing.T, data []byte) []byte {
	t.Helper()
	data = bytes.Clone(data)
	lay := layoutOf(t, data)
	le := binary.LittleEndian
	tr := data[lay.end : lay.end+trailerSize]
	for i := range sections {
		le.PutUint32(tr[4+4*i:], crc32.Checksum(data[lay.off[i]:lay.off[i]+lay.len[i]], castagnoli))
	}
	le.PutUint32(tr[trailerSize-4:], crc32.Checksum(tr[:trailerSize-4], castagnoli))
	return data
}

// TestLoadTrusting checks what Trust changes: a file its Checked vouches
// for is loaded without its links' and ids' checksums being read (a
// damaged one loads, and is used safely), one it does not is checked as
// by Load and, when whole, reported to Verified; a damaged file is never
// reported, and the header, trailer and upper layers are checked always.
func TestLoadTrusting(t *testing.T) {
	base := hostileBase(t)
	lay := layoutOf(t, base)
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var verified []string
	trust := func(vouch bool) Trust {
		return Trust{
			Checked:  func(*os.File) bool { return vouch },
			Verified: func(f *os.File) { verified = append(verified, filepath.Base(f.Name())) },
		}
	}
	whole := write("whole.vec", base)
	if _, err := LoadTrusting(whole, nil, trust(false)); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadTrusting(whole, nil, trust(true)); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(verified) != "[whole.vec]" {
		t.Errorf("Verified heard of %v, want whole.vec once (when its checksums were read)", verified)
	}

	verified = nil
	links := bytes.Clone(base)
	links[lay.off[secLinks]+8] ^= 0xff
	spoiled := write("links.vec", links)
	if _, err := LoadTrusting(spoiled, nil, trust(false)); !errors.Is(err, ErrFormat) {
		t.Errorf("untrusted load of a file with a damaged link: %v, want ErrFormat", err)
	}
	x, err := LoadTrusting(spoiled, nil, trust(true))
	if err != nil {
		t.Fatalf("trusted load of a file with a damaged link: %v, want it loaded unread", err)
	}
	q := make([]float32, 8)
	q[0] = 1
	if _, err := x.Search(q, 5); err != nil {
		t.Errorf("search of the trusted damaged graph: %v", err)
	}
	if verified != nil {
		t.Errorf("Verified heard of %v, want nothing for a damaged or trusted file", verified)
	}

	trailer := bytes.Clone(base)
	trailer[len(trailer)-1] ^= 0xff
	if _, err := LoadTrusting(write("trailer.vec", trailer), nil, trust(true)); !errors.Is(err, ErrFormat) {
		t.Errorf("trusted load of a file with a damaged trailer: %v, want ErrFormat", err)
	}
}

// TestVerifyCodes spoils one code and makes the checksums fit: Load
// takes the file (a search can only misrank), Verify finds the code is
// not its vector's.
func TestVerifyCodes(t *testing.T) {
	base := hostileBase(t)
	lay := layoutOf(t, base)
	data := bytes.Clone(base)
	data[lay.off[secCodes]+int64(codeBytes(8))*5+2] ^= 0x40
	path := filepath.Join(t.TempDir(), "v.vec")
	if err := os.WriteFile(path, reseal(t, data), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path, nil); err != nil {
		t.Fatalf("Load: %v, want the file taken", err)
	}
	if err := Verify(path); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "node 5: its code is not its vector's") {
		t.Errorf("Verify: %v, want ErrFormat saying node 5's code is not its vector's", err)
	}
}

// TestHostileUpper changes each byte of the upper layers of a file and
// makes the checksums fit: Load must refuse it with ErrFormat or take
// upper layers that hold, every link to a node of the graph that reaches
// its layer and the entry point on the top one; never panic. A link on
// layer 2 to a node only on layer 1, the checks' subtlest case, is
// refused.
func TestHostileUpper(t *testing.T) {
	base := hostileBase(t)
	lay := layoutOf(t, base)
	off, n := lay.off[secUpper], lay.len[secUpper]
	load := func(data []byte) (*Index, error) {
		x, err := decode(bytes.NewReader(data), int64(len(data)), nil)
		if err != nil {
			return nil, loadError("v.vec", err) // as Load says it
		}
		return x, nil
	}
	x, err := load(base)
	if err != nil {
		t.Fatal(err)
	}
	if x.g.top < 2 {
		t.Fatalf("the base graph's top layer is %d: the test wants layers 1 and 2", x.g.top)
	}
	taken := 0
	for i := off; i < off+n; i++ {
		for _, flip := range []byte{0x01, 0x80, 0xff} {
			data := bytes.Clone(base)
			data[i] ^= flip
			x, err := load(reseal(t, data))
			if err != nil {
				if !errors.Is(err, ErrFormat) {
					t.Fatalf("byte %d ^ %#x: %v, want ErrFormat", i-off, flip, err)
				}
				continue
			}
			taken++
			g := x.g
			for s, ls := range g.up {
				for l, ns := range ls {
					for _, u := range ns {
						if int(u) >= g.nodes || g.level(u) < l+1 {
							t.Fatalf("byte %d ^ %#x taken: node %d links to %d on layer %d, which reaches layer %d", i-off, flip, s, u, l+1, g.level(u))
						}
					}
				}
			}
			if g.level(g.entry) != g.top {
				t.Fatalf("byte %d ^ %#x taken: entry %d on layer %d of %d", i-off, flip, g.entry, g.level(g.entry), g.top)
			}
		}
	}
	t.Logf("%d of %d changes taken", taken, 3*n)

	// A node on layer 2 whose first link there goes to a node only on
	// layer 1 instead.
	var from, to uint32
	found := false
	for s, ls := range x.g.up {
		if len(ls) == 1 {
			to = s
		} else if len(ls[1]) > 0 {
			from, found = s, true
		}
	}
	if !found {
		t.Fatal("no node with links on layer 2")
	}
	data := bytes.Clone(base)
	up := data[off : off+n]
	le := binary.LittleEndian
	for o := 0; o < len(up); {
		u, k := binary.Uvarint(up[o:])
		o += k
		level := int(up[o])
		o++
		for l := range level {
			c, k := binary.Uvarint(up[o:])
			o += k
			if uint32(u) == from && l == 1 {
				le.PutUint32(up[o:], to)
			}
			o += int(c) * 4
		}
	}
	if _, err := load(reseal(t, data)); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), fmt.Sprintf("node %d: link to %d on layer 2", from, to)) {
		t.Errorf("a layer-2 link to a node on layer 1: %v, want ErrFormat naming it", err)
	}
}
