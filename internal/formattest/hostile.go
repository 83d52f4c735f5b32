package formattest

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"context"
	"encoding/binary"
	"fmt"
	"strings"
)

// HugeCount is a one-page PDF whose page tree claims a million pages.
func HugeCount() []byte {
	return RawPDF([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1000000 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>",
		streamObj("", []byte("BT ET")),
	}, "")
}

// deflated is a raw deflate stream of about size bytes of c, made from
// one compressed MiB repeated: cheap to build whatever its size.
func deflated(c byte, size int) []byte {
	const block = 1 << 20
	var first bytes.Buffer
	w, _ := flate.NewWriter(&first, flate.BestCompression)
	w.Write(bytes.Repeat([]byte{c}, block))
	w.Flush() // a non-final block ending on a byte: it can be repeated
	blk := first.Bytes()
	var z bytes.Buffer
	for range max(size/block, 1) {
		z.Write(blk)
	}
	z.Write([]byte{0x03, 0x00}) // an empty final block
	return z.Bytes()
}

// HugeStream is a one-page PDF whose content stream is a flate stream of
// under a MiB that inflates to size bytes. Its checksum is left zero: the
// reader meets the memory bound long before it would check it.
func HugeStream(size int) []byte {
	var z bytes.Buffer
	z.Write([]byte{0x78, 0xda})
	z.Write(deflated(' ', size))
	binary.Write(&z, binary.BigEndian, uint32(0))
	return RawPDF([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>",
		streamObj("/Filter /FlateDecode", z.Bytes()),
	}, "")
}

// LongPage is a one-page PDF whose content stream shows one line of text
// and then holds tokens tokens that draw nothing ("{" and "}", which a
// reader skips): slow to read whatever the per-page checks, and with no
// operator among them to count.
func LongPage(tokens int) []byte {
	content := "BT /F1 12 Tf 72 712 Td (A long page) Tj ET\n" + strings.Repeat("{ } ", tokens/2)
	return RawPDF(onePage(content, ""), "")
}

// CancelAfter is a context that reports itself cancelled from the N-th
// call of its Err on (Calls counts them): the event a test cancels on is
// the parser's own N-th check, so it needs no clock and no sleep. Its Done
// channel never closes, so it suits a parser that polls Err, not one that
// derives contexts from it. It is not safe for concurrent use.
type CancelAfter struct {
	context.Context
	N, Calls int
}

// Err is context.Canceled from the N-th call on.
func (c *CancelAfter) Err() error {
	if c.Calls++; c.Calls >= c.N {
		return context.Canceled
	}
	return nil
}

// ZipBomb is a zip archive whose one file, name, inflates to size bytes
// of XML text; declared is the size its headers claim (size itself for an
// honest header, less for one that lies).
func ZipBomb(name string, size int, declared uint64) []byte {
	var b bytes.Buffer
	z := zip.NewWriter(&b)
	body := deflated('A', size)
	w, err := z.CreateRaw(&zip.FileHeader{Name: name, Method: zip.Deflate, CompressedSize64: uint64(len(body)), UncompressedSize64: declared})
	if err != nil {
		panic(err)
	}
	w.Write(body)
	if err := z.Close(); err != nil {
		panic(err)
	}
	return b.Bytes()
}

func streamObj(dict string, data []byte) string {
	return fmt.Sprintf("<< /Length %d %s >>\nstream\n%s\nendstream", len(data), dict, strings.TrimSuffix(string(data), "\n"))
}

// LoopedOutline is a one-page PDF with text whose outline loops: its
// first bookmark is its own next sibling and its own first child.
func LoopedOutline() []byte {
	return RawPDF([]string{
		"<< /Type /Catalog /Pages 2 0 R /Outlines 5 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 7 0 R >> >> >>",
		streamObj("", []byte("BT /F1 12 Tf 72 700 Td (Looping outline text) Tj ET")),
		"<< /Type /Outlines /First 6 0 R /Last 6 0 R /Count 1 >>",
		"<< /Title (Loop) /Parent 5 0 R /Next 6 0 R /First 6 0 R /Last 6 0 R /Count 1 /Dest [3 0 R /XYZ 0 792 0] >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
	}, "")
}

// HugeObjectStream is a PDF whose page tree lies in an object stream (PDF
// 1.5, with a cross-reference stream) that inflates to about size bytes:
// the reader must inflate it to find the pages.
func HugeObjectStream(size int) []byte {
	pages := "<< /Type /Pages /Kids [3 0 R] /Count 1 >>"
	header := "2 0 "
	var z bytes.Buffer
	z.Write([]byte{0x78, 0xda})
	var pre bytes.Buffer
	w, _ := flate.NewWriter(&pre, flate.BestCompression)
	w.Write([]byte(header + pages + " "))
	w.Flush()
	z.Write(pre.Bytes())
	body := deflated(' ', size)
	z.Write(body) // ends with the final block
	binary.Write(&z, binary.BigEndian, uint32(0))

	var b bytes.Buffer
	b.WriteString("%PDF-1.5\n")
	offs := map[int]int{}
	obj := func(n int, s string) {
		offs[n] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", n, s)
	}
	obj(1, "<< /Type /Catalog /Pages 2 0 R >>")
	obj(3, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>")
	obj(4, fmt.Sprintf("<< /Type /ObjStm /N 1 /First %d /Filter /FlateDecode /Length %d >>\nstream\n%s\nendstream", len(header), z.Len(), z.String()))
	offs[5] = b.Len()
	var x bytes.Buffer
	entry := func(typ byte, a uint32, c uint16) {
		x.WriteByte(typ)
		binary.Write(&x, binary.BigEndian, a)
		binary.Write(&x, binary.BigEndian, c)
	}
	entry(0, 0, 65535)
	entry(1, uint32(offs[1]), 0)
	entry(2, 4, 0) // object 2: the first of object stream 4
	entry(1, uint32(offs[3]), 0)
	entry(1, uint32(offs[4]), 0)
	entry(1, uint32(offs[5]), 0)
	fmt.Fprintf(&b, "5 0 obj\n<< /Type /XRef /Size 6 /W [1 4 2] /Root 1 0 R /Length %d >>\nstream\n%s\nendstream\nendobj\n", x.Len(), x.String())
	fmt.Fprintf(&b, "startxref\n%d\n%%%%EOF\n", offs[5])
	return b.Bytes()
}
