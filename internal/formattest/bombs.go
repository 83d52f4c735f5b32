package formattest

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"encoding/binary"
	"fmt"
	"hash/adler32"
	"strings"
)

// The red team's small files that cost gigabytes (issue 47): each is a
// few kilobytes on disk, within every documented bound, and built here
// in a fraction of a second from a compressed block repeated.

// repeated is a raw deflate stream (not final) of prefix, then unit
// count times, then suffix, and the Adler-32 of that text: cheap to build
// whatever its size, since one compressed block of units is repeated.
func repeated(prefix, unit string, count int, suffix string) ([]byte, uint32) {
	part := func(s string) []byte {
		var b bytes.Buffer
		w, _ := flate.NewWriter(&b, flate.BestCompression)
		w.Write([]byte(s))
		w.Flush() // a non-final block ending on a byte: blocks concatenate
		return b.Bytes()
	}
	per := max((1<<20)/len(unit), 1) // units in one block
	block := strings.Repeat(unit, per)
	z := bytes.NewBuffer(part(prefix))
	sum := adler32.New()
	sum.Write([]byte(prefix))
	if full := count / per; full > 0 {
		blk := part(block)
		for range full {
			z.Write(blk)
			sum.Write([]byte(block))
		}
	}
	if rest := strings.Repeat(unit, count%per); rest != "" {
		z.Write(part(rest))
		sum.Write([]byte(rest))
	}
	z.Write(part(suffix))
	sum.Write([]byte(suffix))
	return z.Bytes(), sum.Sum32()
}

// officeZip is a zip archive holding small members and one large member,
// big, whose deflated body and honest size are given.
func officeZip(small map[string]string, big string, body []byte, size uint64) []byte {
	var b bytes.Buffer
	z := zip.NewWriter(&b)
	for _, n := range []string{"[Content_Types].xml", "mimetype"} {
		if s, ok := small[n]; ok {
			w, _ := z.Create(n)
			w.Write([]byte(s))
		}
	}
	final := append(bytes.Clone(body), 0x03, 0x00) // an empty final block
	w, err := z.CreateRaw(&zip.FileHeader{Name: big, Method: zip.Deflate, CompressedSize64: uint64(len(final)), UncompressedSize64: size})
	if err != nil {
		panic(err)
	}
	w.Write(final)
	if err := z.Close(); err != nil {
		panic(err)
	}
	return b.Bytes()
}

const docxHead = `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>`

func docx(prefix, unit string, count int, suffix string) []byte {
	prefix = docxHead + prefix
	suffix += "</w:body></w:document>"
	body, _ := repeated(prefix, unit, count, suffix)
	size := uint64(len(prefix) + len(unit)*count + len(suffix))
	return officeZip(map[string]string{"[Content_Types].xml": `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>`},
		"word/document.xml", body, size)
}

// DOCXAttrs is a Word document with one paragraph of text after an
// element that carries n attributes (` a=""` each: 12 Mi of them is 60
// MiB of XML, under the decompressed bound, in 60 KB of zip).
func DOCXAttrs(n int) []byte {
	return docx(`<w:p><w:r><w:t>Before the attributes.</w:t></w:r></w:p><w:p><w:pPr`, ` a=""`, n, `/><w:r><w:t>After the attributes.</w:t></w:r></w:p>`)
}

// DOCXLongRun is a Word document whose one text run holds size bytes of
// "a a a ..." (60 MiB is under the decompressed bound, in 60 KB of zip; as
// one-letter words it makes the most chunks).
func DOCXLongRun(size int) []byte {
	return docx(`<w:p><w:r><w:t>`, "a ", size/2, `</w:t></w:r></w:p>`)
}

// ODTAttrs and ODTLongRun are DOCXAttrs and DOCXLongRun as OpenDocument
// text.
func ODTAttrs(n int) []byte {
	return odt(`<text:p>Before.</text:p><text:p`, ` a=""`, n, `>After.</text:p>`)
}

// ODTLongRun: see ODTAttrs.
func ODTLongRun(size int) []byte { return odt(`<text:p>`, "a", size, `</text:p>`) }

func odt(prefix, unit string, count int, suffix string) []byte {
	prefix = `<?xml version="1.0" encoding="UTF-8"?><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"><office:body><office:text>` + prefix
	suffix += "</office:text></office:body></office:document-content>"
	body, _ := repeated(prefix, unit, count, suffix)
	size := uint64(len(prefix) + len(unit)*count + len(suffix))
	return officeZip(map[string]string{"mimetype": "application/vnd.oasis.opendocument.text"}, "content.xml", body, size)
}

// zlibStream is a PDF Flate stream object of prefix, unit count times and
// suffix, with its checksum: a reader inflates it whole.
func zlibStream(prefix, unit string, count int, suffix string) string {
	body, sum := repeated(prefix, unit, count, suffix)
	var z bytes.Buffer
	z.Write([]byte{0x78, 0xda})
	z.Write(body)
	z.Write([]byte{0x03, 0x00})
	binary.Write(&z, binary.BigEndian, sum)
	return fmt.Sprintf("<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream", z.Len(), z.String())
}

// TextOps is a PDF of pages pages, each drawing size bytes of "(a) Tj "
// text operators (31 MiB is under the 32 MiB a stream that braid's reader
// inflates, and 48 KB of file); the pages share one Helvetica font and,
// when shared, one content stream.
func TextOps(pages, size int, shared bool) []byte {
	const unit = "(a) Tj "
	content := func() string { return zlibStream("BT /F1 12 Tf 72 712 Td ", unit, size/len(unit), " ET") }
	objs := []string{"<< /Type /Catalog /Pages 2 0 R >>", "", "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"}
	var kids []string
	stream := 0
	for range pages {
		if !shared || stream == 0 {
			objs = append(objs, content())
			stream = len(objs)
		}
		objs = append(objs, fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents %d 0 R /Resources << /Font << /F1 3 0 R >> >> >>", stream))
		kids = append(kids, fmt.Sprintf("%d 0 R", len(objs)))
	}
	objs[1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), pages)
	return RawPDF(objs, "")
}

// InflatingPDF is a one-page PDF with a line of text whose second content
// stream inflates to size bytes of spaces, with its checksum (279 MiB is
// a 286 KB file): past braid's reader's 32 MiB a stream.
func InflatingPDF(size int) []byte {
	return RawPDF([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents [4 0 R 6 0 R] /Resources << /Font << /F1 5 0 R >> >> >>",
		Stream("", []byte("BT /F1 12 Tf 72 712 Td (Before the bomb) Tj ET")),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
		zlibStream("", " ", size, ""),
	}, "")
}

// BigPage is a one-page PDF with a line of text on a page w×h points
// large (8000×8000 is 111 inches square: 11,111 pixels at 100 dpi).
func BigPage(w, h int) []byte {
	return RawPDF([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %d %d] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>", w, h),
		Stream("", []byte("BT /F1 12 Tf 72 72 Td (A very large page) Tj ET")),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
	}, "")
}

// FontParagraphs is an HTML page of "<font><p>" repeated n times (833,333
// is 7.5 MB): each <p> closes the last and the parser reopens the open
// <font>s inside the next, so the tree grows by several elements a
// repetition, never deep.
func FontParagraphs(n int) []byte {
	return []byte("<html><body>" + strings.Repeat("<font><p>", n) + "</body></html>")
}

// ManyFonts is a one-page PDF that shows a glyph in each of fonts Type0
// fonts, all with one ToUnicode CMap of entries codes (a ToUnicode of
// 128 Ki codes is 2 MiB, compressed to a few KB): a reader that builds a
// map of each font's CMap holds fonts times it.
func ManyFonts(fonts, entries int) []byte {
	var cmap strings.Builder
	for c := 0; c < entries; c += 100 {
		n := min(100, entries-c)
		fmt.Fprintf(&cmap, "%d beginbfchar\n", n)
		for k := range n {
			fmt.Fprintf(&cmap, "<%04X> <%04X>\n", c+k, 0x4E00+(c+k)%0x5000)
		}
		cmap.WriteString("endbfchar\n")
	}
	var content, res strings.Builder
	content.WriteString("BT 72 700 Td ")
	res.WriteString("<< /Font << ")
	objs := []string{"<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>", "", "",
		FlateStream("", []byte(cmap.String())),
		"<< /Type /Font /Subtype /CIDFontType2 /BaseFont /X /DW 1000 >>"}
	for i := range fonts {
		objs = append(objs, "<< /Type /Font /Subtype /Type0 /BaseFont /X /Encoding /Identity-H /DescendantFonts [6 0 R] /ToUnicode 5 0 R >>")
		fmt.Fprintf(&res, "/F%d %d 0 R ", i, len(objs))
		fmt.Fprintf(&content, "/F%d 12 Tf <%04X> Tj ", i, i%entries)
	}
	content.WriteString("ET")
	res.WriteString(">> >>")
	objs[2] = "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources " + res.String() + " >>"
	objs[3] = Stream("", []byte(content.String()))
	return RawPDF(objs, "")
}
