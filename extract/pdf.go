package extract

import (
	"context"
	"errors"
	"fmt"
	"image"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/klippa-app/go-pdfium"
	pdfiumerr "github.com/klippa-app/go-pdfium/errors"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
	"github.com/klippa-app/go-pdfium/responses"
	"github.com/klippa-app/go-pdfium/webassembly"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"

	"github.com/braidsearch/braid/extract/pdftext"
)

// maxBookmarks bounds the outline entries read from one PDF, and
// maxBookmarkDepth their nesting: an outline may loop.
const (
	maxBookmarks     = 4096
	maxBookmarkDepth = 6
)

// maxPageChars bounds the characters read from one page, as the pure-Go
// reader bounds its glyphs: PDFium holds an object for each.
const maxPageChars = 1 << 17

// reuseBelow is the largest PDF after which its engine instance is used
// again: WebAssembly memory never shrinks, so an instance that read a
// large file is dropped, as is one whose call failed.
const reuseBelow = 1 << 20

// engine is the process's PDF engine: the compiled PDFium module and its
// pool of instances, one per file being read.
var engine struct {
	once sync.Once
	pool pdfium.Pool
	err  error
}

func pool(opt *Options) (pdfium.Pool, error) {
	engine.once.Do(func() {
		rc := wazero.NewRuntimeConfig().
			WithCoreFeatures(api.CoreFeaturesV2 | experimental.CoreFeaturesExceptionHandling).
			WithCloseOnContextDone(true).
			WithMemoryLimitPages(MaxPDFMemory / 65536)
		dir := ""
		if opt != nil {
			dir = opt.CacheDir
		}
		if dir == "" {
			if c, err := os.UserCacheDir(); err == nil {
				dir = filepath.Join(c, "braid", "pdfium")
			}
		}
		if dir != "" && dir != "-" {
			if err := os.MkdirAll(dir, 0o700); err == nil {
				if cache, err := wazero.NewCompilationCacheWithDir(dir); err == nil {
					rc = rc.WithCompilationCache(cache)
				}
			}
		}
		engine.pool, engine.err = webassembly.Init(webassembly.Config{
			// Instances' memory is mapped, not grown by copying (wasmMemory).
			Context: experimental.WithMemoryAllocator(context.Background(), wasmMemory()),
			MinIdle: 0, MaxIdle: max(runtime.NumCPU(), 2), MaxTotal: max(runtime.NumCPU(), 2), ReuseWorkers: true,
			RuntimeConfig: rc,
			FSConfig:      wazero.NewFSConfig(), // no file system: the engine gets bytes only
			Stdout:        io.Discard, Stderr: io.Discard,
		})
		if engine.err != nil {
			engine.err = fmt.Errorf("extract: start the PDF engine: %w", engine.err)
		}
	})
	return engine.pool, engine.err
}

// session is one PDF open in an engine instance, killed when its context
// ends.
type session struct {
	bad  bool // a call failed: the instance's state is not to be trusted again
	ctx  context.Context
	in   pdfium.Pdfium
	doc  references.FPDF_DOCUMENT
	stop func() bool
}

// open starts an instance for data and opens it, bounded by opt.Timeout.
func open(ctx context.Context, data []byte, opt *Options) (*session, context.CancelFunc, error) {
	p, err := pool(opt)
	if err != nil {
		return nil, nil, err
	}
	// Waiting for a free instance is not the file's time: the bound
	// starts once it has one.
	in, err := p.GetInstanceWithContext(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("extract: no PDF engine instance: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, opt.timeout())
	s := &session{ctx: ctx, in: in}
	// Past the time bound the instance is killed: its call in flight
	// returns an error, and the pool makes a fresh one.
	s.stop = context.AfterFunc(ctx, func() { in.Kill() })
	done := func() {
		if s.stop() {
			if s.bad || len(data) > reuseBelow {
				in.Kill()
			} else {
				in.Close()
			}
		}
		cancel()
	}
	d, err := in.OpenDocument(&requests.OpenDocument{File: &data})
	if err != nil {
		switch {
		case errors.Is(err, pdfiumerr.ErrPassword), errors.Is(err, pdfiumerr.ErrSecurity):
			err = fmt.Errorf("%w: the PDF needs a password; braid indexes PDFs that open without one", ErrEncrypted)
		case ctx.Err() != nil:
			err = bound(ctx, err, opt)
		default:
			err = failure(in, "the file", err)
		}
		s.bad = true
		done()
		return nil, nil, err
	}
	s.doc = d.Document
	return s, func() {
		in.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: s.doc})
		done()
	}, nil
}

// bound turns an error after ctx ended into ErrOverLimit.
func bound(ctx context.Context, err error, opt *Options) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("%w: reading the PDF took over %s", ErrOverLimit, opt.timeout())
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// fail says why a call on an open PDF failed: the time bound, the memory
// bound, or a damaged file. The instance is not used again.
func (s *session) fail(what string, err error, opt *Options) error {
	s.bad = true
	if s.ctx.Err() != nil {
		return bound(s.ctx, err, opt)
	}
	return failure(s.in, what, err)
}

// failure says why the engine failed at what: past its memory bound when
// PDFium stopped (a WebAssembly trap, as when malloc finds no memory) with
// at least a quarter of that bound in use, else a damaged file.
func failure(in pdfium.Pdfium, what string, err error) error {
	msg, _, _ := strings.Cut(err.Error(), "\n") // not the WebAssembly stack trace
	if strings.Contains(msg, "wasm error") && memoryUsed(in) >= MaxPDFMemory/4 {
		return fmt.Errorf("%w: the PDF engine ran out of its %d MiB of memory reading %s (%s)", ErrOverLimit, MaxPDFMemory>>20, what, msg)
	}
	return fmt.Errorf("%w: PDFium could not read %s (%s)", ErrDamaged, what, msg)
}

// memoryUsed is the size of an instance's WebAssembly memory, read through
// go-pdfium's implementation (the exported Module field of an internal
// type); 0 when it cannot be read.
func memoryUsed(in pdfium.Pdfium) (n uint64) {
	defer func() {
		if recover() != nil {
			n = 0
		}
	}()
	m := reflect.Indirect(reflect.ValueOf(in.GetImplementation())).FieldByName("Module")
	mem := m.MethodByName("Memory").Call(nil)[0]
	return mem.MethodByName("Size").Call(nil)[0].Uint()
}

// PDF extracts a PDF's text, page by page in reading order, its outline
// (bookmarks) as headings at the start of the page each points to, and its
// title from its metadata. Doc.Pages says where each page starts; a page
// without text adds no line but keeps its number. A PDF that needs a
// password gives ErrEncrypted, one without any text ErrNoText, one that
// cannot be read ErrDamaged, and one over opt's bounds ErrOverLimit.
//
// The pure-Go reader (package pdftext) reads it when it takes the file;
// PDFium reads the rest, and every PDF when opt.OnlyPDFium is set.
func PDF(ctx context.Context, data []byte, opt *Options) (*Doc, error) {
	return readPDF(ctx, data, opt, nil)
}

// readPDF is PDF, drawing on r (when not nil) as it goes: the pure-Go
// reader grows it, and PDFium takes its most.
func readPDF(ctx context.Context, data []byte, opt *Options, r *reservation) (*Doc, error) {
	if opt == nil || !opt.OnlyPDFium {
		d, err := fastPDF(ctx, data, opt, r)
		if !errors.Is(err, pdftext.ErrUnsupported) || ctx.Err() != nil {
			return d, err
		}
	}
	if r != nil {
		held := r.n
		if err := r.need(r.most); err != nil {
			return nil, err
		}
		if held > int64(len(data))+pdfStart {
			// The pure-Go reader decoded tens of megabytes before it
			// gave up: hand them back to the system before PDFium's
			// memory (mapped, outside the Go heap) is added to them.
			debug.FreeOSMemory()
		}
	}
	return pdfiumPDF(ctx, data, opt)
}

// fastPDF reads a PDF with the pure-Go reader, within opt's time bound;
// an error wrapping pdftext.ErrUnsupported means PDFium should read it.
func fastPDF(ctx context.Context, data []byte, opt *Options, r *reservation) (*Doc, error) {
	tctx, cancel := context.WithTimeout(ctx, opt.timeout())
	defer cancel()
	lim := pdftext.Limits{MaxPages: opt.maxPages(), MaxOutline: maxBookmarks, MaxText: MaxText}
	var grew error // why the reservation could not grow
	if r != nil {
		lim.Grow = func(n int64) error {
			if err := r.need(int64(len(data)) + max(pdfStart, n)); err != nil {
				grew = err
				return err
			}
			return nil
		}
	}
	p, err := pdftext.Read(tctx, data, lim)
	if grew != nil {
		return nil, grew
	}
	if tctx.Err() != nil {
		return nil, bound(tctx, err, opt)
	}
	if errors.Is(err, pdftext.ErrOverLimit) {
		return nil, fmt.Errorf("%w: %v", ErrOverLimit, err)
	}
	if err != nil {
		return nil, err
	}
	heads := make([][]heading, len(p.Pages))
	for _, e := range p.Outline {
		if depth := e.Level + 1; depth <= maxBookmarkDepth && e.Page >= 0 && e.Page < len(p.Pages) {
			heads[e.Page] = append(heads[e.Page], heading{depth, e.Title})
		}
	}
	return pdfDoc(p.Title, heads, func(i int) (string, error) { return p.Pages[i], nil })
}

// pdfiumPDF reads a PDF with PDFium.
func pdfiumPDF(ctx context.Context, data []byte, opt *Options) (*Doc, error) {
	s, closeDoc, err := open(ctx, data, opt)
	if err != nil {
		return nil, err
	}
	defer closeDoc()
	in := s.in
	n, err := in.FPDF_GetPageCount(&requests.FPDF_GetPageCount{Document: s.doc})
	if err != nil {
		return nil, s.fail("its page count", err, opt)
	}
	if n.PageCount > opt.maxPages() {
		return nil, fmt.Errorf("%w: %d pages, over the %d-page limit", ErrOverLimit, n.PageCount, opt.maxPages())
	}
	if n.PageCount == 0 {
		return nil, fmt.Errorf("%w: the PDF has no pages", ErrNoText)
	}
	heads := s.outline(n.PageCount)
	title := ""
	if t, err := in.FPDF_GetMetaText(&requests.FPDF_GetMetaText{Document: s.doc, Tag: "Title"}); err == nil {
		title = t.Value
	}
	return pdfDoc(title, heads, func(i int) (string, error) {
		if err := s.ctx.Err(); err != nil {
			return "", bound(s.ctx, err, opt)
		}
		text, err := s.pageText(i)
		if errors.Is(err, ErrOverLimit) {
			return "", err
		}
		if err != nil {
			return "", s.fail(fmt.Sprintf("page %d", i+1), err, opt)
		}
		return text, nil
	})
}

// pdfDoc writes a PDF's pages as markdown, as both readers give them: its
// title, the outline's headings by page (one slice a page) and each
// page's text.
func pdfDoc(title string, heads [][]heading, pageText func(i int) (string, error)) (*Doc, error) {
	d := &Doc{Title: oneLine(title), Pages: make([]int, len(heads))}
	w := newWriter()
	chars := 0
	var taken textBudget
	for i := range heads {
		text, err := pageText(i)
		if err != nil {
			return nil, err
		}
		if err := taken.take(len(text)); err != nil {
			return nil, fmt.Errorf("%w by page %d", err, i+1)
		}
		w.gap()
		d.Pages[i] = w.next()
		for _, h := range heads[i] {
			w.heading(h.level, h.text)
		}
		// Both readers mark a word broken by a hyphen at a line's end
		// with U+FFFE (PDFium's soft hyphen): the word is joined, as it
		// was written before the line broke it.
		text = strings.ReplaceAll(text, "\uFFFE", "")
		chars += len(strings.TrimSpace(text))
		w.text(text)
	}
	if chars == 0 {
		return nil, fmt.Errorf("%w: none of its %d pages has text (scanned pages need OCR first)", ErrNoText, len(heads))
	}
	if d.Title == "" {
		for _, hs := range heads {
			if len(hs) > 0 {
				d.Title = oneLine(hs[0].text)
				break
			}
		}
	}
	d.Text = w.b.Bytes()
	return d, nil
}

// pageText is the text of page i (0-based), in PDFium's reading order.
func (s *session) pageText(i int) (string, error) {
	in := s.in
	pg, err := in.FPDF_LoadPage(&requests.FPDF_LoadPage{Document: s.doc, Index: i})
	if err != nil {
		return "", err
	}
	defer in.FPDF_ClosePage(&requests.FPDF_ClosePage{Page: pg.Page})
	tp, err := in.FPDFText_LoadPage(&requests.FPDFText_LoadPage{Page: requests.Page{ByReference: &pg.Page}})
	if err != nil {
		return "", err
	}
	defer in.FPDFText_ClosePage(&requests.FPDFText_ClosePage{TextPage: tp.TextPage})
	c, err := in.FPDFText_CountChars(&requests.FPDFText_CountChars{TextPage: tp.TextPage})
	if err != nil || c.Count <= 0 {
		return "", err
	}
	if c.Count > maxPageChars {
		return "", fmt.Errorf("%w: page %d shows %d characters, over the %d limit", ErrOverLimit, i+1, c.Count, maxPageChars)
	}
	r, err := in.FPDFText_GetText(&requests.FPDFText_GetText{TextPage: tp.TextPage, StartIndex: 0, Count: c.Count})
	if err != nil {
		return "", err
	}
	return strings.ReplaceAll(r.Text, "\x00", ""), nil
}

type heading struct {
	level int
	text  string
}

// outline reads the bookmarks as headings by the page (0-based) they
// point to, at most maxBookmarks of them and maxBookmarkDepth deep;
// bookmarks without a page in the document are left out. (go-pdfium's
// FPDFBookmark_GetDest calls the wrong PDFium function in v1.21, so the
// tree comes from GetBookmarks; a looping outline is cut by the time
// bound.)
func (s *session) outline(pages int) [][]heading {
	out := make([][]heading, pages)
	if !s.outlineBounded() {
		return out // a looping or huge outline: the pages' text is enough
	}
	r, err := s.in.GetBookmarks(&requests.GetBookmarks{Document: s.doc})
	if err != nil {
		s.bad = true
		return out
	}
	count := 0
	var walk func(bs []responses.GetBookmarksBookmark, depth int)
	walk = func(bs []responses.GetBookmarksBookmark, depth int) {
		if depth > maxBookmarkDepth {
			return
		}
		for _, b := range bs {
			if count++; count > maxBookmarks {
				return
			}
			if b.DestInfo != nil && b.DestInfo.PageIndex >= 0 && b.DestInfo.PageIndex < pages {
				out[b.DestInfo.PageIndex] = append(out[b.DestInfo.PageIndex], heading{depth, b.Title})
			}
			walk(b.Children, depth+1)
		}
	}
	walk(r.Bookmarks, 1)
	return out
}

// outlineBounded walks the outline without recursion and reports whether
// it ends within maxBookmarks entries: GetBookmarks recurses without a
// bound, and an outline whose bookmark is its own child or sibling would
// never end.
func (s *session) outlineBounded() bool {
	in := s.in
	first, err := in.FPDFBookmark_GetFirstChild(&requests.FPDFBookmark_GetFirstChild{Document: s.doc})
	if err != nil {
		return false
	}
	var stack []references.FPDF_BOOKMARK
	if first.Bookmark != nil {
		stack = append(stack, *first.Bookmark)
	}
	for n := 0; len(stack) > 0; n++ {
		if n >= maxBookmarks || s.ctx.Err() != nil {
			return false
		}
		b := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if next, err := in.FPDFBookmark_GetNextSibling(&requests.FPDFBookmark_GetNextSibling{Document: s.doc, Bookmark: b}); err == nil && next.Bookmark != nil {
			stack = append(stack, *next.Bookmark)
		}
		if child, err := in.FPDFBookmark_GetFirstChild(&requests.FPDFBookmark_GetFirstChild{Document: s.doc, Bookmark: &b}); err == nil && child.Bookmark != nil {
			stack = append(stack, *child.Bookmark)
		}
	}
	return true
}

// MaxPixels is the most pixels a page is rendered in: a larger page (at
// the dpi asked) is rendered smaller, to fit. 16 MP of RGBA is 64 MiB,
// held twice (in the engine, and copied out of it).
const MaxPixels = 16 << 20

// RenderPDFPage renders page (1-based) of a PDF as an image at dpi dots
// per inch, scaled down to fit MaxPixels, bounded as PDF is.
func RenderPDFPage(ctx context.Context, data []byte, page, dpi int, opt *Options) (image.Image, error) {
	most := int64(len(data)) + MaxPDFMemory + 4*MaxPixels // the engine, and the image copied out of it
	res, err := opt.budget().reserve(ctx, most, most)
	if err != nil {
		return nil, err
	}
	defer res.release()
	s, closeDoc, err := open(ctx, data, opt)
	if err != nil {
		return nil, err
	}
	defer closeDoc()
	n, err := s.in.FPDF_GetPageCount(&requests.FPDF_GetPageCount{Document: s.doc})
	if err != nil {
		return nil, s.fail("its page count", err, opt)
	}
	if page < 1 || page > n.PageCount {
		return nil, fmt.Errorf("extract: page %d out of range, the PDF has %d pages", page, n.PageCount)
	}
	pg := requests.Page{ByIndex: &requests.PageByIndex{Document: s.doc, Index: page - 1}}
	size, err := s.in.GetPageSizeInPixels(&requests.GetPageSizeInPixels{Page: pg, DPI: dpi})
	if err != nil {
		return nil, s.fail(fmt.Sprintf("page %d", page), err, opt)
	}
	var r *responses.RenderPageInDPI
	if w, h := fit(size.Width, size.Height, MaxPixels); w == size.Width && h == size.Height {
		r, err = s.in.RenderPageInDPI(&requests.RenderPageInDPI{DPI: dpi, Page: pg})
	} else {
		var p *responses.RenderPageInPixels
		if p, err = s.in.RenderPageInPixels(&requests.RenderPageInPixels{Page: pg, Width: w, Height: h}); err == nil {
			r = &responses.RenderPageInDPI{Result: p.Result, CleanupFunc: p.CleanupFunc}
		}
	}
	if err != nil {
		return nil, s.fail(fmt.Sprintf("page %d", page), err, opt)
	}
	defer r.CleanupFunc()
	// The image lives in the instance's memory, which closing frees: copy it.
	img := image.NewRGBA(r.Result.Image.Bounds())
	copy(img.Pix, r.Result.Image.Pix)
	return img, nil
}

// fit scales w×h pixels down, keeping its shape, to at most most pixels;
// a side that would be under a pixel is one, and the other takes the rest.
func fit(w, h, most int) (int, int) {
	if w <= 0 || h <= 0 || int64(w)*int64(h) <= int64(most) {
		return w, h
	}
	scale := math.Sqrt(float64(most) / (float64(w) * float64(h)))
	sw, sh := int(float64(w)*scale), int(float64(h)*scale)
	switch {
	case sh < 1:
		return min(w, most), 1
	case sw < 1:
		return 1, min(h, most)
	}
	return sw, sh
}
