// Package formattest builds the files the format tests read (PDF, DOCX,
// ODT, HTML, PNG) in Go, so no test downloads or commits a binary file.
package formattest

import (
	"archive/zip"
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"strings"

	"github.com/go-pdf/fpdf"
)

// Page is one page of a PDF: an optional outline entry (Bookmark, at
// Level from 0) and lines of text; a page with no lines has no text.
type Page struct {
	Bookmark string
	Level    int
	Lines    []string
	// Table, when set, is drawn as a grid of cells after the lines.
	Table [][]string
}

// PDFOptions change what PDF makes.
type PDFOptions struct {
	Title    string
	Password string // a user password: the PDF is encrypted
	// CP1252 writes the lines and bookmarks in WinAnsi (cp1252), as a
	// program that means its accents does; without it their UTF-8 bytes
	// are written as they are.
	CP1252 bool
}

// PDF makes a PDF of pages.
func PDF(pages []Page, opt PDFOptions) []byte {
	f := fpdf.New("P", "mm", "A4", "")
	if opt.Password != "" {
		f.SetProtection(fpdf.CnProtectPrint, opt.Password, "owner")
	}
	if opt.Title != "" {
		f.SetTitle(opt.Title, true)
	}
	f.SetFont("Helvetica", "", 11)
	tr := func(s string) string { return s }
	if opt.CP1252 {
		tr = f.UnicodeTranslatorFromDescriptor("")
	}
	for _, p := range pages {
		f.AddPage()
		if p.Bookmark != "" {
			f.Bookmark(tr(p.Bookmark), p.Level, -1)
		}
		for _, l := range p.Lines {
			f.MultiCell(0, 6, tr(l), "", "L", false)
		}
		for _, row := range p.Table {
			for _, c := range row {
				f.CellFormat(40, 7, tr(c), "1", 0, "L", false, 0, "")
			}
			f.Ln(-1)
		}
	}
	var b bytes.Buffer
	if err := f.Output(&b); err != nil {
		panic(fmt.Sprintf("formattest: make a PDF: %v", err))
	}
	return b.Bytes()
}

// Paper is a PDF of n pages, each with a bookmark "Section i" and a line
// "This is page i of the paper." where the i-th line of extra, when there
// is one, is added to page i.
func Paper(n int, extra map[int]string) []byte {
	pages := make([]Page, n)
	for i := range pages {
		lines := []string{fmt.Sprintf("This is page %d of the paper.", i+1)}
		if e, ok := extra[i+1]; ok {
			lines = append(lines, e)
		}
		pages[i] = Page{Bookmark: fmt.Sprintf("Section %d", i+1), Lines: lines}
	}
	return PDF(pages, PDFOptions{Title: "The Paper"})
}

// Zip makes a zip archive of files (name to content), in name order given.
func Zip(names []string, files map[string]string) []byte {
	var b bytes.Buffer
	z := zip.NewWriter(&b)
	for _, n := range names {
		w, err := z.Create(n)
		if err != nil {
			panic(err)
		}
		w.Write([]byte(files[n]))
	}
	if err := z.Close(); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// Para is a paragraph of a DOCX or ODT: its style ("Heading1", "Title",
// "" for text) and text.
type Para struct {
	Style, Text string
}

// DOCX makes a Word document of paragraphs and one table (when rows).
func DOCX(paras []Para, rows [][]string) []byte {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>`)
	for _, p := range paras {
		b.WriteString("<w:p>")
		if p.Style != "" {
			fmt.Fprintf(&b, `<w:pPr><w:pStyle w:val="%s"/></w:pPr>`, p.Style)
		}
		fmt.Fprintf(&b, "<w:r><w:t>%s</w:t></w:r></w:p>", xmlText(p.Text))
	}
	if len(rows) > 0 {
		b.WriteString("<w:tbl>")
		for _, r := range rows {
			b.WriteString("<w:tr>")
			for _, c := range r {
				fmt.Fprintf(&b, "<w:tc><w:p><w:r><w:t>%s</w:t></w:r></w:p></w:tc>", xmlText(c))
			}
			b.WriteString("</w:tr>")
		}
		b.WriteString("</w:tbl>")
	}
	b.WriteString("</w:body></w:document>")
	return Zip([]string{"[Content_Types].xml", "word/document.xml"}, map[string]string{
		"[Content_Types].xml": `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>`,
		"word/document.xml":   b.String(),
	})
}

// ODT makes an OpenDocument text of paragraphs (a Style "Heading1" to
// "Heading6" is a heading of that level).
func ODT(paras []Para) []byte {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"><office:body><office:text>`)
	for _, p := range paras {
		if lvl, ok := strings.CutPrefix(p.Style, "Heading"); ok {
			fmt.Fprintf(&b, `<text:h text:outline-level="%s">%s</text:h>`, lvl, xmlText(p.Text))
		} else {
			fmt.Fprintf(&b, `<text:p>%s</text:p>`, xmlText(p.Text))
		}
	}
	b.WriteString("</office:text></office:body></office:document-content>")
	return Zip([]string{"mimetype", "content.xml"}, map[string]string{
		"mimetype":    "application/vnd.oasis.opendocument.text",
		"content.xml": b.String(),
	})
}

func xmlText(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// PNG is a small w×h PNG image.
func PNG(w, h int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.RGBA{uint8(x * 8), uint8(y * 8), 128, 255})
		}
	}
	var b bytes.Buffer
	png.Encode(&b, img)
	return b.Bytes()
}
