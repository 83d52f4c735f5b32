package formattest

import (
	"bytes"
	"encoding/ascii85"
	"encoding/hex"
	"fmt"
	"strings"
)

// onePage is the objects of a PDF with one page drawing content with
// resources res, then more objects numbered from 6: 1 catalog, 2 pages,
// 3 page, 4 content, 5 a Helvetica font (WinAnsi).
func onePage(content, res string, more ...string) []string {
	if res == "" {
		res = "<< /Font << /F1 5 0 R >> >>"
	}
	return append([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources " + res + " >>",
		Stream("", []byte(content)),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
	}, more...)
}

// PDFCorpus is a set of text PDFs, by name, that a reader of text PDFs
// should read as PDFium does: fpdf's (many pages, tables, nested
// bookmarks, WinAnsi punctuation, wrapped lines, a title) and hand-made
// ones for what fpdf does not write (cross-reference and object streams,
// incremental updates, Type0 fonts with ToUnicode, glyph-name encodings,
// kerned TJ arrays, the text operators, forms, inline images, UTF-16
// titles, ASCII filters, named destinations).
func PDFCorpus() map[string][]byte {
	c := map[string][]byte{}
	var pages []Page
	for i := range 30 {
		p := Page{Lines: []string{
			fmt.Sprintf("Page %d: café, naïve, Zürich – “quoted” and ‘single’ quotes, it’s • bulleted; 25 €.", i+1),
			strings.Repeat(fmt.Sprintf("A long line on page %d wraps around the right margin more than once. ", i+1), 6),
		}}
		switch i % 3 {
		case 0:
			p.Bookmark, p.Level = fmt.Sprintf("Chapter %d", i/3+1), 0
		case 1:
			p.Bookmark, p.Level = fmt.Sprintf("Section %d.1 Überblick", i/3+1), 1
		case 2:
			p.Bookmark, p.Level = fmt.Sprintf("Detail %d.1.1", i/3+1), 2
		}
		if i%5 == 0 {
			p.Table = [][]string{{"metric", "value", "note"}, {"recall@10", "0.91", "über"}, {"ndcg", "0.77", "—"}}
		}
		pages = append(pages, p)
	}
	c["fpdf 30 pages"] = PDF(pages, PDFOptions{Title: "Über Retrieval – a Study", CP1252: true})
	c["fpdf utf-8 bytes"] = PDF([]Page{{Bookmark: "Intro", Lines: []string{"Bytes as they come: é ü"}}, {Lines: []string{"x"}}}, PDFOptions{Title: "A Paper"})
	c["fpdf paper"] = Paper(5, map[int]string{3: "The flux capacitor needs 1.21 gigawatts."})

	c["xref stream and object stream"] = CompressedPDF(onePage("BT /F1 12 Tf 72 720 Td (Compressed objects hold this page.) Tj ET", "",
		"<< /Title (Packed) >>"), "/Info 6 0 R")

	base := RawPDF(onePage("BT /F1 12 Tf 72 720 Td (The old words here.) Tj ET", ""), "")
	c["incremental update"] = Update(base, map[int]string{
		4: Stream("", []byte("BT /F1 12 Tf 72 720 Td (The revised words replace them.) Tj ET")),
		6: "<< /Title (Revised) >>",
	}, "/Info 6 0 R")

	cmap := `/CIDInit /ProcSet findresource begin 12 dict begin begincmap
/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def
/CMapName /Adobe-Identity-UCS def /CMapType 2 def
1 begincodespacerange <0000> <FFFF> endcodespacerange
3 beginbfchar <0001> <0048> <0002> <0069> <0003> <0020> endbfchar
2 beginbfrange <000A> <0014> <0061> <0020> <0022> [<00E9> <00FC> <0021>] endbfrange
endcmap CMapName currentdict /CMap defineresource pop end end`
	c["type0 identity-h with tounicode"] = RawPDF(onePage(
		"BT /F2 14 Tf 72 700 Td <0001000200030020000A000B000C00030021000D0022> Tj ET", "<< /Font << /F2 6 0 R >> >>",
		"<< /Type /Font /Subtype /Type0 /BaseFont /Unembedded /Encoding /Identity-H /DescendantFonts [7 0 R] /ToUnicode 8 0 R >>",
		"<< /Type /Font /Subtype /CIDFontType2 /BaseFont /Unembedded /CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> /FontDescriptor 9 0 R /W [1 [722 278 250] 10 20 556 32 [556 556 278]] /DW 1000 /CIDToGIDMap /Identity >>",
		Stream("", []byte(cmap)),
		"<< /Type /FontDescriptor /FontName /Unembedded /Flags 32 /FontBBox [0 -200 1000 900] /ItalicAngle 0 /Ascent 800 /Descent -200 /CapHeight 700 /StemV 80 >>",
	), "")

	c["differences with glyph names"] = RawPDF(onePage(
		`BT /F2 12 Tf 72 700 Td (\001nd the caf\002 \003ok\004 for 5 \005 and \006ne) Tj ET`, "<< /Font << /F2 6 0 R >> >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Times-Roman /Encoding << /Type /Encoding /BaseEncoding /WinAnsiEncoding /Differences [1 /fi /eacute /quotedblleft /quotedblright /uni20AC /ffi.alt /fl] >> >>",
	), "")

	c["tj kerning and gaps"] = RawPDF(onePage(
		"BT /F1 12 Tf 72 700 Td [(Ke) 30 (rn) -20 (ing) -400 (word) -600 (gaps) 120 (and) ( ) (spaces)] TJ ET", ""), "")

	c["text operators"] = RawPDF(onePage(
		"BT /F1 11 Tf 14 TL 72 700 Td (first line) Tj T* (second line) Tj (third line) ' 2 1 (fourth line) \" 0 Tw 0 Tc "+
			"1 0 0 1 300 500 Tm (moved by Tm) Tj 0 -20 TD (down by TD) Tj T* 110 Tz 1 Tc (scaled and spaced) Tj 3 Ts (risen) Tj ET", ""), "")

	c["form xobject"] = RawPDF(onePage(
		"BT /F1 12 Tf 72 720 Td (Before the form.) Tj ET q 1 0 0 1 0 -100 cm /Fm1 Do Q BT /F1 12 Tf 72 500 Td (After the form.) Tj ET",
		"<< /Font << /F1 5 0 R >> /XObject << /Fm1 6 0 R >> >>",
		Stream("/Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >>", []byte("BT /F1 12 Tf 72 720 Td (Inside the form.) Tj ET")),
	), "")

	c["inline image"] = RawPDF(onePage(
		"BT /F1 12 Tf 72 720 Td (Before the image.) Tj ET q 40 0 0 20 72 600 cm BI /W 4 /H 2 /BPC 8 /CS /G ID ET (x)TjE EI Q BT /F1 12 Tf 72 500 Td (After the image.) Tj ET", ""), "")

	c["utf-16 title"] = RawPDF(onePage("BT /F1 12 Tf 72 720 Td (A page under a Unicode title.) Tj ET", "",
		"<< /Title <FEFF0055006E00690063006F006400650020005400690074006C0065002003A9002065E5> >>"), "/Info 6 0 R")

	hexed := hex.EncodeToString([]byte("BT /F1 12 Tf 72 720 Td (Hex encoded content.) Tj ET")) + ">"
	var a85 bytes.Buffer
	e := ascii85.NewEncoder(&a85)
	e.Write([]byte("BT /F1 12 Tf 72 720 Td (Base 85 encoded content.) Tj ET"))
	e.Close()
	a85.WriteString("~>")
	c["ascii filters"] = RawPDF([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R 6 0 R] /Count 2 /Resources << /Font << /F1 5 0 R >> >> >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>",
		Stream("/Filter /ASCIIHexDecode", []byte(hexed)),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents [7 0 R] >>",
		Stream("/Filter [/ASCII85Decode]", a85.Bytes()),
	}, "")

	spacing := []string{
		"BT /F1 12 Tf 72 700 Td [(a) -100 (b) -120 (c) -130 (d) -140 (e) -150 (f) -170 (g) -200 (h) -400 (i)] TJ ET",
		"BT /F2 12 Tf 72 680 Td [(a) -100 (b) -120 (c) -130 (d) -140 (e) -150 (f) -170 (g) -200 (h) -250 (i) -300 (j)] TJ ET",
		"BT /F3 12 Tf 72 660 Td [(a) -100 (b) -120 (c) -130 (d) -140 (e) -150 (f) -170 (g) -200 (h) -250 (i) -300 (j) -350 (k)] TJ ET",
		"BT /F1 12 Tf 1 0 0 1 72 640 Tm (a) Tj 1 0 0 1 79.87 640 Tm (b) Tj 1 0 0 1 88.2 640 Tm (c) Tj 1 0 0 1 96.5 640 Tm (d) Tj 1 0 0 1 105 640 Tm (e) Tj 1 0 0 1 114 640 Tm (f) Tj ET",
		"BT /F1 12 Tf 72 620 Td (base) Tj 5 Ts (sup) Tj 0 Ts (after) Tj -3 Ts (sub) Tj 0 Ts ET",
		"BT /F1 12 Tf 72 600 Td (first line ends here) Tj 0 -9 Td (second is close) Tj 0 -10 Td (third) Tj ET",
		"BT /F1 12 Tf 72 550 Td (state-) Tj 0 -14 Td (of-the-art) Tj 0 -14 Td (x -) Tj 0 -14 Td (y) Tj ET",
		"BT /F1 12 Tf 0 1 -1 0 100 100 Tm (rotated text) Tj ET BT /F1 12 Tf 72 400 Td (normal) Tj ET",
		"BT /F1 12 Tf 72 380 Td (col1a) Tj 0 -14 Td (col1b) Tj 200 14 Td (col2a) Tj 0 -14 Td (col2b) Tj ET",
	}
	c["spacing rules"] = RawPDF(onePage(strings.Join(spacing, "\n"), "<< /Font << /F1 5 0 R /F2 6 0 R /F3 7 0 R >> >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Courier /Encoding /WinAnsiEncoding >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Times-Roman /Encoding /WinAnsiEncoding >>",
	), "")

	layout := []string{
		"BT /F1 12 Tf 300 760 Td (right) Tj -100 0 Td (left) Tj -30 0 Td (less) Tj -10 0 Td (tiny) Tj ET",
		"BT /F1 12 Tf 72 730 Td (over) Tj -20 0 Td (lap) Tj ET",
		"BT /F1 12 Tf 72 700 Td (al) Tj 0 -6 Td (bl) Tj 0 -6 Td (cl) Tj 0 -7 Td (dl) Tj 0 -8 Td (el) Tj 0 -9 Td (fl) Tj 0 -10 Td (gl) Tj ET",
		"BT /F1 12 Tf 72 560 Td (base) Tj 0 -4 Td (low) Tj 0 -3 Td (lower) Tj 0 -8 Td (next) Tj ET",
		"BT /F1 10 Tf 300 500 Td (c2 line1) Tj 0 -12 Td (c2 line2) Tj ET BT /F1 10 Tf 72 500 Td (c1 line1) Tj 0 -12 Td (c1 line2) Tj ET",
		"BT /F1 12 Tf 72 440 Td (Bold) Tj ET BT /F1 12 Tf 72.3 440 Td (Bold) Tj ET BT /F1 12 Tf 72 420 Td (after bold) Tj ET",
		"BT /F1 0 Tf 72 400 Td (zero size) Tj ET BT /F1 12 Tf 72 380 Td (a  double  space, nb\240sp and soft\255hy) Tj ET",
		"BT /F1 12 Tf 72 340 Td (invisible) Tj 3 Tr 0 -20 Td (visible) Tj 0 Tr ET BT /F1 12 Tf 2000 300 Td (off the page) Tj ET",
		"q 0 0 100 100 re W n BT /F1 12 Tf 72 280 Td (clipped away) Tj ET Q BT /F1 12 Tf -1 0 0 1 300 260 Tm (mirrored) Tj ET",
		"BT /F1 12 Tf 72 240 Td (Overlapping) Tj ET q 1 0 0 -1 0 477 cm BT /F1 12 Tf 72 240 Td (Overlapping) Tj ET Q",
		"BT /F1 12 Tf 300 240 Td (Transformations) Tj ET q 1 0 0 -1 0 477 cm BT /F1 12 Tf 300 240 Td (Transformations) Tj ET Q",
		"BT /F1 12 Tf 300 225 Td (Mirrored) Tj ET q 1 0 0 -1 0 451 cm BT /F1 12 Tf 300 225 Td (Mirrored) Tj ET Q",
		"BT /F1 12 Tf 17 210 Td (laborum.) Tj ET BT /F1 12 Tf 17 210 Td (Lorem ipsum) Tj ET",
		"BT /F1 12 Tf 31.19 190 Td (21:AAAAAAAAAAAAAAAAAAAAA) Tj ET BT /F1 12 Tf 201.26 190 Td (21:AAAAAAAAAAAAAAAAAAAAA) Tj ET",
		"BT /F1 12 Tf 31.19 170 Td (22:AAAAAAAAAAAAAAAAAAAAAA) Tj ET BT /F1 12 Tf 201.26 170 Td (22:AAAAAAAAAAAAAAAAAAAAAA) Tj ET",
	}
	c["layout rules"] = RawPDF(onePage(strings.Join(layout, "\n"), ""), "")

	c["named destinations"] = RawPDF([]string{
		"<< /Type /Catalog /Pages 2 0 R /Outlines 7 0 R /Names << /Dests 10 0 R >> /Dests << /third [6 0 R /Fit] >> >>",
		"<< /Type /Pages /Kids [3 0 R 5 0 R 6 0 R] /Count 3 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 12 0 R >> >> >>",
		Stream("", []byte("BT /F1 12 Tf 72 720 Td (Shared content on every page.) Tj ET")),
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 12 0 R >> >> >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 12 0 R >> >> >>",
		"<< /Type /Outlines /First 8 0 R /Last 9 0 R /Count 2 >>",
		"<< /Title (By a name tree) /Parent 7 0 R /Next 9 0 R /First 11 0 R /Last 11 0 R /Dest (sec.two) >>",
		"<< /Title (By a GoTo action) /Parent 7 0 R /Prev 8 0 R /A << /S /GoTo /D /third >> >>",
		"<< /Kids [13 0 R] >>",
		"<< /Title (Child by page number) /Parent 8 0 R /A << /S /GoTo /D [0 /Fit] >> >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
		"<< /Limits [(a) (z)] /Names [(a.one) [3 0 R /Fit] (sec.two) [5 0 R /XYZ 0 792 0]] >>",
	}, "")
	return c
}
