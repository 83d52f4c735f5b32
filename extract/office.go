package extract

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// DOCX extracts a Word document's text from word/document.xml: paragraphs,
// headings (the Title and Heading 1 to 6 styles, or an outline level) and
// table rows as "a | b | c" lines. Its title is its first heading. A ctx
// that ends stops the read within a few thousand XML tokens, with its error.
func DOCX(ctx context.Context, data []byte) (*Doc, error) {
	r, err := zipXML(data, "word/document.xml")
	if err != nil {
		return nil, err
	}
	w := newWriter()
	var (
		para    strings.Builder
		level   int  // heading level of the paragraph being read; 0 for text
		inText  bool // inside <w:t>
		cells   []string
		inCell  bool
		title   string
		depthTb int
	)
	endPara := func() {
		t := para.String()
		para.Reset()
		switch {
		case inCell:
			cells[len(cells)-1] += strings.TrimSpace(t) + " "
		case level > 0:
			if title == "" {
				title = oneLine(t)
			}
			w.heading(level, t)
		default:
			w.text(t)
			w.gap()
		}
		level = 0
	}
	err = decode(ctx, r, func(tok xml.Token) {
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "t":
				inText = true
			case "tab":
				para.WriteByte('\t')
			case "br", "cr":
				para.WriteByte('\n')
			case "pStyle":
				level = styleLevel(attr(t, "val"))
			case "outlineLvl":
				if n, err := strconv.Atoi(attr(t, "val")); err == nil && n >= 0 && n < 6 && level == 0 {
					level = n + 1
				}
			case "tbl":
				depthTb++
			case "tr":
				cells = cells[:0]
			case "tc":
				if depthTb == 1 {
					inCell = true
					cells = append(cells, "")
				}
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "t":
				inText = false
			case "p":
				endPara()
			case "tc":
				if depthTb == 1 {
					inCell = false
				}
			case "tr":
				if depthTb == 1 {
					for i := range cells {
						cells[i] = oneLine(cells[i])
					}
					w.text(strings.Join(cells, " | "))
				}
			case "tbl":
				depthTb--
				w.gap()
			}
		case xml.CharData:
			if inText {
				para.Write(t)
			}
		}
	})
	if err != nil {
		return nil, err
	}
	return office(w, title)
}

// styleLevel is the heading level a paragraph style names: Title is 1,
// Heading1 to Heading6 (or "heading 1") their number; 0 for others.
func styleLevel(style string) int {
	s := strings.ToLower(strings.ReplaceAll(style, " ", ""))
	if s == "title" {
		return 1
	}
	if n, ok := strings.CutPrefix(s, "heading"); ok {
		if l, err := strconv.Atoi(n); err == nil && l >= 1 {
			return min(l, 6)
		}
	}
	return 0
}

// ODT extracts an OpenDocument text's content.xml: <text:h> headings at
// their outline level, <text:p> paragraphs and table rows as "a | b"
// lines. Its title is its first heading. ctx is as for DOCX.
func ODT(ctx context.Context, data []byte) (*Doc, error) {
	r, err := zipXML(data, "content.xml")
	if err != nil {
		return nil, err
	}
	w := newWriter()
	var (
		para   strings.Builder
		open   int // nesting of <text:p>/<text:h> being read
		level  int
		cells  []string
		inCell int
		title  string
	)
	err = decode(ctx, r, func(tok xml.Token) {
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "h":
				open++
				level = 1
				if n, err := strconv.Atoi(attr(t, "outline-level")); err == nil && n >= 1 {
					level = min(n, 6)
				}
			case "p":
				open++
			case "s":
				n, _ := strconv.Atoi(attr(t, "c"))
				para.WriteString(strings.Repeat(" ", min(max(n, 1), 64)))
			case "tab":
				para.WriteByte('\t')
			case "line-break":
				para.WriteByte('\n')
			case "table-row":
				cells = cells[:0]
			case "table-cell":
				inCell++
				cells = append(cells, "")
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "h", "p":
				open--
				if open > 0 {
					return
				}
				text := para.String()
				para.Reset()
				switch {
				case inCell > 0:
					cells[len(cells)-1] += strings.TrimSpace(text) + " "
				case t.Name.Local == "h":
					if title == "" {
						title = oneLine(text)
					}
					w.heading(level, text)
				default:
					w.text(text)
					w.gap()
				}
			case "table-cell":
				inCell--
			case "table-row":
				for i := range cells {
					cells[i] = oneLine(cells[i])
				}
				w.text(strings.Join(cells, " | "))
			case "table":
				w.gap()
			}
		case xml.CharData:
			if open > 0 {
				para.Write(t)
			}
		}
	})
	if err != nil {
		return nil, err
	}
	return office(w, title)
}

func office(w *writer, title string) (*Doc, error) {
	if len(bytes.TrimSpace(w.b.Bytes())) == 0 {
		return nil, fmt.Errorf("%w: the document has no text", ErrNoText)
	}
	return &Doc{Title: title, Text: w.b.Bytes()}, nil
}

// zipXML opens the archive member name, its reading bounded to MaxXML
// bytes (a zip bomb stops there with ErrOverLimit).
func zipXML(data []byte, name string) (io.Reader, error) {
	z, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("%w: not a readable zip archive (%v)", ErrDamaged, err)
	}
	if len(z.File) > MaxEntries {
		return nil, fmt.Errorf("%w: the archive lists %d files, over the %d limit", ErrOverLimit, len(z.File), MaxEntries)
	}
	for _, f := range z.File {
		if f.Name != name {
			continue
		}
		if f.UncompressedSize64 > MaxXML {
			return nil, fmt.Errorf("%w: %s is %d MiB once decompressed, over the %d MiB limit", ErrOverLimit, name, f.UncompressedSize64>>20, MaxXML>>20)
		}
		rc, err := f.Open()
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrDamaged, name, err)
		}
		return &limited{r: rc, left: MaxXML}, nil
	}
	return nil, fmt.Errorf("%w: the archive has no %s", ErrDamaged, name)
}

// limited reads at most left bytes, then fails with ErrOverLimit.
type limited struct {
	r    io.Reader
	left int64
}

func (l *limited) Read(p []byte) (int, error) {
	if l.left <= 0 {
		return 0, fmt.Errorf("%w: over %d MiB of XML once decompressed", ErrOverLimit, MaxXML>>20)
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	return n, err
}

// checkTokens is how many XML tokens decode reads between checks of its
// context.
const checkTokens = 4096

// decode hands each token of r to fn; a broken document gives ErrDamaged,
// the reader's bound ErrOverLimit, an ended ctx its error.
func decode(ctx context.Context, r io.Reader, fn func(xml.Token)) error {
	d := xml.NewDecoder(r)
	d.Strict = false
	for n := 0; ; n++ {
		if n%checkTokens == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		tok, err := d.RawToken()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if errors.Is(err, ErrOverLimit) {
			return err
		}
		if err != nil {
			return fmt.Errorf("%w: broken XML (%v)", ErrDamaged, err)
		}
		fn(tok)
	}
}

func attr(t xml.StartElement, local string) string {
	for _, a := range t.Attr {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}
