package pdftext

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"unicode/utf16"
	"unicode/utf8"
)

// ErrUnsupported means Read does not take the file: it is damaged,
// encrypted, over a bound, or uses something this reader does not
// implement (the error says what). Another reader should read it.
var ErrUnsupported = errors.New("pdftext: unsupported")

// ErrOverLimit means the file is past a bound that another reader would
// meet as well, at a greater cost: a page showing over 128 Ki glyphs, a
// page's content over 32 MiB decoded, or over Limits.MaxText of text. It
// does not wrap ErrUnsupported: the file is refused, not handed on.
var ErrOverLimit = errors.New("pdftext: over a limit")

// Bounds on what Read takes from one file; past any of them it returns
// ErrUnsupported.
const (
	maxObjects      = 1 << 20  // objects numbered or parsed
	maxStreamBytes  = 32 << 20 // one stream decoded
	maxTotalBytes   = 256 << 20
	maxNesting      = 64       // arrays and dictionaries in one another
	maxXrefSections = 64       // cross-reference sections along /Prev
	maxTreeDepth    = 64       // page tree and name tree levels
	maxFormDepth    = 8        // form XObjects drawn inside one another
	maxOps          = 4 << 20  // operators on one page
	maxFileOps      = 64 << 20 // and in the whole file
	maxGlyphs       = 1 << 17  // glyphs on one page (about 30 MB of them and their text objects held)
	maxHeldBytes    = 64 << 20 // object streams decoded and kept
	maxOperands     = 4096
	maxStack        = 64 // q without Q
	maxNames        = 1 << 16
	maxFontEntries  = 1 << 19 // ToUnicode and width entries of all the fonts loaded
	fontEntryCost   = 160     // bytes one of them holds (a map entry and its text)
	checkEvery      = 4096    // steps (tokens, objects, table rows) between checks of the context
)

// Limits are the bounds a caller sets; the zero value means the defaults.
type Limits struct {
	// MaxPages is the most pages read; zero means 10,000.
	MaxPages int
	// MaxOutline is the most outline entries read; an outline with more,
	// or one that loops, is left out whole (Doc.Outline nil). Zero means
	// 4096.
	MaxOutline int
	// MaxText is the most bytes of text read from the file's pages; past
	// it Read gives ErrOverLimit. Zero means no bound.
	MaxText int
	// Grow, when set, is told how much memory the read may hold at once
	// each time that grows (by a MiB or more): the object streams and
	// fonts kept, the largest stream decoded, the glyphs of the fullest
	// page and the text so far. An error from it ends the read with that error.
	Grow func(bytes int64) error
}

// Doc is what Read takes from a PDF.
type Doc struct {
	// Title is the document information's /Title, "" when none.
	Title string
	// Pages holds each page's text, its lines separated by "\n".
	Pages []string
	// Outline is the outline (bookmarks) in order, parents before their
	// children.
	Outline []Entry
}

// Entry is an outline entry.
type Entry struct {
	Level int    // 0 for a top-level entry
	Title string // with control characters as spaces
	Page  int    // the 0-based page it goes to, -1 when none
}

// reader is one file being read.
type reader struct {
	ctx         context.Context
	data        []byte
	lim         Limits
	xref        []xrefEntry
	trailer     dict
	cache       map[int]any
	loading     map[int]bool
	objStms     map[int]*objStm
	parsed      int
	ops         int // content stream operators run
	steps       int // work done, counted by tick
	inflated    int64
	held        int64 // bytes of the object streams kept decoded
	fontBytes   int64 // bytes the fonts' maps hold
	fontEntries int   // ToUnicode and width entries of the fonts loaded
	biggest     int64 // the most bytes one decoding has held (its pieces and their join)
	glyphs      int   // the most glyphs a page has shown
	text        int64 // bytes of the pages' text so far
	told        int64 // what Grow was told last
	zr          io.ReadCloser
	fonts       map[int]*font
	pageNum     map[int]int // page object number to index
	names       map[string]any
	root        dict
}

// Read reads the text, outline and title of a PDF. Anything it does not
// take gives an error wrapping ErrUnsupported.
func Read(ctx context.Context, data []byte, lim Limits) (doc *Doc, err error) {
	defer func() {
		if v := recover(); v != nil {
			doc, err = nil, fmt.Errorf("%w: panic: %v", ErrUnsupported, v)
		}
	}()
	if lim.MaxPages <= 0 {
		lim.MaxPages = 10_000
	}
	if lim.MaxOutline <= 0 {
		lim.MaxOutline = 4096
	}
	r := &reader{
		ctx: ctx, data: data, lim: lim,
		cache: map[int]any{}, loading: map[int]bool{}, objStms: map[int]*objStm{},
		fonts: map[int]*font{}, pageNum: map[int]int{},
	}
	doc, err = r.read()
	if errors.Is(err, ErrOverLimit) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnsupported, err)
	}
	return doc, nil
}

func (r *reader) read() (*Doc, error) {
	if err := r.ctx.Err(); err != nil {
		return nil, err
	}
	if i := bytes.Index(r.data[:min(len(r.data), 1024)], []byte("%PDF-")); i < 0 {
		return nil, errors.New("no %PDF- header")
	}
	if err := r.readXref(); err != nil {
		return nil, err
	}
	root, err := r.dictOf(r.trailer[name("Root")])
	if err != nil {
		return nil, fmt.Errorf("document catalog: %w", err)
	}
	if root == nil {
		return nil, errors.New("no document catalog")
	}
	r.root = root
	pages, err := r.pages()
	if err != nil {
		return nil, err
	}
	d := &Doc{Pages: make([]string, len(pages))}
	if info, err := r.dictOf(r.trailer[name("Info")]); err == nil && info != nil {
		if t, err := r.resolve(info[name("Title")]); err == nil {
			if s, ok := t.(string); ok {
				d.Title = textString(s)
			}
		}
	}
	d.Outline, err = r.outline()
	if err != nil {
		return nil, err
	}
	var ip interp
	ip.r = r
	chars, size := 0, 0
	for i, pg := range pages {
		if err := r.ctx.Err(); err != nil {
			return nil, err
		}
		text, err := ip.page(pg)
		if err != nil {
			return nil, fmt.Errorf("page %d: %w", i+1, err)
		}
		if size += len(text); r.lim.MaxText > 0 && size > r.lim.MaxText {
			return nil, fmt.Errorf("%w: over %d MiB of text by page %d", ErrOverLimit, r.lim.MaxText>>20, i+1)
		}
		r.text = int64(size)
		if err := r.grow(); err != nil {
			return nil, err
		}
		d.Pages[i] = text
		for _, c := range []byte(text) {
			if c > ' ' {
				chars++
			}
		}
	}
	if chars == 0 {
		return nil, errors.New("no text")
	}
	return d, nil
}

// dictOf resolves v to a dictionary: nil when v is null.
func (r *reader) dictOf(v any) (dict, error) {
	o, err := r.resolve(v)
	if err != nil {
		return nil, err
	}
	switch o := o.(type) {
	case nil:
		return nil, nil
	case dict:
		return o, nil
	case *stream:
		return o.dict, nil
	}
	return nil, fmt.Errorf("%T where a dictionary should be", o)
}

// page is a leaf of the page tree with its inherited resources.
type page struct {
	dict dict
	res  dict
}

// pages walks the page tree, in order, loop-checked and depth-bounded;
// the root's /Count must agree with what it finds.
func (r *reader) pages() ([]page, error) {
	rootRef := r.root[name("Pages")]
	top, err := r.dictOf(rootRef)
	if err != nil {
		return nil, fmt.Errorf("page tree: %w", err)
	}
	if top == nil {
		return nil, errors.New("no page tree")
	}
	var out []page
	seen := map[int]bool{}
	var walk func(v any, res dict, depth int) error
	walk = func(v any, res dict, depth int) error {
		if depth > maxTreeDepth {
			return fmt.Errorf("page tree over %d levels", maxTreeDepth)
		}
		num := -1
		if rf, ok := v.(ref); ok {
			if seen[rf.num] {
				return errors.New("the page tree loops")
			}
			seen[rf.num] = true
			num = rf.num
		}
		d, err := r.dictOf(v)
		if err != nil {
			return err
		}
		if d == nil {
			return errors.New("a page tree node is missing")
		}
		if rs, ok := d[name("Resources")]; ok {
			if res, err = r.dictOf(rs); err != nil {
				return err
			}
		}
		kids, isNode := d[name("Kids")]
		if t := d[name("Type")]; t == name("Page") || (!isNode && t != name("Pages")) {
			if len(out) >= r.lim.MaxPages {
				return fmt.Errorf("over %d pages", r.lim.MaxPages)
			}
			if num >= 0 {
				r.pageNum[num] = len(out)
			}
			out = append(out, page{dict: d, res: res})
			return nil
		}
		k, err := r.resolve(kids)
		if err != nil {
			return err
		}
		ks, ok := k.(array)
		if !ok {
			return errors.New("bad /Kids")
		}
		for _, kid := range ks {
			if err := walk(kid, res, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(rootRef, nil, 0); err != nil {
		return nil, err
	}
	count, err := r.resolve(top[name("Count")])
	if err != nil {
		return nil, err
	}
	if n, ok := count.(int64); !ok || n != int64(len(out)) {
		return nil, fmt.Errorf("the page tree's /Count %v is not its %d pages", count, len(out))
	}
	if len(out) == 0 {
		return nil, errors.New("no pages")
	}
	return out, nil
}

// outline reads the bookmarks in order, loop-checked; nil when there are
// over lim.MaxOutline or they loop.
func (r *reader) outline() ([]Entry, error) {
	ol, err := r.dictOf(r.root[name("Outlines")])
	if err != nil || ol == nil {
		return nil, nil // PDFium reads no outline either
	}
	var out []Entry
	seen := map[int]bool{}
	type item struct {
		v     any
		level int
	}
	// An explicit stack: an outline may be deep.
	stack := []item{{ol[name("First")], 0}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if it.v == nil {
			continue
		}
		if rf, ok := it.v.(ref); ok {
			if seen[rf.num] {
				return nil, nil // it loops
			}
			seen[rf.num] = true
		}
		if len(out) >= r.lim.MaxOutline {
			return nil, nil
		}
		d, err := r.dictOf(it.v)
		if err != nil {
			return nil, err
		}
		if d == nil {
			continue
		}
		e := Entry{Level: it.level, Page: -1}
		if t, err := r.resolve(d[name("Title")]); err == nil {
			if s, ok := t.(string); ok {
				e.Title = textString(s)
			}
		}
		b := []rune(e.Title)
		for i, c := range b {
			if c <= ' ' {
				b[i] = ' '
			}
		}
		e.Title = string(b)
		if e.Page, err = r.bookmarkPage(d); err != nil {
			return nil, err
		}
		out = append(out, e)
		stack = append(stack, item{d[name("Next")], it.level})
		stack = append(stack, item{d[name("First")], it.level + 1})
	}
	return out, nil
}

// bookmarkPage is the page a bookmark goes to, by its /Dest or its GoTo
// action, as PDFium finds it; -1 for none.
func (r *reader) bookmarkPage(d dict) (int, error) {
	dest, err := r.resolve(d[name("Dest")])
	if err != nil {
		return -1, err
	}
	if dest == nil {
		a, err := r.dictOf(d[name("A")])
		if err != nil || a == nil {
			return -1, err
		}
		switch a[name("S")] {
		case name("GoTo"), name("GoToR"), name("GoToE"):
		default:
			return -1, nil
		}
		if dest, err = r.resolve(a[name("D")]); err != nil {
			return -1, err
		}
	}
	switch k := dest.(type) {
	case name:
		if dest, err = r.namedDest(string(k)); err != nil {
			return -1, err
		}
	case string:
		if dest, err = r.namedDest(k); err != nil {
			return -1, err
		}
	}
	if dd, ok := dest.(dict); ok {
		if dest, err = r.resolve(dd[name("D")]); err != nil {
			return -1, err
		}
	}
	a, ok := dest.(array)
	if !ok || len(a) == 0 {
		return -1, nil
	}
	switch p := a[0].(type) {
	case int64:
		if p < 0 || p > maxObjects {
			return -1, nil
		}
		return int(p), nil
	case ref:
		if i, ok := r.pageNum[p.num]; ok {
			return i, nil
		}
	}
	return -1, nil
}

// namedDest looks a destination up by name: in the /Dests name tree, then
// the catalog's /Dests dictionary.
func (r *reader) namedDest(key string) (any, error) {
	if r.names == nil {
		r.names = map[string]any{}
		if n, err := r.dictOf(r.root[name("Names")]); err != nil {
			return nil, err
		} else if n != nil {
			if err := r.nameTree(n[name("Dests")], 0, map[int]bool{}); err != nil {
				return nil, err
			}
		}
	}
	if v, ok := r.names[key]; ok {
		return r.resolve(v)
	}
	ds, err := r.dictOf(r.root[name("Dests")])
	if err != nil || ds == nil {
		return nil, err
	}
	return r.resolve(ds[name(key)])
}

// nameTree adds a name tree's entries to r.names.
func (r *reader) nameTree(v any, depth int, seen map[int]bool) error {
	if depth > maxTreeDepth {
		return errors.New("name tree too deep")
	}
	if rf, ok := v.(ref); ok {
		if seen[rf.num] {
			return errors.New("the name tree loops")
		}
		seen[rf.num] = true
	}
	d, err := r.dictOf(v)
	if err != nil || d == nil {
		return err
	}
	if ns, err := r.resolve(d[name("Names")]); err != nil {
		return err
	} else if a, ok := ns.(array); ok {
		for i := 0; i+1 < len(a); i += 2 {
			k, err := r.resolve(a[i])
			if err != nil {
				return err
			}
			if s, ok := k.(string); ok {
				if len(r.names) >= maxNames {
					return fmt.Errorf("over %d named destinations", maxNames)
				}
				if _, dup := r.names[s]; !dup {
					r.names[s] = a[i+1]
				}
			}
		}
	}
	kids, err := r.resolve(d[name("Kids")])
	if err != nil {
		return err
	}
	ks, _ := kids.(array)
	for _, k := range ks {
		if err := r.nameTree(k, depth+1, seen); err != nil {
			return err
		}
	}
	return nil
}

// pdfDoc is PDFDocEncoding where it is not Latin-1.
var pdfDoc = map[byte]rune{
	0x18: 0x02D8, 0x19: 0x02C7, 0x1A: 0x02C6, 0x1B: 0x02D9, 0x1C: 0x02DD, 0x1D: 0x02DB, 0x1E: 0x02DA, 0x1F: 0x02DC,
	0x80: 0x2022, 0x81: 0x2020, 0x82: 0x2021, 0x83: 0x2026, 0x84: 0x2014, 0x85: 0x2013, 0x86: 0x0192, 0x87: 0x2044,
	0x88: 0x2039, 0x89: 0x203A, 0x8A: 0x2212, 0x8B: 0x2030, 0x8C: 0x201E, 0x8D: 0x201C, 0x8E: 0x201D, 0x8F: 0x2018,
	0x90: 0x2019, 0x91: 0x201A, 0x92: 0x2122, 0x93: 0xFB01, 0x94: 0xFB02, 0x95: 0x0141, 0x96: 0x0152, 0x97: 0x0160,
	0x98: 0x0178, 0x99: 0x017D, 0x9A: 0x0131, 0x9B: 0x0142, 0x9C: 0x0153, 0x9D: 0x0161, 0x9E: 0x017E, 0x9F: 0, 0xA0: 0x20AC, 0xAD: 0,
}

// textString decodes a PDF text string: UTF-16 with a byte order mark,
// UTF-8 with one, else PDFDocEncoding. NULs are dropped.
func textString(s string) string {
	var b []rune
	switch {
	case len(s) >= 2 && (s[0] == 0xFE && s[1] == 0xFF || s[0] == 0xFF && s[1] == 0xFE):
		be := s[0] == 0xFE
		u := make([]uint16, 0, len(s)/2)
		for i := 2; i+1 < len(s); i += 2 {
			if be {
				u = append(u, uint16(s[i])<<8|uint16(s[i+1]))
			} else {
				u = append(u, uint16(s[i+1])<<8|uint16(s[i]))
			}
		}
		b = utf16.Decode(u)
	case len(s) >= 3 && s[:3] == "\xEF\xBB\xBF" && utf8.ValidString(s[3:]):
		b = []rune(s[3:])
	default:
		b = make([]rune, 0, len(s))
		for i := 0; i < len(s); i++ {
			c := rune(s[i])
			if m, ok := pdfDoc[s[i]]; ok {
				c = m
			}
			b = append(b, c)
		}
	}
	out := b[:0]
	for _, c := range b {
		if c != 0 {
			out = append(out, c)
		}
	}
	return string(out)
}

// glyphCost is what one glyph shown on a page costs until the page ends:
// the glyph, its text object (at most one a glyph), its code and text,
// and the slices' room to grow.
const glyphCost = 512

// grow tells Limits.Grow what the read may hold at once, when that has
// grown by a MiB or more since it was last told.
func (r *reader) grow() error {
	if r.lim.Grow == nil {
		return nil
	}
	n := r.held + r.fontBytes + r.biggest + int64(r.glyphs)*glyphCost + r.text
	if n < r.told+1<<20 {
		return nil
	}
	r.told = n
	return r.lim.Grow(n)
}

// tick counts one step of work (a content-stream token, an object parsed,
// a cross-reference row) and checks the context every checkEvery steps, so
// a cancelled read stops within a few thousand steps wherever it is, not
// only between pages.
func (r *reader) tick() error {
	if r.steps++; r.steps%checkEvery == 0 {
		return r.ctx.Err()
	}
	return nil
}
