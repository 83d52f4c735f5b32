package formattest

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
)

// RawPDF writes a PDF of objs, numbered from 1 (object 1 the catalog),
// with a classic cross-reference table at correct offsets; trailer adds
// entries to the trailer ("/Info 5 0 R").
func RawPDF(objs []string, trailer string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	offs := make([]int, len(objs))
	for i, o := range objs {
		offs[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, o := range offs {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R %s >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, trailer, xref)
	return b.Bytes()
}

// Update appends an incremental update to a PDF that RawPDF or Update
// made: objs (by number) replace or add objects, and the new section's
// trailer points back to the old one with /Prev.
func Update(base []byte, objs map[int]string, trailer string) []byte {
	prev := bytes.LastIndex(base, []byte("startxref"))
	old, _ := strconv.Atoi(strings.Fields(string(base[prev+len("startxref"):]))[0])
	size := 0
	if i := bytes.LastIndex(base, []byte("/Size ")); i >= 0 {
		size, _ = strconv.Atoi(strings.Fields(string(base[i+6:]))[0])
	}
	b := bytes.NewBuffer(bytes.Clone(base))
	offs := map[int]int{}
	for n := range size + len(objs) + 1 {
		if o, ok := objs[n]; ok {
			offs[n] = b.Len()
			fmt.Fprintf(b, "%d 0 obj\n%s\nendobj\n", n, o)
			size = max(size, n+1)
		}
	}
	xref := b.Len()
	b.WriteString("xref\n")
	for n := range size {
		if o, ok := offs[n]; ok {
			fmt.Fprintf(b, "%d 1\n%010d 00000 n \n", n, o)
		}
	}
	fmt.Fprintf(b, "trailer\n<< /Size %d /Root 1 0 R /Prev %d %s >>\nstartxref\n%d\n%%%%EOF\n", size, old, trailer, xref)
	return b.Bytes()
}

// CompressedPDF writes a PDF 1.5 of objs, numbered from 1 (object 1 the
// catalog): the objects that are not streams go in one Flate object
// stream, and the cross-reference is a Flate stream with a PNG Up
// predictor.
func CompressedPDF(objs []string, trailer string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.5\n%\xe2\xe3\xcf\xd3\n")
	n := len(objs)
	stm, xrefNum := n+1, n+2
	type entry struct{ typ, a, c int }
	entries := make([]entry, n+3)
	entries[0] = entry{0, 0, 65535}
	var head, body bytes.Buffer
	idx := 0
	for i, o := range objs {
		if strings.Contains(o, "stream\n") {
			entries[i+1] = entry{1, b.Len(), 0}
			fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
			continue
		}
		fmt.Fprintf(&head, "%d %d ", i+1, body.Len())
		body.WriteString(o + "\n")
		entries[i+1] = entry{2, stm, idx}
		idx++
	}
	entries[stm] = entry{1, b.Len(), 0}
	data := head.String() + body.String()
	fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", stm, FlateStream(fmt.Sprintf("/Type /ObjStm /N %d /First %d", idx, head.Len()), []byte(data)))
	entries[xrefNum] = entry{1, b.Len(), 0}
	// Rows of 1+4+2 bytes, each preceded by PNG filter type 2 (Up).
	var rows bytes.Buffer
	prev := make([]byte, 7)
	for _, e := range entries {
		row := make([]byte, 7)
		row[0] = byte(e.typ)
		binary.BigEndian.PutUint32(row[1:5], uint32(e.a))
		binary.BigEndian.PutUint16(row[5:7], uint16(e.c))
		rows.WriteByte(2)
		for i := range row {
			rows.WriteByte(row[i] - prev[i])
		}
		prev = row
	}
	fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", xrefNum, FlateStream(fmt.Sprintf("/Type /XRef /Size %d /W [1 4 2] /Root 1 0 R %s /DecodeParms << /Predictor 12 /Columns 7 >>", n+3, trailer), rows.Bytes()))
	fmt.Fprintf(&b, "startxref\n%d\n%%%%EOF\n", entries[xrefNum].a)
	return b.Bytes()
}

// Stream is a stream object of data with dict's entries and its /Length.
func Stream(dict string, data []byte) string { return streamObj(dict, data) }

// FlateStream is a Flate-compressed stream object of data.
func FlateStream(dict string, data []byte) string {
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	w.Write(data)
	w.Close()
	return fmt.Sprintf("<< /Length %d /Filter /FlateDecode %s >>\nstream\n%s\nendstream", z.Len(), dict, z.String())
}
