package pdftext

import (
	"bytes"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"io"
)

// decode returns a stream's data with its filters undone, within
// maxStreamBytes for the stream and maxTotalBytes for the file.
func (r *reader) decode(s *stream) ([]byte, error) {
	filters, err := r.resolve(s.dict[name("Filter")])
	if err != nil {
		return nil, err
	}
	parms, err := r.resolve(s.dict[name("DecodeParms")])
	if err != nil {
		return nil, err
	}
	var fs array
	var ps array
	switch f := filters.(type) {
	case nil:
	case name:
		fs = array{f}
		ps = array{parms}
	case array:
		fs = f
		ps, _ = parms.(array)
	default:
		return nil, errors.New("bad /Filter")
	}
	if len(fs) > 4 {
		return nil, errors.New("over 4 filters on a stream")
	}
	data := s.raw
	for i, f := range fs {
		f, err := r.resolve(f)
		if err != nil {
			return nil, err
		}
		var parm dict
		if i < len(ps) {
			p, err := r.resolve(ps[i])
			if err != nil {
				return nil, err
			}
			parm, _ = p.(dict)
		}
		switch f {
		case name("FlateDecode"), name("Fl"):
			data, err = r.inflate(data)
			if err == nil {
				data, err = predict(data, parm)
			}
		case name("ASCIIHexDecode"), name("AHx"):
			p := parser{b: data}
			data, err = p.hex(make([]byte, 0, len(data)/2))
			if errors.Is(err, errEOF) { // the '>' may be missing at the end
				err = nil
			}
		case name("ASCII85Decode"), name("A85"):
			data, err = ascii85(data)
		default:
			return nil, fmt.Errorf("filter %v", f)
		}
		if err != nil {
			return nil, err
		}
	}
	return data, nil
}

// inflate undoes a zlib stream, bounded.
func (r *reader) inflate(data []byte) ([]byte, error) {
	var err error
	if r.zr == nil {
		r.zr, err = zlib.NewReader(bytes.NewReader(data))
	} else {
		err = r.zr.(zlib.Resetter).Reset(bytes.NewReader(data), nil)
	}
	if err != nil {
		return nil, fmt.Errorf("flate: %w", err)
	}
	if r.inflated >= maxTotalBytes {
		return nil, fmt.Errorf("the file's streams inflate past %d MiB", maxTotalBytes>>20)
	}
	limit := min(int64(maxStreamBytes), maxTotalBytes-r.inflated)
	out, err := r.readAll(ctxReader{r.ctx, r.zr}, min(4*len(data)+512, int(limit)+1), limit)
	r.inflated += int64(len(out))
	if errors.Is(err, errTooBig) {
		r.inflated += limit
	}
	if errors.Is(err, errTooBig) && limit < maxStreamBytes {
		return nil, fmt.Errorf("the file's streams inflate past %d MiB", maxTotalBytes>>20)
	}
	if errors.Is(err, errTooBig) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("flate: %w", err)
	}
	return out, nil
}

// errTooBig is the error of a stream that decodes past maxStreamBytes.
var errTooBig = fmt.Errorf("a stream inflates past %d MiB", maxStreamBytes>>20)

// readAll reads r to its end, at most limit bytes (errTooBig past them),
// starting with a buffer of size bytes, and tells Limits.Grow as it grows. It reads into pieces that it
// joins once at the end, so a stream costs twice its size at most, where
// growing one buffer by doubling (bytes.Buffer) costs up to three times
// at once and more in garbage.
func (rd *reader) readAll(r io.Reader, size int, limit int64) ([]byte, error) {
	var pieces [][]byte
	total := int64(0)
	b := make([]byte, 0, max(size, 512))
	for {
		if len(b) == cap(b) {
			pieces = append(pieces, b)
			b = make([]byte, 0, min(2*cap(b), 4<<20, int(limit+1-total)))
			// The pieces so far, and the join they will need.
			rd.biggest = max(rd.biggest, 2*(total+int64(cap(b))))
			if err := rd.grow(); err != nil {
				return nil, err
			}
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if total += int64(n); total > limit {
			return nil, errTooBig
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if len(pieces) == 0 {
		return b, nil
	}
	out := make([]byte, 0, total)
	for _, p := range pieces {
		out = append(out, p...)
	}
	return append(out, b...), nil
}

// ctxReader fails with the context's error once it ends: an inflate of
// tens of megabytes stops between two reads of a few kilobytes.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// predict undoes a Flate stream's PNG (10-15) or no (1) predictor.
func predict(data []byte, parm dict) ([]byte, error) {
	pred, _ := parm[name("Predictor")].(int64)
	if pred <= 1 {
		return data, nil
	}
	if pred < 10 {
		return nil, fmt.Errorf("predictor %d", pred)
	}
	colors, bpc, cols := int64(1), int64(8), int64(1)
	if v, ok := parm[name("Colors")].(int64); ok {
		colors = v
	}
	if v, ok := parm[name("BitsPerComponent")].(int64); ok {
		bpc = v
	}
	if v, ok := parm[name("Columns")].(int64); ok {
		cols = v
	}
	if colors < 1 || colors > 32 || bpc < 1 || bpc > 16 || cols < 1 || cols > 1<<20 {
		return nil, errors.New("bad predictor parameters")
	}
	bpp := int(max((colors*bpc+7)/8, 1))
	row := int((colors*bpc*cols + 7) / 8)
	if row+1 > len(data) && len(data) > 0 {
		return nil, errors.New("predictor: a short row")
	}
	out := make([]byte, 0, len(data))
	prev := make([]byte, row)
	for len(data) > 0 {
		if len(data) < row+1 {
			return nil, errors.New("predictor: a short row")
		}
		typ, cur := data[0], data[1:row+1]
		data = data[row+1:]
		start := len(out)
		out = append(out, cur...)
		c := out[start:]
		for i := range c {
			var left, upLeft byte
			if i >= bpp {
				left, upLeft = c[i-bpp], prev[i-bpp]
			}
			up := prev[i]
			switch typ {
			case 0:
			case 1:
				c[i] += left
			case 2:
				c[i] += up
			case 3:
				c[i] += byte((int(left) + int(up)) / 2)
			case 4:
				c[i] += paeth(left, up, upLeft)
			default:
				return nil, fmt.Errorf("predictor: row type %d", typ)
			}
		}
		copy(prev, c)
	}
	return out, nil
}

func paeth(a, b, c byte) byte {
	p := int(a) + int(b) - int(c)
	pa, pb, pc := abs(p-int(a)), abs(p-int(b)), abs(p-int(c))
	switch {
	case pa <= pb && pa <= pc:
		return a
	case pb <= pc:
		return b
	}
	return c
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// ascii85 decodes ASCII base-85 data up to its "~>".
func ascii85(data []byte) ([]byte, error) {
	out := make([]byte, 0, len(data)*4/5+4)
	var v uint32
	n := 0
	for _, c := range data {
		switch {
		case isSpace(c):
			continue
		case c == '~':
			goto end
		case c == 'z' && n == 0:
			out = append(out, 0, 0, 0, 0)
			continue
		case c < '!' || c > 'u':
			return nil, fmt.Errorf("ascii85: bad byte %q", c)
		}
		v = v*85 + uint32(c-'!')
		if n++; n == 5 {
			out = append(out, byte(v>>24), byte(v>>16), byte(v>>8), byte(v))
			v, n = 0, 0
		}
	}
end:
	if n == 1 {
		return nil, errors.New("ascii85: a lone final byte")
	}
	if n > 1 {
		for i := n; i < 5; i++ {
			v = v*85 + 84
		}
		b := []byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}
		out = append(out, b[:n-1]...)
	}
	return out, nil
}
