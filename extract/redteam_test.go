package extract_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/braidsearch/braid/extract"
	"github.com/braidsearch/braid/internal/formattest"
	"github.com/braidsearch/braid/internal/testenv"
)

// allocated is how many bytes of Go heap fn allocates: an upper bound of
// what it holds at once (the PDF engine's memory is not Go heap).
func allocated(fn func()) int64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return int64(after.TotalAlloc - before.TotalAlloc)
}

// TestRedTeam replays the small files of issue 47 that cost gigabytes to
// extract while within every documented bound: each is now refused at a
// bound of its own, having allocated a small part of what it did (the
// figures before are the peak resident memory of braid index on the file
// alone). The budget each may allocate is a Go heap total, so an upper
// bound of its peak.
func TestRedTeam(t *testing.T) {
	for _, c := range []struct {
		name, file string
		data       func() []byte
		why        string
		alloc      int64
	}{
		// 2.1 GiB: the decoder made a slice of 12 Mi attributes.
		{"docx, 12 Mi attributes on one element", "a.docx", func() []byte { return formattest.DOCXAttrs(12 << 20) }, "XML tag, comment or declaration of over 64 KiB", 8 << 20},
		{"odt, 12 Mi attributes on one element", "a.odt", func() []byte { return formattest.ODTAttrs(12 << 20) }, "XML tag, comment or declaration of over 64 KiB", 8 << 20},
		// 2.6 to 2.8 GiB (5.4 GiB with words): the run, its paragraph,
		// its markdown, its chunks.
		{"docx, 60 MiB in one run", "r.docx", func() []byte { return formattest.DOCXLongRun(60 << 20) }, "a run of over 8 MiB of text", 48 << 20},
		{"odt, 60 MiB in one paragraph", "r.odt", func() []byte { return formattest.ODTLongRun(60 << 20) }, "a run of over 8 MiB of text", 48 << 20},
		// 1.5 to 1.9 GiB: PDFium's memory grown by copying, after the
		// pure-Go reader handed it on.
		{"pdf, 31 MiB of (a) Tj", "t.pdf", func() []byte { return formattest.TextOps(1, 31<<20, false) }, "over 131072 glyphs on a page", 224 << 20},
		// 1.2 GiB in 73 s.
		{"pdf, 8 pages of 31 MiB of (a) Tj", "t8.pdf", func() []byte { return formattest.TextOps(8, 31<<20, false) }, "over 131072 glyphs on a page", 224 << 20},
		// 1.3 to 1.4 GiB.
		{"pdf, content inflating to 279 MiB", "i.pdf", func() []byte { return formattest.InflatingPDF(279 << 20) }, "inflates past 32 MiB", 48 << 20},
		// 1.1 GiB: 4 million nodes in the tree, and again in the
		// conversion.
		{"html, <font><p> repeated", "f.html", func() []byte { return formattest.FontParagraphs(833_333) }, "over 500000 elements and texts", 16 << 20},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := c.data()
			var err error
			got := allocated(func() { _, err = extract.File(t.Context(), c.file, data, nil) })
			if !errors.Is(err, extract.ErrOverLimit) || !strings.Contains(err.Error(), c.why) {
				t.Fatalf("File = %v, want ErrOverLimit saying %q", err, c.why)
			}
			if got > c.alloc {
				t.Errorf("extracting it allocated %d MiB, want at most %d MiB", got>>20, c.alloc>>20)
			}
		})
	}
}

// TestTextBound: a document is read up to MaxText of text, and refused
// past it, whatever makes the text (runs, tabs, ODT's repeated spaces).
func TestTextBound(t *testing.T) {
	under := strings.Repeat("word ", extract.MaxText/5-64)
	over := under + strings.Repeat("x", 400)
	spaces := strings.Repeat(`<text:s text:c="64"/>`, extract.MaxText/64+1)
	for _, c := range []struct {
		name string
		read func() error
		ok   bool
	}{
		{"docx under", func() error {
			_, err := extract.DOCX(t.Context(), formattest.DOCX([]formattest.Para{{Text: under}}, nil))
			return err
		}, true},
		{"docx over, in paragraphs", func() error {
			_, err := extract.DOCX(t.Context(), formattest.DOCX([]formattest.Para{{Text: under}, {Text: strings.Repeat("y", 400)}}, nil))
			return err
		}, false},
		{"odt over", func() error {
			_, err := extract.ODT(t.Context(), formattest.ODT([]formattest.Para{{Text: over}}))
			return err
		}, false},
		{"odt of repeated spaces", func() error {
			data := formattest.Zip([]string{"content.xml"}, map[string]string{"content.xml": `<office:document-content xmlns:office="o" xmlns:text="t"><office:body><office:text><text:p>` + spaces + `</text:p></office:text></office:body></office:document-content>`})
			_, err := extract.ODT(t.Context(), data)
			return err
		}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.read()
			if c.ok && err != nil {
				t.Fatalf("read = %v, want the text", err)
			}
			if !c.ok && !errors.Is(err, extract.ErrOverLimit) {
				t.Fatalf("read = %v, want ErrOverLimit", err)
			}
		})
	}
}

// TestXMLMarkup: what the meter lets through is read as before: comments,
// CDATA, processing instructions and quoted '>' in attribute values.
func TestXMLMarkup(t *testing.T) {
	body := `<?xml version="1.0"?><!DOCTYPE w:document><w:document xmlns:w="w"><w:body>` +
		`<!-- a comment with <w:t>no text</w:t> and a > inside -->` +
		`<w:p><w:pPr><w:pStyle w:val="Heading1" w:x="a > b"/></w:pPr><w:r><w:t>Title</w:t></w:r></w:p>` +
		`<?pi with > inside?>` +
		`<w:p><w:r><w:t><![CDATA[x < y ]] ]]]]><![CDATA[>]]></w:t></w:r></w:p>` +
		`</w:body></w:document>`
	d, err := extract.DOCX(t.Context(), formattest.Zip([]string{"word/document.xml"}, map[string]string{"word/document.xml": body}))
	if err != nil {
		t.Fatal(err)
	}
	if want := "# Title\n\nx < y ]] ]]>\n\n"; string(d.Text) != want {
		t.Errorf("text %q, want %q", d.Text, want)
	}
	// A comment, CDATA or tag just past the markup bound is refused.
	for _, m := range []string{"<!--" + strings.Repeat("x", extract.MaxMarkup) + "-->", `<w:p a="` + strings.Repeat("x", extract.MaxMarkup) + `"/>`} {
		data := formattest.Zip([]string{"word/document.xml"}, map[string]string{"word/document.xml": `<w:document xmlns:w="w"><w:body>` + m + `</w:body></w:document>`})
		if _, err := extract.DOCX(t.Context(), data); !errors.Is(err, extract.ErrOverLimit) {
			t.Errorf("markup of %d bytes: %v, want ErrOverLimit", len(m), err)
		}
	}
}

// TestHTMLNodes: a page whose tree would pass MaxNodes is refused before
// it is parsed, and an ordinary large page is read.
func TestHTMLNodes(t *testing.T) {
	var b strings.Builder
	b.WriteString("<html><head><title>Big</title></head><body>")
	for i := 0; b.Len() < 1<<20; i++ {
		fmt.Fprintf(&b, "<h2>Section %d</h2><p>Some words of paragraph %d with <a href=\"x%d.md\">a link</a> and <em>emphasis</em>, more words follow here.</p>\n", i, i, i)
	}
	d, err := extract.HTML([]byte(b.String()))
	if err != nil || !bytes.Contains(d.Text, []byte("[a link](x7.md)")) {
		t.Fatalf("a 1 MB page: %v", err)
	}
	// Unclosed <b>s reopened in every paragraph: few tokens, many nodes.
	var nested strings.Builder
	for i := range 200 {
		fmt.Fprintf(&nested, `<b class="c%d">`, i)
	}
	nested.WriteString(strings.Repeat("<p>x", 5000))
	if _, err := extract.HTML([]byte(nested.String())); !errors.Is(err, extract.ErrOverLimit) {
		t.Errorf("200 formatting elements reopened 5000 times: %v, want ErrOverLimit", err)
	}
}

// TestRenderBigPage: view_chunk_image of a 782-byte PDF with an 8000 pt
// square page rendered 11,112 pixels square at 100 dpi (1.06 to 1.29 GiB,
// 9 to 12 s); the page is now scaled to MaxPixels, its shape kept, while
// an ordinary page renders at the dpi asked.
func TestRenderBigPage(t *testing.T) {
	big, err := extract.RenderPDFPage(t.Context(), formattest.BigPage(8000, 8000), 1, 100, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r := big.Bounds(); r.Dx()*r.Dy() > extract.MaxPixels || r.Dx() != r.Dy() || r.Dx() < 4000 {
		t.Errorf("8000 pt square at 100 dpi renders %v, want a square of at most %d pixels", r, extract.MaxPixels)
	}
	page, err := extract.RenderPDFPage(t.Context(), formattest.BigPage(612, 792), 1, 100, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r := page.Bounds(); r.Dx() != 850 || r.Dy() != 1100 {
		t.Errorf("a letter page at 100 dpi renders %v, want 850×1100", r)
	}
}

// TestPDFiumMemory: a file the pure-Go reader hands on reaches PDFium's
// memory bound without the Go heap growing with it (the engine's memory
// is mapped: before, growing it by copying allocated 2.4 GiB of Go heap
// for this file, 1.6 GiB at its peak).
func TestPDFiumMemory(t *testing.T) {
	testenv.Slow(t, "runs PDFium to its memory bound (5 s)")
	data := formattest.TextOps(1, 31<<20, false)
	// The engine's compile (or load from its cache) is not the file's.
	if _, err := extract.PDF(context.Background(), formattest.Paper(1, nil), &extract.Options{OnlyPDFium: true}); err != nil {
		t.Fatal(err)
	}
	var err error
	got := allocated(func() {
		_, err = extract.PDF(context.Background(), data, &extract.Options{OnlyPDFium: true})
	})
	if !errors.Is(err, extract.ErrOverLimit) {
		t.Fatalf("PDF = %v, want ErrOverLimit", err)
	}
	if got > 64<<20 {
		t.Errorf("reading it with PDFium allocated %d MiB of Go heap, want under 64 MiB", got>>20)
	}
}
