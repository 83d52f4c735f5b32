package pdftext_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/braidsearch/braid/extract/pdftext"
	"github.com/braidsearch/braid/internal/formattest"
)

// page is the objects of a one-page PDF drawing content with a Helvetica
// font F1 (object 5) and more resources res, then objects from 6.
func page(content, res string, more ...string) []string {
	return append([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R /F2 6 0 R >> " + res + " >> >>",
		formattest.Stream("", []byte(content)),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
	}, more...)
}

func TestReadCorpus(t *testing.T) {
	corpus := formattest.PDFCorpus()
	for _, n := range slices.Sorted(maps.Keys(corpus)) {
		t.Run(n, func(t *testing.T) {
			d, err := pdftext.Read(t.Context(), corpus[n], pdftext.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if len(d.Pages) == 0 {
				t.Fatal("no pages")
			}
		})
	}
}

func TestRead(t *testing.T) {
	corpus := formattest.PDFCorpus()
	for _, c := range []struct {
		name    string
		title   string
		pages   []string
		outline []pdftext.Entry
	}{
		{name: "incremental update", title: "Revised", pages: []string{"The revised words replace them."}},
		{name: "xref stream and object stream", title: "Packed", pages: []string{"Compressed objects hold this page."}},
		{name: "utf-16 title", title: "Unicode Title Ω 日", pages: []string{"A page under a Unicode title."}},
		{name: "type0 identity-h with tounicode", pages: []string{"Hi éabc üd!"}},
		{name: "differences with glyph names", pages: []string{"find the café “ok” for 5 € and ffine"}},
		{name: "tj kerning and gaps", pages: []string{"Kerning word gapsand spaces"}},
		{name: "form xobject", pages: []string{"Before the form.\nInside the form.\nAfter the form."}},
		{name: "inline image", pages: []string{"Before the image.\nAfter the image."}},
		{name: "ascii filters", pages: []string{"Hex encoded content.", "Base 85 encoded content."}},
		{name: "text operators", pages: []string{"first line\nsecond line\nthird line\nfourth line\nmoved by Tm\ndown by TD\nscaled and spacedrisen"}},
		{name: "named destinations",
			pages: []string{"Shared content on every page.", "Shared content on every page.", "Shared content on every page."},
			outline: []pdftext.Entry{
				{Level: 0, Title: "By a name tree", Page: 1},
				{Level: 1, Title: "Child by page number", Page: 0},
				{Level: 0, Title: "By a GoTo action", Page: 2},
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, err := pdftext.Read(t.Context(), corpus[c.name], pdftext.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			want := &pdftext.Doc{Title: c.title, Pages: c.pages, Outline: c.outline}
			if diff := cmp.Diff(want, d); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestOutline reads fpdf's nested bookmarks, and leaves out an outline
// that loops or is over the limit.
func TestOutline(t *testing.T) {
	data := formattest.PDF([]formattest.Page{
		{Bookmark: "One", Lines: []string{"a"}},
		{Bookmark: "One.One", Level: 1, Lines: []string{"b"}},
		{Bookmark: "Deep", Level: 2, Lines: []string{"c"}},
		{Bookmark: "Two", Lines: []string{"d"}},
	}, formattest.PDFOptions{})
	d, err := pdftext.Read(t.Context(), data, pdftext.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	want := []pdftext.Entry{{0, "One", 0}, {1, "One.One", 1}, {2, "Deep", 2}, {0, "Two", 3}}
	if diff := cmp.Diff(want, d.Outline); diff != "" {
		t.Errorf("outline (-want +got):\n%s", diff)
	}
	if d, err := pdftext.Read(t.Context(), data, pdftext.Limits{MaxOutline: 3}); err != nil || d.Outline != nil {
		t.Errorf("over MaxOutline: %v, %v; want no outline", d.Outline, err)
	}
	d, err = pdftext.Read(t.Context(), formattest.LoopedOutline(), pdftext.Limits{})
	if err != nil || d.Outline != nil || d.Pages[0] != "Looping outline text" {
		t.Errorf("looped outline: %+v, %v; want the text and no outline", d, err)
	}
}

// xrefStreamPDF writes objs (by number, from 1) with an unfiltered
// cross-reference stream whose entries are given: a type-2 entry
// {2, stm, idx} places an object in an object stream.
func xrefStreamPDF(objs map[int]string, inStream map[int][2]int) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.5\n")
	size := 0
	for n := range objs {
		size = max(size, n+1)
	}
	for n := range inStream {
		size = max(size, n+1)
	}
	xrefNum := size
	size++
	offs := map[int]int{}
	for _, n := range slices.Sorted(maps.Keys(objs)) {
		offs[n] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", n, objs[n])
	}
	offs[xrefNum] = b.Len()
	var x bytes.Buffer
	for n := range size {
		typ, a, c := 0, 0, 0
		if o, ok := offs[n]; ok {
			typ, a = 1, o
		}
		if s, ok := inStream[n]; ok {
			typ, a, c = 2, s[0], s[1]
		}
		x.WriteByte(byte(typ))
		binary.Write(&x, binary.BigEndian, uint32(a))
		binary.Write(&x, binary.BigEndian, uint16(c))
	}
	fmt.Fprintf(&b, "%d 0 obj\n<< /Type /XRef /Size %d /W [1 4 2] /Root 1 0 R /Length %d >>\nstream\n%s\nendstream\nendobj\n", xrefNum, size, x.Len(), x.String())
	fmt.Fprintf(&b, "startxref\n%d\n%%%%EOF\n", offs[xrefNum])
	return b.Bytes()
}

// unsupported is the files Read refuses, each with the reason its error
// gives.
func unsupported() []struct {
	name, why string
	data      []byte
} {
	good := formattest.RawPDF(page("BT /F1 12 Tf 72 700 Td (Some text) Tj ET", ""), "")
	broken := bytes.Replace(good, []byte("0000000015 00000 n"), []byte("0000000099 00000 n"), 1)
	cyclicPrev := func() []byte {
		b := bytes.Clone(good)
		off := len(b)
		return fmt.Appendf(b, "xref\n0 1\n0000000000 65535 f \ntrailer\n<< /Size 6 /Root 1 0 R /Prev %d >>\nstartxref\n%d\n%%%%EOF\n", off, off)
	}
	return []struct {
		name, why string
		data      []byte
	}{
		{"encrypted", "encrypted", formattest.PDF([]formattest.Page{{Lines: []string{"secret"}}}, formattest.PDFOptions{Password: "pw"})},
		{"no text", "no text", formattest.PDF([]formattest.Page{{}, {}}, formattest.PDFOptions{})},
		{"type3 font", "Type3 font", formattest.RawPDF(page("BT /F2 12 Tf 72 700 Td (ab) Tj ET", "",
			"<< /Type /Font /Subtype /Type3 /FontBBox [0 0 1 1] /FontMatrix [0.001 0 0 0.001 0 0] /CharProcs << >> /Encoding << /Differences [97 /a /b] >> /FirstChar 97 /LastChar 98 /Widths [1 1] >>"), "")},
		{"type0 without tounicode", "Type0 font without ToUnicode", formattest.RawPDF(page("BT /F2 12 Tf 72 700 Td <00410042> Tj ET", "",
			"<< /Type /Font /Subtype /Type0 /BaseFont /X /Encoding /Identity-H /DescendantFonts [7 0 R] >>",
			"<< /Type /Font /Subtype /CIDFontType2 /BaseFont /X /CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> >>"), "")},
		{"identity-v", "Identity-V", formattest.RawPDF(page("BT /F2 12 Tf 72 700 Td <0041> Tj ET", "",
			"<< /Type /Font /Subtype /Type0 /BaseFont /X /Encoding /Identity-V /DescendantFonts [7 0 R] /ToUnicode 8 0 R >>",
			"<< /Type /Font /Subtype /CIDFontType2 /BaseFont /X >>",
			formattest.Stream("", []byte("1 beginbfchar <0041> <0041> endbfchar"))), "")},
		{"unknown filter", "filter LZWDecode", formattest.RawPDF([]string{
			"<< /Type /Catalog /Pages 2 0 R >>",
			"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
			"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
			formattest.Stream("/Filter /LZWDecode", []byte("\x80\x0b\x60\x50\x22\x0c\x0c\x85\x01")),
			"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"}, "")},
		{"unknown glyph name", "code 1 has no known text", formattest.RawPDF(page(`BT /F2 12 Tf 72 700 Td (\001) Tj ET`, "",
			"<< /Type /Font /Subtype /Type1 /BaseFont /Times-Roman /Encoding << /Differences [1 /glyph042] >> >>"), "")},
		{"symbol font", "code 97 has no known text", formattest.RawPDF(page("BT /F2 12 Tf 72 700 Td (a) Tj ET", "",
			"<< /Type /Font /Subtype /Type1 /BaseFont /Symbol >>"), "")},
		{"symbolic truetype without tounicode", "code 97 has no known text", formattest.RawPDF(page("BT /F2 12 Tf 72 700 Td (a) Tj ET", "",
			"<< /Type /Font /Subtype /TrueType /BaseFont /Wingdings /Encoding /WinAnsiEncoding /FontDescriptor 7 0 R >>",
			"<< /Type /FontDescriptor /FontName /Wingdings /Flags 4 /FontBBox [0 0 1000 1000] /ItalicAngle 0 /Ascent 800 /Descent -200 /CapHeight 700 /StemV 80 >>"), "")},
		{"right-to-left text", "code 0001 has no text", formattest.RawPDF(page("BT /F2 12 Tf 72 700 Td <00010002> Tj ET", "",
			"<< /Type /Font /Subtype /Type0 /BaseFont /X /Encoding /Identity-H /DescendantFonts [7 0 R] /ToUnicode 8 0 R >>",
			"<< /Type /Font /Subtype /CIDFontType2 /BaseFont /X >>",
			formattest.Stream("", []byte("2 beginbfchar <0001> <05E9> <0002> <05DC> endbfchar"))), "")},
		{"broken xref offset", "no object header", broken},
		{"not a pdf", "no %PDF- header", []byte("hello")},
		{"truncated", "startxref", good[:len(good)/2]},
		{"cyclic page tree", "the page tree loops", formattest.RawPDF([]string{
			"<< /Type /Catalog /Pages 2 0 R >>",
			"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
			"<< /Type /Pages /Kids [2 0 R] /Count 1 >>"}, "")},
		{"cyclic prev", "the /Prev chain loops", cyclicPrev()},
		{"object stream holding itself", "holds itself", xrefStreamPDF(map[int]string{
			1: "<< /Type /Catalog /Pages 2 0 R >>",
		}, map[int][2]int{2: {3, 0}, 3: {3, 1}})},
		{"a million nested arrays", "nested over 64 deep", formattest.RawPDF([]string{
			"<< /Type /Catalog /Pages 2 0 R >>",
			"<< /Type /Pages /Kids [3 0 R] /Count 1 /X " + strings.Repeat("[", 1_000_000) + " >>"}, "")},
		{"form drawing itself", "a form draws itself", formattest.RawPDF(page("/Fm1 Do", "/XObject << /Fm1 6 0 R >>",
			formattest.Stream("/Type /XObject /Subtype /Form /BBox [0 0 1 1] /Resources << /XObject << /Fm1 6 0 R >> >>", []byte("/Fm1 Do"))), "")},
		{"too many operators on a page", "over 4194304 operators on a page", formattest.RawPDF([]string{
			"<< /Type /Catalog /Pages 2 0 R >>",
			"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
			"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>",
			formattest.FlateStream("", bytes.Repeat([]byte("n "), 4<<20+1))}, "")},
		{"page count disagrees", "/Count", formattest.HugeCount()},
		{"huge object stream", "inflates past", formattest.HugeObjectStream(40 << 20)},
	}
}

// TestUnsupported: every file Read does not take gives ErrUnsupported
// with the reason, promptly and without a panic.
func TestUnsupported(t *testing.T) {
	for _, c := range unsupported() {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			d, err := pdftext.Read(t.Context(), c.data, pdftext.Limits{})
			if !errors.Is(err, pdftext.ErrUnsupported) {
				t.Fatalf("Read = %+v, %v; want ErrUnsupported", d, err)
			}
			if !strings.Contains(err.Error(), c.why) {
				t.Errorf("error %q does not say %q", err, c.why)
			}
			if el := time.Since(start); el > slow*5*time.Second {
				t.Errorf("took %s", el)
			}
		})
	}
}

// TestOverLimit: a file past a bound that PDFium would meet too, at a
// greater cost (it holds an object for each glyph, and decodes a page's
// content whole), is refused with ErrOverLimit, not handed on as
// unsupported; and the memory the read takes stays a small multiple of
// the bound, not of what the file claims.
func TestOverLimit(t *testing.T) {
	twoParts := formattest.RawPDF([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents [4 0 R 4 0 R] >>",
		formattest.FlateStream("", bytes.Repeat([]byte(" "), 20<<20)),
	}, "")
	for _, c := range []struct {
		name, why string
		data      []byte
		lim       pdftext.Limits
		alloc     int64 // the most bytes the read may allocate
	}{
		{"content stream inflating to 279 MiB", "inflates past 32 MiB", formattest.InflatingPDF(279 << 20), pdftext.Limits{}, 48 << 20},
		// The stream (twice, as read and joined), 128 Ki glyphs and their
		// text objects: 424 MiB before glyphs were bounded to 128 Ki and
		// streams read without doubling a buffer.
		{"31 MiB of (a) Tj on a page", "over 131072 glyphs on a page", formattest.TextOps(1, 31<<20, false), pdftext.Limits{}, 224 << 20},
		{"8 pages of 31 MiB of (a) Tj", "page 1: ", formattest.TextOps(8, 31<<20, false), pdftext.Limits{}, 224 << 20},
		{"two 20 MiB parts of one page's content", "the page's content passes 32 MiB", twoParts, pdftext.Limits{}, 128 << 20},
		{"over MaxText", "over 0 MiB of text by page 2", formattest.Paper(3, nil), pdftext.Limits{MaxText: 40}, 1 << 20},
	} {
		t.Run(c.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err := pdftext.Read(t.Context(), c.data, c.lim)
			runtime.ReadMemStats(&after)
			if !errors.Is(err, pdftext.ErrOverLimit) || errors.Is(err, pdftext.ErrUnsupported) {
				t.Fatalf("Read = %v; want ErrOverLimit alone", err)
			}
			if !strings.Contains(err.Error(), c.why) {
				t.Errorf("error %q does not say %q", err, c.why)
			}
			if got := int64(after.TotalAlloc - before.TotalAlloc); got > c.alloc {
				t.Errorf("the read allocated %d MiB, want at most %d MiB", got>>20, c.alloc>>20)
			}
		})
	}
}

// TestManyFonts: the fonts' maps are bounded together, not only each: a
// 600 KB PDF of 100 fonts sharing one ToUnicode CMap of 128 Ki codes
// allocated 2.6 GiB, and was read. It is handed on to PDFium (which has a
// memory bound of its own), having allocated a small part of that.
func TestManyFonts(t *testing.T) {
	data := formattest.ManyFonts(100, 1<<17)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := pdftext.Read(t.Context(), data, pdftext.Limits{})
	runtime.ReadMemStats(&after)
	if !errors.Is(err, pdftext.ErrUnsupported) || !strings.Contains(err.Error(), "fonts whose maps hold over 524288 entries") {
		t.Fatalf("Read = %v, want ErrUnsupported for the fonts' maps", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 192<<20 {
		t.Errorf("the read allocated %d MiB, want at most 192 MiB", got>>20)
	}
}

// TestHostileRead: files made to trip a reader that it still reads, as
// PDFium would, promptly.
func TestHostileRead(t *testing.T) {
	hugeLength := formattest.RawPDF(append(page("", ""),
		"<< /Length 99999999999 >>\nstream\nBT /F1 12 Tf 72 700 Td (Long said, short done) Tj ET\nendstream")[:6], "")
	hugeLength = bytes.Replace(hugeLength, []byte("/Contents 4 0 R"), []byte("/Contents 6 0 R"), 1)
	start := time.Now()
	d, err := pdftext.Read(t.Context(), hugeLength, pdftext.Limits{})
	if err != nil || d.Pages[0] != "Long said, short done" {
		t.Errorf("a stream with a huge /Length: %+v, %v", d, err)
	}
	if el := time.Since(start); el > slow*time.Second {
		t.Errorf("took %s", el)
	}
}

func TestContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := pdftext.Read(ctx, formattest.Paper(2, nil), pdftext.Limits{})
	if !errors.Is(err, pdftext.ErrUnsupported) || !errors.Is(err, context.Canceled) {
		t.Errorf("Read after cancel = %v", err)
	}
	if _, err := pdftext.Read(t.Context(), formattest.Paper(3, nil), pdftext.Limits{MaxPages: 2}); !errors.Is(err, pdftext.ErrUnsupported) {
		t.Errorf("over MaxPages = %v", err)
	}
}
