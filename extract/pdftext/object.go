package pdftext

import (
	"bytes"
	"fmt"
	"strconv"
)

// The objects of a PDF file as the parser returns them: nil (null), bool,
// int64, float64, name, string (a PDF string's bytes), array, dict, ref
// and *stream.
type (
	name  string
	array []any
	dict  map[name]any
	ref   struct{ num, gen int }
)

// stream is a stream object: its dictionary and its raw (still encoded)
// bytes, a slice of the file.
type stream struct {
	dict dict
	raw  []byte
}

// isSpace reports PDF white space.
func isSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f' || c == 0
}

// isDelim reports PDF delimiters.
func isDelim(c byte) bool {
	switch c {
	case '(', ')', '<', '>', '[', ']', '{', '}', '/', '%':
		return true
	}
	return false
}

func isRegular(c byte) bool { return !isSpace(c) && !isDelim(c) }

// parser reads objects from b starting at pos, without copying b: names,
// strings and streams are made from it as they are met.
type parser struct {
	b     []byte
	pos   int
	depth int
	refs  bool // "n g R" is a reference (false in content streams)
}

// skip skips white space and comments.
func (p *parser) skip() {
	for p.pos < len(p.b) {
		c := p.b[p.pos]
		if isSpace(c) {
			p.pos++
			continue
		}
		if c == '%' {
			for p.pos < len(p.b) && p.b[p.pos] != '\n' && p.b[p.pos] != '\r' {
				p.pos++
			}
			continue
		}
		return
	}
}

// keyword reads a run of regular characters (a keyword or number) and
// returns it as a slice of b.
func (p *parser) keyword() []byte {
	s := p.pos
	for p.pos < len(p.b) && isRegular(p.b[p.pos]) {
		p.pos++
	}
	return p.b[s:p.pos]
}

// peekKeyword reports whether the next token is kw, without moving.
func (p *parser) peekKeyword(kw string) bool {
	save := p.pos
	p.skip()
	k := p.keyword()
	p.pos = save
	return string(k) == kw
}

// object parses the next object. A bare keyword (an operator in a content
// stream) comes back as errKeyword with the keyword in p.kw.
func (p *parser) object() (any, error) {
	p.skip()
	if p.pos >= len(p.b) {
		return nil, errEOF
	}
	c := p.b[p.pos]
	switch {
	case c == '/':
		p.pos++
		return name(p.name()), nil
	case c == '(':
		p.pos++
		s, err := p.literal(nil)
		return string(s), err
	case c == '<' && p.pos+1 < len(p.b) && p.b[p.pos+1] == '<':
		p.pos += 2
		return p.dict()
	case c == '<':
		p.pos++
		s, err := p.hex(nil)
		return string(s), err
	case c == '[':
		p.pos++
		return p.array()
	case c == ']' || c == '>' || c == ')' || c == '{' || c == '}':
		p.pos++
		return nil, fmt.Errorf("unexpected %q at %d", c, p.pos-1)
	}
	k := p.keyword()
	if len(k) == 0 {
		p.pos++
		return nil, fmt.Errorf("unexpected byte %q", c)
	}
	if n, ok := parseInt(k); ok {
		if p.refs {
			// "n g R"?
			save := p.pos
			p.skip()
			g := p.keyword()
			if gen, ok := parseInt(g); ok && len(g) > 0 && g[0] != '-' && g[0] != '+' {
				p.skip()
				if r := p.keyword(); len(r) == 1 && r[0] == 'R' {
					if n < 0 || n > maxObjects || gen > 65535 {
						return nil, fmt.Errorf("bad reference %d %d R", n, gen)
					}
					return ref{int(n), int(gen)}, nil
				}
			}
			p.pos = save
		}
		return n, nil
	}
	if f, ok := parseReal(k); ok {
		return f, nil
	}
	switch string(k) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	case "null":
		return nil, nil
	}
	return nil, &keywordError{string(k)}
}

// keywordError is a keyword where an object was expected.
type keywordError struct{ kw string }

func (e *keywordError) Error() string { return "unexpected keyword " + strconv.Quote(e.kw) }

func (p *parser) array() (any, error) {
	if p.depth++; p.depth > maxNesting {
		return nil, fmt.Errorf("arrays and dictionaries nested over %d deep", maxNesting)
	}
	defer func() { p.depth-- }()
	var a array
	for {
		p.skip()
		if p.pos >= len(p.b) {
			return nil, errEOF
		}
		if p.b[p.pos] == ']' {
			p.pos++
			return a, nil
		}
		o, err := p.object()
		if err != nil {
			return nil, err
		}
		a = append(a, o)
	}
}

func (p *parser) dict() (any, error) {
	if p.depth++; p.depth > maxNesting {
		return nil, fmt.Errorf("arrays and dictionaries nested over %d deep", maxNesting)
	}
	defer func() { p.depth-- }()
	d := dict{}
	for {
		p.skip()
		if p.pos >= len(p.b) {
			return nil, errEOF
		}
		if p.b[p.pos] == '>' {
			if p.pos+1 < len(p.b) && p.b[p.pos+1] == '>' {
				p.pos += 2
				return d, nil
			}
			return nil, fmt.Errorf("unexpected '>' at %d", p.pos)
		}
		if p.b[p.pos] != '/' {
			return nil, fmt.Errorf("dictionary key is not a name at %d", p.pos)
		}
		p.pos++
		k := name(p.name())
		v, err := p.object()
		if err != nil {
			return nil, err
		}
		if v != nil { // a null value is as if the key were absent
			d[k] = v
		}
	}
}

// name reads a name after its '/', decoding #xx escapes.
func (p *parser) name() string {
	s := p.pos
	esc := false
	for p.pos < len(p.b) && isRegular(p.b[p.pos]) {
		if p.b[p.pos] == '#' {
			esc = true
		}
		p.pos++
	}
	raw := p.b[s:p.pos]
	if !esc {
		return string(raw)
	}
	out := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); i++ {
		if raw[i] == '#' && i+2 < len(raw) {
			if h, ok := unhex(raw[i+1], raw[i+2]); ok {
				out = append(out, h)
				i += 2
				continue
			}
		}
		out = append(out, raw[i])
	}
	return string(out)
}

// literal reads a literal string after its '(' and appends its bytes to
// out.
func (p *parser) literal(out []byte) ([]byte, error) {
	nest := 1
	for p.pos < len(p.b) {
		c := p.b[p.pos]
		p.pos++
		switch c {
		case '(':
			nest++
		case ')':
			if nest--; nest == 0 {
				return out, nil
			}
		case '\r':
			// An end of line in a string is a line feed.
			if p.pos < len(p.b) && p.b[p.pos] == '\n' {
				p.pos++
			}
			c = '\n'
		case '\\':
			if p.pos >= len(p.b) {
				return nil, errEOF
			}
			c = p.b[p.pos]
			p.pos++
			switch c {
			case 'n':
				c = '\n'
			case 'r':
				c = '\r'
			case 't':
				c = '\t'
			case 'b':
				c = '\b'
			case 'f':
				c = '\f'
			case '\r':
				if p.pos < len(p.b) && p.b[p.pos] == '\n' {
					p.pos++
				}
				continue
			case '\n':
				continue
			case '0', '1', '2', '3', '4', '5', '6', '7':
				v := int(c - '0')
				for i := 0; i < 2 && p.pos < len(p.b) && p.b[p.pos] >= '0' && p.b[p.pos] <= '7'; i++ {
					v = v*8 + int(p.b[p.pos]-'0')
					p.pos++
				}
				c = byte(v)
			}
		}
		out = append(out, c)
	}
	return nil, errEOF
}

// hex reads a hex string after its '<' and appends its bytes to out.
func (p *parser) hex(out []byte) ([]byte, error) {
	var hi byte
	half := false
	for p.pos < len(p.b) {
		c := p.b[p.pos]
		p.pos++
		if c == '>' {
			if half {
				out = append(out, hi<<4)
			}
			return out, nil
		}
		if isSpace(c) {
			continue
		}
		v, ok := hexVal(c)
		if !ok {
			return nil, fmt.Errorf("bad hex digit %q", c)
		}
		if half {
			out = append(out, hi<<4|v)
		} else {
			hi = v
		}
		half = !half
	}
	return nil, errEOF
}

func hexVal(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

func unhex(a, b byte) (byte, bool) {
	h, ok1 := hexVal(a)
	l, ok2 := hexVal(b)
	return h<<4 | l, ok1 && ok2
}

// parseInt parses a PDF integer; false for anything else (or one that
// does not fit in 53 bits).
func parseInt(k []byte) (int64, bool) {
	if len(k) == 0 || len(k) > 16 {
		return 0, false
	}
	i, neg := 0, false
	if k[0] == '+' || k[0] == '-' {
		neg = k[0] == '-'
		i = 1
	}
	if i == len(k) {
		return 0, false
	}
	var n int64
	for ; i < len(k); i++ {
		c := k[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// parseReal parses a PDF real number (digits with one point, a sign).
func parseReal(k []byte) (float64, bool) {
	if len(k) == 0 || len(k) > 32 {
		return 0, false
	}
	i, neg := 0, false
	if k[0] == '+' || k[0] == '-' {
		neg = k[0] == '-'
		i = 1
	}
	var v, scale float64 = 0, 0
	digits := 0
	for ; i < len(k); i++ {
		c := k[i]
		switch {
		case c >= '0' && c <= '9':
			v = v*10 + float64(c-'0')
			if scale != 0 {
				scale *= 10
			}
			digits++
		case c == '.' && scale == 0:
			scale = 1
		case c == '-' && digits == 0 && scale == 0:
			// "--5" and the like: PDF readers take them as negative.
			neg = !neg
		default:
			return 0, false
		}
	}
	if digits == 0 {
		return 0, false
	}
	if scale > 1 {
		v /= scale
	}
	if neg {
		v = -v
	}
	return v, true
}

// indirect parses "num gen obj <object> [stream…endstream] endobj" at off
// and checks it is object num. length resolves a stream's /Length.
func (p *parser) indirect(num int, length func(any) (int, bool)) (any, error) {
	p.skip()
	n, ok := parseInt(p.keyword())
	p.skip()
	_, ok2 := parseInt(p.keyword())
	p.skip()
	if kw := p.keyword(); !ok || !ok2 || string(kw) != "obj" {
		return nil, fmt.Errorf("no object header at the offset of object %d", num)
	}
	if num >= 0 && int(n) != num {
		return nil, fmt.Errorf("object %d found where object %d should be", n, num)
	}
	o, err := p.object()
	if err != nil {
		return nil, err
	}
	d, isDict := o.(dict)
	if !isDict || !p.peekKeyword("stream") {
		return o, nil
	}
	p.skip()
	p.keyword() // stream
	// The data starts after CRLF or LF.
	if p.pos < len(p.b) && p.b[p.pos] == '\r' {
		p.pos++
	}
	if p.pos < len(p.b) && p.b[p.pos] == '\n' {
		p.pos++
	}
	start := p.pos
	end := -1
	if l, ok := length(d[name("Length")]); ok && l >= 0 && l <= len(p.b)-start {
		q := parser{b: p.b, pos: start + l}
		q.skip()
		if bytes.HasPrefix(p.b[q.pos:], []byte("endstream")) {
			end = start + l
		}
	}
	if end < 0 {
		// A wrong /Length: the data ends at "endstream", as readers take it.
		i := bytes.Index(p.b[start:], []byte("endstream"))
		if i < 0 {
			return nil, fmt.Errorf("stream of object %d has no end", num)
		}
		end = start + i
		for end > start && (p.b[end-1] == '\n' || p.b[end-1] == '\r') {
			end--
		}
	}
	p.pos = end
	return &stream{dict: d, raw: p.b[start:end]}, nil
}
