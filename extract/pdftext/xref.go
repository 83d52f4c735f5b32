package pdftext

import (
	"bytes"
	"errors"
	"fmt"
)

var errEOF = errors.New("unexpected end of data")

// xrefEntry says where an object is: at an offset of the file (inStm
// false), or index idx of object stream stm.
type xrefEntry struct {
	set   bool
	free  bool
	inStm bool
	off   int // file offset, or the object stream's number
	idx   int // index in the object stream
}

// objStm is a parsed object stream: its decoded bytes and where each of
// its objects starts.
type objStm struct {
	data []byte
	nums []int
	offs []int
}

// readXref reads the cross-reference sections from startxref back along
// /Prev, newest first, so that an object's newest entry wins, and returns
// the newest trailer (with keys missing from it taken from older ones).
func (r *reader) readXref() error {
	tail := r.data[max(0, len(r.data)-2048):]
	i := bytes.LastIndex(tail, []byte("startxref"))
	if i < 0 {
		return errors.New("no startxref")
	}
	p := parser{b: tail, pos: i + len("startxref")}
	p.skip()
	off, ok := parseInt(p.keyword())
	if !ok {
		return errors.New("bad startxref")
	}
	r.trailer = dict{}
	seen := map[int64]bool{}
	for n := 0; ; n++ {
		if n >= maxXrefSections {
			return fmt.Errorf("over %d cross-reference sections", maxXrefSections)
		}
		if off <= 0 || off >= int64(len(r.data)) {
			return fmt.Errorf("cross-reference offset %d outside the file", off)
		}
		if seen[off] {
			return errors.New("the /Prev chain loops")
		}
		seen[off] = true
		t, err := r.section(int(off))
		if err != nil {
			return err
		}
		for k, v := range t {
			if _, ok := r.trailer[k]; !ok {
				r.trailer[k] = v
			}
		}
		// A hybrid file's table names an xref stream for PDF 1.5 readers;
		// its entries come after the table's.
		if xs, ok := t[name("XRefStm")].(int64); ok {
			if seen[xs] {
				return errors.New("the /XRefStm loops")
			}
			seen[xs] = true
			if _, err := r.section(int(xs)); err != nil {
				return err
			}
		}
		prev, ok := t[name("Prev")]
		if !ok {
			break
		}
		if off, ok = prev.(int64); !ok {
			return errors.New("bad /Prev")
		}
	}
	if _, ok := r.trailer[name("Encrypt")]; ok {
		return errors.New("encrypted")
	}
	return nil
}

// section reads one cross-reference table or stream at off and returns
// its trailer dictionary.
func (r *reader) section(off int) (dict, error) {
	if off < 0 || off >= len(r.data) {
		return nil, fmt.Errorf("cross-reference offset %d outside the file", off)
	}
	p := parser{b: r.data, pos: off, refs: true}
	p.skip()
	if bytes.HasPrefix(r.data[p.pos:], []byte("xref")) {
		p.pos += 4
		return r.table(&p)
	}
	o, err := p.indirect(-1, r.length)
	if err != nil {
		return nil, fmt.Errorf("cross-reference stream: %w", err)
	}
	s, ok := o.(*stream)
	if !ok || s.dict[name("Type")] != name("XRef") {
		return nil, errors.New("no cross-reference table or stream at startxref")
	}
	return s.dict, r.xrefStream(s)
}

// table reads a classic cross-reference table after "xref", then its
// trailer.
func (r *reader) table(p *parser) (dict, error) {
	for {
		p.skip()
		kw := p.keyword()
		if string(kw) == "trailer" {
			o, err := p.object()
			if err != nil {
				return nil, fmt.Errorf("trailer: %w", err)
			}
			d, ok := o.(dict)
			if !ok {
				return nil, errors.New("trailer is not a dictionary")
			}
			return d, nil
		}
		start, ok := parseInt(kw)
		p.skip()
		count, ok2 := parseInt(p.keyword())
		if !ok || !ok2 || start < 0 || count < 0 || start+count > maxObjects {
			return nil, errors.New("bad cross-reference subsection")
		}
		for i := range int(count) {
			if err := r.tick(); err != nil {
				return nil, err
			}
			p.skip()
			o, ok := parseInt(p.keyword())
			p.skip()
			_, ok2 := parseInt(p.keyword())
			p.skip()
			t := p.keyword()
			if !ok || !ok2 || len(t) != 1 || (t[0] != 'n' && t[0] != 'f') {
				return nil, errors.New("bad cross-reference entry")
			}
			r.setEntry(int(start)+i, xrefEntry{set: true, free: t[0] == 'f', off: int(o)})
		}
	}
}

// setEntry records e for object num unless a newer section did.
func (r *reader) setEntry(num int, e xrefEntry) {
	if num >= len(r.xref) {
		n := max(num+1, 2*len(r.xref))
		if n > maxObjects {
			n = maxObjects
		}
		r.xref = append(r.xref, make([]xrefEntry, n-len(r.xref))...)
	}
	if !r.xref[num].set {
		r.xref[num] = e
	}
}

// xrefStream reads the entries of a cross-reference stream.
func (r *reader) xrefStream(s *stream) error {
	data, err := r.decode(s)
	if err != nil {
		return err
	}
	w, ok := s.dict[name("W")].(array)
	if !ok || len(w) != 3 {
		return errors.New("bad /W")
	}
	var ws [3]int
	for i, v := range w {
		n, ok := v.(int64)
		if !ok || n < 0 || n > 8 {
			return errors.New("bad /W")
		}
		ws[i] = int(n)
	}
	rowLen := ws[0] + ws[1] + ws[2]
	if rowLen == 0 {
		return errors.New("bad /W")
	}
	size, _ := s.dict[name("Size")].(int64)
	index := array{int64(0), size}
	if ix, ok := s.dict[name("Index")].(array); ok {
		index = ix
	}
	if len(index)%2 != 0 {
		return errors.New("bad /Index")
	}
	pos := 0
	field := func(n int, def int64) int64 {
		if n == 0 {
			return def
		}
		var v int64
		for _, c := range data[pos : pos+n] {
			v = v<<8 | int64(c)
		}
		pos += n
		return v
	}
	for i := 0; i < len(index); i += 2 {
		start, ok1 := index[i].(int64)
		count, ok2 := index[i+1].(int64)
		if !ok1 || !ok2 || start < 0 || count < 0 || start+count > maxObjects {
			return errors.New("bad /Index")
		}
		for j := range int(count) {
			if err := r.tick(); err != nil {
				return err
			}
			if pos+rowLen > len(data) {
				return errors.New("cross-reference stream too short")
			}
			typ := field(ws[0], 1)
			a := field(ws[1], 0)
			b := field(ws[2], 0)
			if a < 0 || a > int64(len(r.data)) && typ == 1 {
				return errors.New("bad cross-reference stream entry")
			}
			num := int(start) + j
			switch typ {
			case 0:
				r.setEntry(num, xrefEntry{set: true, free: true})
			case 1:
				r.setEntry(num, xrefEntry{set: true, off: int(a)})
			case 2:
				if a < 0 || b < 0 || a > maxObjects || b > maxObjects {
					return errors.New("bad cross-reference stream entry")
				}
				r.setEntry(num, xrefEntry{set: true, inStm: true, off: int(a), idx: int(b)})
			default:
				// Unknown types are null objects (PDF 32000-1, 7.5.8.3).
				r.setEntry(num, xrefEntry{set: true, free: true})
			}
		}
	}
	return nil
}

// length resolves a stream's /Length: a number, or a reference to one.
func (r *reader) length(v any) (int, bool) {
	if rf, ok := v.(ref); ok {
		if r.loading[rf.num] {
			return 0, false
		}
		o, err := r.resolve(rf)
		if err != nil {
			return 0, false
		}
		v = o
	}
	n, ok := v.(int64)
	if !ok || n < 0 || n > int64(len(r.data)) {
		return 0, false
	}
	return int(n), true
}

// resolve returns the object v refers to (v itself when it is not a
// reference), parsing it on first use and caching it.
func (r *reader) resolve(v any) (any, error) {
	rf, ok := v.(ref)
	if !ok {
		return v, nil
	}
	if o, ok := r.cache[rf.num]; ok {
		return o, nil
	}
	if r.loading[rf.num] {
		return nil, fmt.Errorf("object %d refers to itself", rf.num)
	}
	if r.parsed++; r.parsed > maxObjects {
		return nil, fmt.Errorf("over %d objects parsed", maxObjects)
	}
	if err := r.tick(); err != nil {
		return nil, err
	}
	if rf.num < 0 || rf.num >= len(r.xref) || !r.xref[rf.num].set || r.xref[rf.num].free {
		// A reference to a missing object is null; PDFium may treat it
		// otherwise where it matters, so a caller needing it refuses.
		r.cache[rf.num] = nil
		return nil, nil
	}
	r.loading[rf.num] = true
	defer delete(r.loading, rf.num)
	e := r.xref[rf.num]
	var o any
	var err error
	if e.inStm {
		o, err = r.fromStream(rf.num, e)
	} else {
		if e.off < 0 || e.off >= len(r.data) {
			return nil, fmt.Errorf("object %d offset %d outside the file", rf.num, e.off)
		}
		p := parser{b: r.data, pos: e.off, refs: true}
		o, err = p.indirect(rf.num, r.length)
	}
	if err != nil {
		return nil, err
	}
	r.cache[rf.num] = o
	return o, nil
}

// fromStream parses object num from the object stream its entry names.
func (r *reader) fromStream(num int, e xrefEntry) (any, error) {
	os, ok := r.objStms[e.off]
	if !ok {
		if r.loading[e.off] {
			return nil, fmt.Errorf("object stream %d holds itself", e.off)
		}
		o, err := r.resolve(ref{e.off, 0})
		if err != nil {
			return nil, err
		}
		s, ok := o.(*stream)
		if !ok || s.dict[name("Type")] != name("ObjStm") {
			return nil, fmt.Errorf("object %d is not an object stream", e.off)
		}
		data, err := r.decode(s)
		if err != nil {
			return nil, err
		}
		n, ok1 := s.dict[name("N")].(int64)
		first, ok2 := s.dict[name("First")].(int64)
		if !ok1 || !ok2 || n < 0 || n > maxObjects || first < 0 || first > int64(len(data)) {
			return nil, fmt.Errorf("object stream %d has a bad header", e.off)
		}
		if r.held += int64(len(data)); r.held > maxHeldBytes {
			return nil, fmt.Errorf("object streams of over %d MiB decoded", maxHeldBytes>>20)
		}
		if err := r.grow(); err != nil {
			return nil, err
		}
		os = &objStm{data: data}
		p := parser{b: data[:first]}
		for range n {
			p.skip()
			a, ok1 := parseInt(p.keyword())
			p.skip()
			b, ok2 := parseInt(p.keyword())
			if !ok1 || !ok2 || a < 0 || b < 0 || first+b > int64(len(data)) {
				return nil, fmt.Errorf("object stream %d has a bad header", e.off)
			}
			os.nums = append(os.nums, int(a))
			os.offs = append(os.offs, int(first+b))
		}
		r.objStms[e.off] = os
	}
	if e.idx >= len(os.nums) || os.nums[e.idx] != num {
		return nil, fmt.Errorf("object %d is not at index %d of object stream %d", num, e.idx, e.off)
	}
	p := parser{b: os.data, pos: os.offs[e.idx], refs: true}
	return p.object()
}
