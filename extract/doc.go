// Package extract turns files that are not markdown (PDF, HTML, DOCX,
// ODT) into markdown text, so that ingest parses, chunks and links them as
// it does notes: headings become markdown headings, links markdown links,
// and a paged format says on which line each page starts (Doc.Pages).
//
// There is one function per format (PDF, HTML, DOCX, ODT) and File, which
// picks one by the file's extension (Format).
//
// Every parser is bounded: a file's decompressed XML (MaxXML), an HTML
// page's nesting (MaxDepth), a PDF's pages (Options.MaxPages), the time
// one PDF may take (Options.Timeout) and the memory of the PDF engine
// (MaxPDFMemory). Past a bound the error wraps ErrOverLimit; a file that
// cannot be read wraps ErrDamaged, ErrEncrypted or ErrNoText. None of them
// panics on hostile input.
//
// PDFs are read by PDFium compiled to WebAssembly and run by wazero (pure
// Go, no cgo), through github.com/klippa-app/go-pdfium. The module is
// compiled once per process, a few seconds the first time; the compiled
// code is cached in Options.CacheDir (default: braid/pdfium under the
// user's cache folder), so later processes start in a fraction of a second.
// The engine sees no file system: it gets the PDF's bytes only. An
// instance is used again after a PDF under 1 MiB whose calls all
// succeeded, and dropped otherwise.
//
// Caveat: the PDF engine is shared by the whole process, and the first
// call's CacheDir is the one it uses.
package extract
