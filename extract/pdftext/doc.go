// Package pdftext reads the text of the common text PDFs in pure Go, with
// bounds of its own, and refuses every other file with ErrUnsupported so
// that a fuller reader (PDFium, in package extract) can read it.
//
// Read returns a PDF's title (the document information's /Title), each
// page's text in content-stream order, lines separated by "\n", and its
// outline (bookmarks, with the page each goes to). It takes:
//
//   - cross-reference tables and streams (with PNG predictors), /Prev
//     chains of incremental updates, object streams;
//   - FlateDecode, ASCIIHexDecode and ASCII85Decode streams;
//   - the page tree with inherited resources; content streams and form
//     XObjects; the text operators (BT ET Tf Td TD Tm T* Tj TJ ' " TL Tc
//     Tw Tz Ts) with q, Q and cm; everything else is skipped, inline
//     images included;
//   - simple fonts (Type1, MMType1, TrueType) by their ToUnicode CMap and
//     encoding (WinAnsi, MacRoman, Standard, /Differences by glyph name),
//     and Type0 fonts with Identity-H codes and a ToUnicode CMap.
//
// Its text is meant to be PDFium's (FPDFText_GetText) in words: it starts
// a line and puts a space where PDFium's rules would, spells out the
// ligatures U+FB00 to U+FB06, and joins a word hyphenated at a line's end
// with U+FFFE, as PDFium does (extract.PDF then joins the word).
//
// It refuses, with ErrUnsupported wrapping the reason: encrypted files;
// damaged ones (a wrong offset, a missing object, a page count that does
// not match the page tree); other filters; Type3 fonts, Type0 fonts
// without ToUnicode or with another CMap, and any glyph whose text it
// cannot tell (a symbolic font's code that neither its ToUnicode nor its
// /Differences map, an unknown glyph name); right-to-left text, which
// PDFium reorders; marked content with /ActualText; files without text
// (scans).
//
// Bounds: 2^20 objects, 32 MiB decoded a stream and 256 MiB a file (read
// in pieces joined once), 64 MiB of object streams kept, nesting of 64
// arrays and dictionaries, 64 cross-reference sections, 64 levels of the
// page tree, forms 8 deep, 4 Mi operators and 128 Ki glyphs a page and 64
// Mi operators a file, Limits.MaxPages, Limits.MaxOutline and
// Limits.MaxText; Limits.Grow is told what the read may hold as that
// grows. A page over 128 Ki glyphs, a page's content over 32 MiB decoded
// and text over Limits.MaxText give ErrOverLimit, not ErrUnsupported:
// another reader would hold as much. The page tree, /Prev
// chain, outline, name tree and forms are checked for loops, and the
// context at the start, every page, every 4096 content-stream tokens,
// objects or cross-reference rows, and between inflated blocks (a
// cancelled read returns an error wrapping ErrUnsupported and the
// context's error). Past a bound it refuses
// the file too. It does not panic on hostile input: besides its checks, a
// recover in Read turns a panic (a bug) into ErrUnsupported.
//
// Read keeps no state between calls: it is safe for concurrent use.
package pdftext
