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
		text    textBudget
		level   int  // heading level of the paragraph being read; 0 for text
		inText  bool // inside <w:t>
		cells   cells
		inCell  bool
		title   string
		depthTb int
	)
	endPara := func() {
		t := para.String()
		para.Reset()
		switch {
		case inCell:
			cells.add(t)
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
	err = decode(ctx, r, func(tok xml.Token) error {
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "t":
				inText = true
			case "tab":
				para.WriteByte('\t')
				return text.take(1)
			case "br", "cr":
				para.WriteByte('\n')
				return text.take(1)
			case "pStyle":
				level = styleLevel(attr(t, "val"))
			case "outlineLvl":
				if n, err := strconv.Atoi(attr(t, "val")); err == nil && n >= 0 && n < 6 && level == 0 {
					level = n + 1
				}
			case "tbl":
				depthTb++
			case "tr":
				cells.reset()
			case "tc":
				if depthTb == 1 {
					inCell = true
					cells.open()
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
					w.text(cells.row())
				}
			case "tbl":
				depthTb--
				w.gap()
			}
		case xml.CharData:
			if inText {
				para.Write(t)
				return text.take(len(t))
			}
		}
		return nil
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
		text   textBudget
		open   int // nesting of <text:p>/<text:h> being read
		level  int
		cells  cells
		inCell int
		title  string
	)
	err = decode(ctx, r, func(tok xml.Token) error {
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
				n = min(max(n, 1), 64)
				para.WriteString(strings.Repeat(" ", n))
				return text.take(n)
			case "tab":
				para.WriteByte('\t')
				return text.take(1)
			case "line-break":
				para.WriteByte('\n')
				return text.take(1)
			case "table-row":
				cells.reset()
			case "table-cell":
				inCell++
				cells.open()
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "h", "p":
				open--
				if open > 0 {
					return nil
				}
				pt := para.String()
				para.Reset()
				switch {
				case inCell > 0:
					cells.add(pt)
				case t.Name.Local == "h":
					if title == "" {
						title = oneLine(pt)
					}
					w.heading(level, pt)
				default:
					w.text(pt)
					w.gap()
				}
			case "table-cell":
				inCell--
			case "table-row":
				w.text(cells.row())
			case "table":
				w.gap()
			}
		case xml.CharData:
			if open > 0 {
				para.Write(t)
				return text.take(len(t))
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return office(w, title)
}

// textBudget counts the bytes of text a document's parser has taken: past
// MaxText it refuses the file, so a run of text (or a flood of tabs and
// spaces) costs at most that, whatever the XML inflates to.
type textBudget int

func (b *textBudget) take(n int) error {
	if *b += textBudget(n); *b > MaxText {
		return fmt.Errorf("%w: over %d MiB of text", ErrOverLimit, MaxText>>20)
	}
	return nil
}

// cells are the cells of the table row being read, each the trimmed text
// of its paragraphs followed by a space.
type cells []*strings.Builder

func (c *cells) reset() { *c = (*c)[:0] }
func (c *cells) open()  { *c = append(*c, &strings.Builder{}) }

// add appends a paragraph's text to the last cell (one opened by open).
func (c cells) add(text string) {
	if len(c) == 0 {
		return
	}
	last := c[len(c)-1]
	last.WriteString(strings.TrimSpace(text))
	last.WriteByte(' ')
}

// row is the row's line: its cells, each on one line, joined by " | ".
func (c cells) row() string {
	parts := make([]string, len(c))
	for i, b := range c {
		parts[i] = oneLine(b.String())
	}
	return strings.Join(parts, " | ")
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
		return &meter{r: &limited{r: rc, left: MaxXML}}, nil
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
// the reader's bound ErrOverLimit, an ended ctx its error, and fn's error
// ends it with that error.
func decode(ctx context.Context, r io.Reader, fn func(xml.Token) error) error {
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
		if err := fn(tok); err != nil {
			return err
		}
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

// meter passes XML through unchanged, refusing it once one tag, comment,
// processing instruction or declaration passes MaxMarkup bytes, or one
// run of character data (CDATA included) passes MaxText: encoding/xml
// holds a whole token at once, and a start tag's attributes as a slice,
// so without it a 60 MiB run or a tag of 12 million attributes costs
// gigabytes in the decoder, within MaxXML. It reads the bytes as the
// decoder will, '>' inside a quoted attribute value included.
type meter struct {
	r     io.Reader
	state meterState
	quote byte    // the quote of the attribute value being read, in a tag
	last  [2]byte // the two bytes before this one in a comment, CDATA or PI
	n     int     // bytes of the current tag or run
}

type meterState uint8

const (
	inText    meterState = iota // character data
	afterLT                     // just past '<'
	afterBang                   // just past "<!"
	inTag                       // a start or end tag, or a <!DOCTYPE ...>
	inComment                   // <!-- ... -->
	inCDATA                     // <![CDATA[ ... ]]>
	inPI                        // <? ... ?>
)

func (m *meter) Read(p []byte) (int, error) {
	n, err := m.r.Read(p)
	for _, c := range p[:n] {
		if e := m.step(c); e != nil {
			return 0, e
		}
	}
	return n, err
}

// step reads one byte.
func (m *meter) step(c byte) error {
	m.n++
	switch m.state {
	case inText:
		if c == '<' {
			m.state, m.n = afterLT, 1
		} else if m.n > MaxText {
			return fmt.Errorf("%w: a run of over %d MiB of text", ErrOverLimit, MaxText>>20)
		}
		return nil
	case afterLT:
		switch c {
		case '!':
			m.state = afterBang
		case '?':
			m.state, m.last = inPI, [2]byte{}
		default:
			m.state, m.quote = inTag, 0
			return m.step2(c)
		}
	case afterBang:
		switch c {
		case '-':
			m.state, m.last = inComment, [2]byte{} // "<!-": the decoder wants a second '-'
		case '[':
			m.state, m.last, m.n = inCDATA, [2]byte{}, 0 // its content is text
		default:
			m.state, m.quote = inTag, 0
			return m.step2(c)
		}
	case inTag:
		return m.step2(c)
	case inComment, inCDATA, inPI:
		end := c == '>' && (m.state == inComment && m.last == [2]byte{'-', '-'} ||
			m.state == inCDATA && m.last == [2]byte{']', ']'} || m.state == inPI && m.last[1] == '?')
		m.last = [2]byte{m.last[1], c}
		if end {
			m.state, m.n = inText, 0
			return nil
		}
	}
	if m.state == inCDATA {
		if m.n > MaxText {
			return fmt.Errorf("%w: a run of over %d MiB of text", ErrOverLimit, MaxText>>20)
		}
		return nil
	}
	if m.n > MaxMarkup {
		return fmt.Errorf("%w: an XML tag, comment or declaration of over %d KiB", ErrOverLimit, MaxMarkup>>10)
	}
	return nil
}

// step2 reads one byte of a tag: it ends at a '>' outside quotes.
func (m *meter) step2(c byte) error {
	switch {
	case m.quote != 0:
		if c == m.quote {
			m.quote = 0
		}
	case c == '"' || c == '\'':
		m.quote = c
	case c == '>':
		m.state, m.n = inText, 0
		return nil
	}
	if m.n > MaxMarkup {
		return fmt.Errorf("%w: an XML tag, comment or declaration of over %d KiB", ErrOverLimit, MaxMarkup>>10)
	}
	return nil
}
