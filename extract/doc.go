// Package extract turns files that are not markdown (PDF, HTML, DOCX,
// ODT) into markdown text, so that ingest parses, chunks and links them as
// it does notes: headings become markdown headings, links markdown links,
// and a paged format says on which line each page starts (Doc.Pages).
//
// There is one function per format (PDF, HTML, DOCX, ODT) and File, which
// picks one by the file's extension (Format).
//
// Every parser is bounded: a file's decompressed XML (MaxXML) and its
// tags (MaxMarkup), the text of any document (MaxText), an HTML page's
// nesting (MaxDepth) and tree (MaxNodes), a PDF's pages
// (Options.MaxPages), the time one PDF may take (Options.Timeout) and the
// memory of the PDF engine (MaxPDFMemory). Past a bound the error wraps
// ErrOverLimit; a file that cannot be read wraps ErrDamaged, ErrEncrypted
// or ErrNoText. None of them panics on hostile input.
//
// The bounds bound memory too: a file costs a small multiple of them,
// whatever it claims. The XML of a DOCX or ODT passes through a meter
// before encoding/xml, which would hold a whole token (a run of text, a
// tag's attributes) at once; an HTML page's tokens are counted before its
// tree is built; the PDF engine's memory is mapped, not a Go slice grown
// by copying. And every extraction in the process draws on one Budget
// (DefaultBudget): File reserves what a file may cost before reading it
// and waits for it when it is not free, so a vault of hostile files costs
// about the budget with any number of workers; a file that could cost
// more than the whole budget gives ErrOverBudget. RenderPDFPage scales a
// page down to MaxPixels. PDF, DOCX and ODT take a context and check it
// inside their token loops (content-stream tokens, objects, inflated
// blocks, XML tokens), not only between pages: a cancelled context stops
// even one huge page or document within a few thousand tokens, and the
// error is the context's (context.Canceled).
//
// PDFs have two readers. The pure-Go one in package pdftext takes the
// common text PDFs: cross-reference tables or streams, object streams,
// incremental updates, Flate (or ASCII) streams, and fonts whose text it
// can tell (simple fonts by ToUnicode or a standard encoding, Type0 fonts
// with Identity-H and ToUnicode). It reads a page in a fraction of a
// millisecond, following PDFium's rules for spaces, line breaks and the
// order of text on a line, so that its words are PDFium's (a test checks
// them page by page on a corpus of PDFs). Everything else it
// refuses, and PDFium reads it as before: encrypted or damaged files,
// scans, Type3 fonts, Type0 fonts without ToUnicode, other filters, a
// glyph it cannot name, and any file past the pure-Go reader's own bounds
// (32 MiB decoded a stream, 256 MiB a file, 2^20 objects, nesting, loops
// in the page tree, /Prev chain, outline and forms: see pdftext). The same
// markdown writer, page and outline bounds, ErrNoText rule and title
// fallback apply to both. Options.OnlyPDFium sends every PDF to PDFium.
//
// PDFium is compiled to WebAssembly and run by wazero (pure
// Go, no cgo), through github.com/klippa-app/go-pdfium. The module is
// compiled once per process, a few seconds the first time; the compiled
// code is cached in Options.CacheDir (default: braid/pdfium under the
// user's cache folder), so later processes start in a fraction of a second.
// The engine sees no file system: it gets the PDF's bytes only. An
// instance is used again after a PDF under 1 MiB whose calls all
// succeeded, and dropped otherwise. Pages are rendered (RenderPDFPage) by
// PDFium only.
//
// Caveats: the PDF engine is shared by the whole process, and the first
// call's CacheDir is the one it uses. The two readers each get
// Options.Timeout, so a file the pure-Go reader gives up on late may take
// up to twice it.
package extract
