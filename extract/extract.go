package extract

import (
	"bytes"
	"context"
	"errors"
	"path"
	"strings"
	"time"
)

// Errors a file can be refused with; each is counted by ingest as a reason
// a file was skipped.
var (
	// ErrEncrypted means a PDF needs a password to open.
	ErrEncrypted = errors.New("extract: encrypted")
	// ErrNoText means a file holds no text to index, such as a PDF of
	// scanned pages without a text layer.
	ErrNoText = errors.New("extract: no text layer")
	// ErrDamaged means a file is not a valid file of its format (truncated,
	// corrupt).
	ErrDamaged = errors.New("extract: damaged")
	// ErrOverLimit means reading a file went past a bound: its time, the
	// PDF engine's memory, its page count, its decompressed size or the
	// nesting of its HTML.
	ErrOverLimit = errors.New("extract: over a limit")
)

// Bounds on the formats.
const (
	// MaxXML is the most bytes of XML read from a DOCX or ODT archive
	// (decompressed), and the most entries such an archive may list.
	MaxXML     = 64 << 20
	MaxEntries = 10_000
	// MaxText is the most text one document may give, as much as the
	// largest note braid indexes: what is made of the text downstream
	// (chunks, the lexical index) costs what a note's does.
	MaxText = 8 << 20
	// MaxMarkup is the most bytes of one XML tag, comment or declaration
	// in a DOCX or ODT (a tag holding millions of attributes is refused
	// before the decoder makes a slice of them).
	MaxMarkup = 64 << 10
	// MaxDepth is the deepest nesting of HTML elements converted, and
	// MaxNodes the most nodes (elements, texts, comments) of its tree.
	MaxDepth = 512
	MaxNodes = 500_000
	// MaxPDFMemory is the memory one PDF engine instance may use.
	MaxPDFMemory = 192 << 20
)

// Options bound the PDF readers. The zero value (or nil) means the
// defaults.
type Options struct {
	// Timeout is the most time one PDF may take; zero means 60 seconds.
	Timeout time.Duration
	// MaxPages is the most pages a PDF may have; zero means 10,000.
	MaxPages int
	// CacheDir is where the PDF engine's compiled code is cached; empty
	// means braid/pdfium in the user's cache folder, and "-" no cache.
	CacheDir string
	// OnlyPDFium reads every PDF with PDFium, none with the pure-Go
	// reader that takes the common text PDFs first (to compare them).
	OnlyPDFium bool
	// Budget is the memory File and RenderPDFPage draw from; nil means
	// the process's (DefaultBudget).
	Budget *Budget
}

func (o *Options) budget() *Budget {
	if o == nil || o.Budget == nil {
		return processBudget()
	}
	return o.Budget
}

func (o *Options) timeout() time.Duration {
	if o == nil || o.Timeout <= 0 {
		return 60 * time.Second
	}
	return o.Timeout
}

func (o *Options) maxPages() int {
	if o == nil || o.MaxPages <= 0 {
		return 10_000
	}
	return o.MaxPages
}

// Doc is a file as markdown.
type Doc struct {
	// Title is the document's own title (PDF metadata, HTML <title>, the
	// first heading), "" when it has none.
	Title string
	// Text is the markdown: headings as "#" lines, links as markdown links,
	// other lines escaped so they do not read as markdown syntax.
	Text []byte
	// Pages holds, for a paged format, the 1-based line of Text each page
	// starts on: Pages[0] is page 1's. Nil for formats without pages.
	Pages []int
}

// Page returns the 1-based page that line (1-based) of Text is on, or 0
// for a document without pages.
func (d *Doc) Page(line int) int { return PageOf(d.Pages, line) }

// PageOf returns the 1-based page whose lines hold line, given the start
// line of each page (Doc.Pages), or 0 when pages is empty.
func PageOf(pages []int, line int) int {
	p := 0
	for i, start := range pages {
		if start > line {
			break
		}
		p = i + 1
	}
	if p == 0 && len(pages) > 0 {
		return 1
	}
	return p
}

// Format names the format File reads a file as, by its extension: "pdf",
// "html", "docx" or "odt"; "" for any other file.
func Format(name string) string {
	switch strings.ToLower(path.Ext(name)) {
	case ".pdf":
		return "pdf"
	case ".html", ".htm", ".xhtml":
		return "html"
	case ".docx":
		return "docx"
	case ".odt":
		return "odt"
	}
	return ""
}

// File extracts a file of a format Format names; name is its path (only
// the extension is used). It first reserves from opt's Budget what the
// file may cost (see Budget), waiting for it in turn; a file that may
// cost more than the whole budget gives ErrOverBudget.
func File(ctx context.Context, name string, data []byte, opt *Options) (*Doc, error) {
	size := int64(len(data))
	switch Format(name) {
	case "pdf":
		r, err := opt.budget().reserve(ctx, size+pdfStart, size+pdfMost)
		if err != nil {
			return nil, err
		}
		defer r.release()
		return readPDF(ctx, data, opt, r)
	case "html":
		nodes := htmlNodes(data)
		if nodes > MaxNodes {
			return htmlDoc(data, nodes) // refused, with why
		}
		n := 3*size + int64(nodes)*htmlNodeCost
		r, err := opt.budget().reserve(ctx, n, n)
		if err != nil {
			return nil, err
		}
		defer r.release()
		return htmlDoc(data, nodes)
	case "docx", "odt":
		r, err := opt.budget().reserve(ctx, size+officeCost, size+officeCost)
		if err != nil {
			return nil, err
		}
		defer r.release()
		if Format(name) == "docx" {
			return DOCX(ctx, data)
		}
		return ODT(ctx, data)
	}
	return nil, errors.New("extract: " + path.Ext(name) + " is not a format braid extracts (pdf, html, docx, odt)")
}

// What a file may cost to extract, besides its own bytes, as File
// reserves it. Measured on the hostile files of internal/formattest, each
// made to cost the most its format's bounds allow (peak Go heap, the PDF
// engine's memory, and the text made):
const (
	// officeCost: a DOCX or ODT holds at most MaxText of text, twice
	// (the paragraph and the markdown), and a token of at most MaxText
	// (or MaxMarkup) in the XML decoder: 21 MiB for a 60 MiB run.
	officeCost = 6 * MaxText
	// htmlNodeCost: each node of an HTML page's tree, and the
	// conversion's own for it: 243 bytes a node for "<font><p>"
	// repeated, 296 for a page of paragraphs and links.
	htmlNodeCost = 400
	// pdfStart is what a PDF reserves to start with, enough for the
	// pure-Go reader on common files; it grows as the reader decodes
	// streams and gathers glyphs, up to pdfMost: the engine's memory
	// and the text, which cover the pure-Go reader's bounds as well (a
	// page's content of 32 MiB, twice, and 128 Ki glyphs: 126 MiB).
	pdfStart = 32 << 20
	pdfMost  = MaxPDFMemory + 2*MaxText
)

// writer builds a Doc's markdown a line at a time, escaping text lines
// that markdown would read as syntax.
type writer struct {
	b     bytes.Buffer
	lines int  // lines written
	blank bool // the last line written was blank (or none was)
}

func newWriter() *writer { return &writer{blank: true} }

// heading writes a heading line of level 1 to 6, with blank lines around.
func (w *writer) heading(level int, text string) {
	text = oneLine(text)
	if text == "" {
		return
	}
	level = min(max(level, 1), 6)
	w.gap()
	w.line(strings.Repeat("#", level) + " " + text)
	w.gap()
}

// text writes lines of plain text, escaped.
func (w *writer) text(s string) {
	for _, l := range strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n") {
		l = strings.TrimRight(strings.ReplaceAll(l, "\r", ""), " \t\f\v\u00a0")
		if strings.TrimSpace(l) == "" {
			w.gap()
			continue
		}
		w.line(escape(l))
	}
}

// gap ends a paragraph: one blank line, never two.
func (w *writer) gap() {
	if !w.blank {
		w.line("")
	}
}

func (w *writer) line(l string) {
	w.b.WriteString(l)
	w.b.WriteByte('\n')
	w.lines++
	w.blank = l == ""
}

// next is the line number the next line written will have.
func (w *writer) next() int { return w.lines + 1 }

// escape keeps a line of extracted text from reading as markdown syntax:
// a heading, a code fence, a frontmatter fence, a wikilink or an embed.
func escape(l string) string {
	t := strings.TrimLeft(l, " \t")
	switch {
	case strings.HasPrefix(t, "#"), strings.HasPrefix(t, "```"), strings.HasPrefix(t, "~~~"),
		strings.HasPrefix(t, "---"), strings.HasPrefix(t, ">"), strings.HasPrefix(t, "<"):
		l = `\` + t
	}
	if strings.Contains(l, "[[") {
		l = strings.ReplaceAll(l, "[[", `\[\[`)
	}
	return l
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
