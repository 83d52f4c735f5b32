package pdftext

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"unicode"
	"unicode/utf8"
)

// matrix is a PDF transformation matrix [a b c d e f].
type matrix [6]float64

var identity = matrix{1, 0, 0, 1, 0, 0}

// mul is m × n.
func (m matrix) mul(n matrix) matrix {
	return matrix{
		m[0]*n[0] + m[1]*n[2], m[0]*n[1] + m[1]*n[3],
		m[2]*n[0] + m[3]*n[2], m[2]*n[1] + m[3]*n[3],
		m[4]*n[0] + m[5]*n[2] + n[4], m[4]*n[1] + m[5]*n[3] + n[5],
	}
}

// gstate is the graphics state text extraction follows.
type gstate struct {
	ctm                        matrix
	font                       *font
	size, tc, tw, th, tl, rise float64
}

// operand is one operand of a content stream operator.
type operand struct {
	kind byte // 'n' number, 's' string, '/' name, '[' and ']' array marks
	num  float64
	s    []byte
}

// interp runs content streams and writes a page's text; it is used again
// for every page, so its buffers are.
type interp struct {
	r     *reader
	out   []byte
	ops   []operand
	arena []byte
	gs    gstate
	stack []gstate
	tm    matrix
	tlm   matrix
	forms []int // form XObjects being drawn, by object number
	nops  int
	glyph int
	// The previous glyph: where it ended, its direction and size.
	have           bool
	px, py, ux, uy float64
	psize, pw      float64
	// kern is how far, in ems, a TJ array's numbers moved the next glyph.
	kern float64
	// The text objects (one a Tj, TJ, ' or ") of the line being
	// gathered, their glyphs and codes, and the last few objects.
	line   []textObj
	glyphs []glyph
	codes  []byte
	cur    int     // the first glyph of the object being shown
	curC   int     // its first code byte
	obj    objLook // its direction and size
	recent [5]textObj
	nrec   int
}

// page returns a page's text.
func (ip *interp) page(pg page) (string, error) {
	ip.out = ip.out[:0]
	ip.gs = gstate{ctm: identity, th: 1}
	ip.stack = ip.stack[:0]
	ip.forms = ip.forms[:0]
	ip.nops, ip.glyph, ip.have = 0, 0, false
	ip.line, ip.glyphs, ip.codes, ip.nrec = ip.line[:0], ip.glyphs[:0], ip.codes[:0], 0
	c, err := ip.r.resolve(pg.dict[name("Contents")])
	if err != nil {
		return "", err
	}
	var parts []any
	switch c := c.(type) {
	case nil:
	case *stream:
		parts = []any{c}
	case array:
		parts = c
	default:
		return "", errors.New("bad /Contents")
	}
	// The parts of an array are one stream, split anywhere between tokens.
	var data []byte
	for i, part := range parts {
		s, err := ip.r.resolve(part)
		if err != nil {
			return "", err
		}
		st, ok := s.(*stream)
		if !ok {
			if s == nil {
				continue
			}
			return "", errors.New("bad /Contents")
		}
		d, err := ip.r.decode(st)
		if err != nil {
			return "", content(err)
		}
		if len(parts) == 1 {
			data = d
			break
		}
		if len(data)+1+len(d) > maxStreamBytes {
			return "", fmt.Errorf("%w: the page's content passes %d MiB decoded", ErrOverLimit, maxStreamBytes>>20)
		}
		if i > 0 {
			data = append(data, '\n')
		}
		data = append(data, d...)
	}
	if err := ip.run(data, pg.res); err != nil {
		return "", err
	}
	ip.flush()
	return string(bytes.TrimRight(ip.out, " \n")), nil
}

// content is the error of decoding a content stream: past the bound on
// one stream's size it is ErrOverLimit, since another reader would have
// to decode and parse it whole too.
func content(err error) error {
	if errors.Is(err, errTooBig) {
		return fmt.Errorf("%w: %w", ErrOverLimit, err)
	}
	return err
}

// run interprets one content stream with its resources.
func (ip *interp) run(b []byte, res dict) error {
	p := parser{b: b}
	ip.ops = ip.ops[:0]
	ip.arena = ip.arena[:0]
	for {
		if err := ip.r.tick(); err != nil {
			return err
		}
		p.skip()
		if p.pos >= len(b) {
			return nil
		}
		if len(ip.ops) >= maxOperands {
			return fmt.Errorf("over %d operands", maxOperands)
		}
		c := b[p.pos]
		switch {
		case c == '/':
			p.pos++
			s := p.pos
			for p.pos < len(b) && isRegular(b[p.pos]) {
				p.pos++
			}
			ip.ops = append(ip.ops, operand{kind: '/', s: b[s:p.pos]})
		case c == '(':
			p.pos++
			s := len(ip.arena)
			a, err := p.literal(ip.arena)
			if err != nil {
				return err
			}
			ip.arena = a
			ip.ops = append(ip.ops, operand{kind: 's', s: a[s:]})
		case c == '<' && p.pos+1 < len(b) && b[p.pos+1] == '<':
			p.pos += 2
		case c == '>' && p.pos+1 < len(b) && b[p.pos+1] == '>':
			p.pos += 2
		case c == '<':
			p.pos++
			s := len(ip.arena)
			a, err := p.hex(ip.arena)
			if err != nil {
				return err
			}
			ip.arena = a
			ip.ops = append(ip.ops, operand{kind: 's', s: a[s:]})
		case c == '[' || c == ']':
			p.pos++
			ip.ops = append(ip.ops, operand{kind: c})
		case c == '{' || c == '}' || c == ')' || c == '>':
			p.pos++
		default:
			k := p.keyword()
			if len(k) == 0 {
				p.pos++
				continue
			}
			if c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' {
				if v, ok := parseReal(k); ok {
					ip.ops = append(ip.ops, operand{kind: 'n', num: v})
					continue
				}
			}
			if string(k) == "ID" {
				if err := ip.skipImage(&p); err != nil {
					return err
				}
			} else if err := ip.op(k, res); err != nil {
				return err
			}
			ip.ops = ip.ops[:0]
			ip.arena = ip.arena[:0]
		}
	}
}

// skipImage skips an inline image's data after ID: its length from its
// dictionary when it is unfiltered, else up to the first EI between white
// space.
func (ip *interp) skipImage(p *parser) error {
	w, h, bpc, comps := 0.0, 0.0, 8.0, 1.0
	filtered, mask := false, false
	for i := 0; i+1 < len(ip.ops); i++ {
		if ip.ops[i].kind != '/' {
			continue
		}
		v := ip.ops[i+1]
		switch string(ip.ops[i].s) {
		case "W", "Width":
			w = v.num
		case "H", "Height":
			h = v.num
		case "BPC", "BitsPerComponent":
			bpc = v.num
		case "IM", "ImageMask":
			mask = v.kind == '/' || bytes.Equal(v.s, []byte("true"))
		case "F", "Filter":
			filtered = true
		case "CS", "ColorSpace":
			switch string(v.s) {
			case "RGB", "DeviceRGB", "CalRGB":
				comps = 3
			case "CMYK", "DeviceCMYK":
				comps = 4
			case "G", "DeviceGray", "CalGray", "I", "Indexed":
				comps = 1
			default:
				filtered = true // an unknown length: search for EI
			}
		default:
			continue
		}
		i++
	}
	if p.pos < len(p.b) && isSpace(p.b[p.pos]) {
		p.pos++
	}
	if mask {
		bpc, comps = 1, 1
	}
	switch bpc {
	case 1, 2, 4, 8, 16:
	default:
		filtered = true
	}
	if !filtered && w > 0 && h > 0 {
		if n := math.Ceil(w*comps*bpc/8) * math.Ceil(h); n <= float64(len(p.b)-p.pos) {
			end := p.pos + int(n)
			q := parser{b: p.b, pos: end}
			q.skip()
			if bytes.HasPrefix(p.b[q.pos:], []byte("EI")) && (q.pos+2 == len(p.b) || !isRegular(p.b[q.pos+2])) {
				p.pos = q.pos + 2
				return nil
			}
		}
	}
	for i := p.pos; i+1 < len(p.b); i++ {
		if p.b[i] == 'E' && p.b[i+1] == 'I' && i > 0 && isSpace(p.b[i-1]) && (i+2 == len(p.b) || isSpace(p.b[i+2])) {
			p.pos = i + 2
			return nil
		}
	}
	return errors.New("an inline image without EI")
}

func (ip *interp) num(i int) float64 {
	if i < len(ip.ops) && ip.ops[i].kind == 'n' {
		return ip.ops[i].num
	}
	return 0
}

// nums reports whether the operator has n number operands.
func (ip *interp) nums(n int) bool {
	if len(ip.ops) < n {
		return false
	}
	for _, o := range ip.ops[len(ip.ops)-n:] {
		if o.kind != 'n' {
			return false
		}
	}
	ip.ops = ip.ops[len(ip.ops)-n:]
	return true
}

// op runs one operator.
func (ip *interp) op(k []byte, res dict) error {
	if ip.nops++; ip.nops > maxOps {
		return fmt.Errorf("over %d operators on a page", maxOps)
	}
	if ip.r.ops++; ip.r.ops > maxFileOps {
		return fmt.Errorf("over %d operators in the file", maxFileOps)
	}
	gs := &ip.gs
	switch string(k) {
	case "BT":
		ip.tm, ip.tlm = identity, identity
	case "Tf":
		if len(ip.ops) < 2 || ip.ops[len(ip.ops)-2].kind != '/' {
			return errors.New("bad Tf")
		}
		f, err := ip.font(res, ip.ops[len(ip.ops)-2].s)
		if err != nil {
			return err
		}
		gs.font, gs.size = f, ip.ops[len(ip.ops)-1].num
	case "Td":
		if ip.nums(2) {
			ip.td(ip.num(0), ip.num(1))
		}
	case "TD":
		if ip.nums(2) {
			gs.tl = -ip.num(1)
			ip.td(ip.num(0), ip.num(1))
		}
	case "Tm":
		if ip.nums(6) {
			ip.tm = matrix{ip.num(0), ip.num(1), ip.num(2), ip.num(3), ip.num(4), ip.num(5)}
			ip.tlm = ip.tm
		}
	case "T*":
		ip.td(0, -gs.tl)
	case "Tc":
		if ip.nums(1) {
			gs.tc = ip.num(0)
		}
	case "Tw":
		if ip.nums(1) {
			gs.tw = ip.num(0)
		}
	case "Tz":
		if ip.nums(1) {
			gs.th = ip.num(0) / 100
		}
	case "TL":
		if ip.nums(1) {
			gs.tl = ip.num(0)
		}
	case "Ts":
		if ip.nums(1) {
			gs.rise = ip.num(0)
		}
	case "Tj":
		if n := len(ip.ops); n > 0 && ip.ops[n-1].kind == 's' {
			ip.begin()
			defer ip.end()
			return ip.show(ip.ops[n-1].s)
		}
	case "'":
		ip.td(0, -gs.tl)
		if n := len(ip.ops); n > 0 && ip.ops[n-1].kind == 's' {
			ip.begin()
			defer ip.end()
			return ip.show(ip.ops[n-1].s)
		}
	case "\"":
		if n := len(ip.ops); n >= 3 && ip.ops[n-1].kind == 's' {
			gs.tw, gs.tc = ip.ops[n-3].num, ip.ops[n-2].num
			ip.td(0, -gs.tl)
			ip.begin()
			defer ip.end()
			return ip.show(ip.ops[n-1].s)
		}
	case "TJ":
		start := -1
		for i := len(ip.ops) - 1; i >= 0; i-- {
			if ip.ops[i].kind == '[' {
				start = i
				break
			}
		}
		if start < 0 {
			return nil
		}
		ip.begin()
		defer ip.end()
		for _, o := range ip.ops[start+1:] {
			switch o.kind {
			case 's':
				if err := ip.show(o.s); err != nil {
					return err
				}
			case 'n':
				ip.tm = matrix{1, 0, 0, 1, -o.num / 1000 * gs.size * gs.th, 0}.mul(ip.tm)
				ip.kern -= o.num / 1000
			}
		}
	case "cm":
		if ip.nums(6) {
			gs.ctm = matrix{ip.num(0), ip.num(1), ip.num(2), ip.num(3), ip.num(4), ip.num(5)}.mul(gs.ctm)
		}
	case "q":
		if len(ip.stack) >= maxStack {
			return fmt.Errorf("q nested over %d deep", maxStack)
		}
		ip.stack = append(ip.stack, *gs)
	case "Q":
		if n := len(ip.stack); n > 0 {
			*gs = ip.stack[n-1]
			ip.stack = ip.stack[:n-1]
		}
	case "Do":
		if n := len(ip.ops); n > 0 && ip.ops[n-1].kind == '/' {
			return ip.do(res, ip.ops[n-1].s)
		}
	case "BDC":
		for _, o := range ip.ops {
			if o.kind == '/' && string(o.s) == "ActualText" {
				return errors.New("marked content with ActualText")
			}
		}
	case "d0", "d1":
		return errors.New("Type3 glyph operators in a page")
	}
	return nil
}

func (ip *interp) td(tx, ty float64) {
	ip.tlm = matrix{1, 0, 0, 1, tx, ty}.mul(ip.tlm)
	ip.tm = ip.tlm
}

// resource looks up name in the res subdictionary cat.
func (ip *interp) resource(res dict, cat string, n []byte) (any, error) {
	sub, err := ip.r.dictOf(res[name(cat)])
	if err != nil {
		return nil, err
	}
	v, ok := sub[name(n)]
	if !ok {
		return nil, fmt.Errorf("no %s %s in the resources", cat, n)
	}
	return v, nil
}

func (ip *interp) font(res dict, n []byte) (*font, error) {
	v, err := ip.resource(res, "Font", n)
	if err != nil {
		return nil, err
	}
	return ip.r.fontOf(v)
}

// do draws a form XObject's text; images and the rest are skipped.
func (ip *interp) do(res dict, n []byte) error {
	v, err := ip.resource(res, "XObject", n)
	if err != nil {
		return err
	}
	rf, isRef := v.(ref)
	o, err := ip.r.resolve(v)
	if err != nil {
		return err
	}
	s, ok := o.(*stream)
	if !ok {
		return fmt.Errorf("XObject %s is not a stream", n)
	}
	if s.dict[name("Subtype")] != name("Form") {
		return nil
	}
	if len(ip.forms) >= maxFormDepth {
		return fmt.Errorf("forms nested over %d deep", maxFormDepth)
	}
	if isRef {
		for _, f := range ip.forms {
			if f == rf.num {
				return errors.New("a form draws itself")
			}
		}
	}
	data, err := ip.r.decode(s)
	if err != nil {
		return content(err)
	}
	fres := res
	if fr, ok := s.dict[name("Resources")]; ok {
		if fres, err = ip.r.dictOf(fr); err != nil {
			return err
		}
	}
	m := identity
	if mv, err := ip.r.resolve(s.dict[name("Matrix")]); err == nil {
		if a, ok := mv.(array); ok && len(a) == 6 {
			for i := range m {
				m[i] = num(a[i])
			}
		}
	}
	// The form runs in its own graphics state, and its operands and
	// arena must not clobber the caller's.
	saved, savedStack := ip.gs, len(ip.stack)
	ops, arena := ip.ops, ip.arena
	ip.ops, ip.arena = nil, nil
	ip.gs.ctm = m.mul(ip.gs.ctm)
	ip.forms = append(ip.forms, rf.num)
	err = ip.run(data, fres)
	ip.forms = ip.forms[:len(ip.forms)-1]
	ip.gs, ip.stack = saved, ip.stack[:savedStack]
	ip.ops, ip.arena = ops, arena
	return err
}

// show adds the glyphs of string s to the text object begun, with where
// each starts and ends on the device.
func (ip *interp) show(s []byte) error {
	gs := &ip.gs
	f := gs.font
	if f == nil {
		return errors.New("text shown without a font")
	}
	step := 1
	if f.cid {
		step = 2
	}
	// Text space to the device, once for the string: a glyph tx along
	// the baseline starts at (tx, rise) in it. Its direction and size on
	// the device are those of the text rendering matrix.
	a := ip.tm.mul(gs.ctm)
	ux, uy := gs.size*gs.th*a[0], gs.size*gs.th*a[1]
	if l := math.Hypot(ux, uy); l > 0 {
		ux, uy = ux/l, uy/l
	} else {
		ux, uy = 1, 0
	}
	size := math.Abs(gs.size) * math.Hypot(a[2], a[3])
	// Which way is up for the glyphs on the device (down, when mirrored).
	vx, vy := a[2]*gs.size, a[3]*gs.size
	if l := math.Hypot(vx, vy); l > 0 {
		vx, vy = vx/l, vy/l
	} else {
		vx, vy = -uy, ux
	}
	// One operator's strings share a font and a direction: they are the
	// text object's.
	ip.obj = objLook{ux: ux, uy: uy, vx: vx, vy: vy, size: size, spaceW: f.spaceW}
	tx := 0.0
	for i := 0; i+step <= len(s); i += step {
		if ip.glyph++; ip.glyph > maxGlyphs {
			return fmt.Errorf("%w: over %d glyphs on a page", ErrOverLimit, maxGlyphs)
		}
		if ip.glyph > ip.r.glyphs && ip.glyph%4096 == 0 {
			ip.r.glyphs = ip.glyph
			if err := ip.r.grow(); err != nil {
				return err
			}
		}
		var text string
		var w float64
		space := false
		if f.cid {
			c := int(s[i])<<8 | int(s[i+1])
			t, ok := f.cidText(c)
			if !ok {
				return fmt.Errorf("code %04X has no text in its font's ToUnicode, or right-to-left text", c)
			}
			text = t
			w = f.cidDW
			if cw, ok := f.cidW[c]; ok {
				w = cw
			}
		} else {
			c := s[i]
			if f.isBad(c) {
				return fmt.Errorf("code %d has no known text in its font", c)
			}
			text, w = f.text[c], f.width[c]
			space = c == ' '
		}
		adv := (w/1000*gs.size + gs.tc) * gs.th
		if space {
			adv += gs.tw * gs.th
		}
		ip.glyphs = append(ip.glyphs, glyph{
			text: text, w: w, kern: ip.kern, desc: descends(text),
			x: tx*a[0] + gs.rise*a[2] + a[4], y: tx*a[1] + gs.rise*a[3] + a[5],
			ex: (tx+adv)*a[0] + gs.rise*a[2] + a[4], ey: (tx+adv)*a[1] + gs.rise*a[3] + a[5],
		})
		ip.codes = append(ip.codes, s[i:i+step]...)
		ip.kern = 0
		tx += adv
	}
	ip.tm = matrix{1, 0, 0, 1, tx, 0}.mul(ip.tm)
	return nil
}

// emit writes glyph g's text, after a line break or a space where its
// place says so; first says it starts a text object, and group that it
// starts a line's worth of them.
func (ip *interp) emit(g *glyph, k *objLook, first, group bool) {
	if g.text != "" {
		if ip.have {
			ip.place(g, k, first, group)
		}
		n := len(ip.out)
		if g.text == " " && n > 0 && (ip.out[n-1] == ' ' || ip.out[n-1] == '\n') {
			// PDFium writes one space for a run of them.
		} else {
			for j := 0; j < len(g.text); j++ {
				if g.text[j] != 0 {
					ip.out = append(ip.out, g.text[j])
				}
			}
		}
	}
	ip.px, ip.py, ip.ux, ip.uy, ip.psize, ip.pw, ip.have = g.ex, g.ey, k.ux, k.uy, k.size, g.w, true
}

// place writes a line break or a space before glyph g, as PDFium's text
// page would. A line break where the glyph is off the previous one's
// baseline by over lineGap of their size, or runs another way. A space,
// between text objects (first), where the gap from where the previous
// glyph ended is over a quarter of the wider glyph, where it starts over
// its size before the previous glyph started, or where a new line's worth
// of objects (group) goes back on the same line; inside a TJ array,
// where its numbers move the glyph on by half the font's space, or, when
// the font's space is wider than a third of an em, by a share of the
// wider glyph (normalized as PDFium does).
func (ip *interp) place(g *glyph, k *objLook, first, group bool) {
	dx, dy := g.x-ip.px, g.y-ip.py
	along := dx*ip.ux + dy*ip.uy
	across := -dx*ip.uy + dy*ip.ux
	em := max(k.size, ip.psize)
	if em <= 0 {
		em = 1
	}
	n := len(ip.out)
	if n == 0 || ip.out[n-1] == '\n' {
		return
	}
	switch {
	case k.ux*ip.ux+k.uy*ip.uy < 0.99, math.Abs(across) > em*lineGap:
		for n > 0 && ip.out[n-1] == ' ' {
			n--
		}
		ip.out = ip.out[:n]
		if ip.hyphen(g.text) {
			return
		}
		ip.out = append(ip.out, '\n')
		return
	case ip.out[n-1] == ' ' || g.text[0] == ' ':
		return
	case first:
		// Going back past where the previous glyph started, by over its
		// size, is a new word too (text overlapping text).
		back := -along - ip.pw*ip.psize/1000
		if group && along < 0 || back > em || along > max(ip.pw*ip.psize, g.w*k.size)/1000/4 {
			ip.out = append(ip.out, ' ')
		}
	case g.kern > 0:
		thr := k.spaceW / 2
		if k.spaceW <= 0 || k.spaceW > 1000.0/3 {
			thr = normalize(max(math.Abs(g.w), math.Abs(ip.pw)))
		}
		if g.kern*1000 >= thr {
			ip.out = append(ip.out, ' ')
		}
	}
}

// lineGap is how far off the previous glyph's baseline, in ems, a glyph
// starts a new line: about where PDFium finds their boxes apart.
const lineGap = 0.7

// normalize is PDFium's NormalizeThreshold(w, 300, 500, 700).
func normalize(w float64) float64 {
	switch {
	case w < 300:
		return w / 2
	case w < 500:
		return w / 4
	case w < 700:
		return w / 5
	}
	return w / 6
}

// hyphen joins a word broken at a line's end, as PDFium does: where the
// line ends in a letter and a hyphen and the next starts with a letter,
// the hyphen and the line break become U+FFFE.
func (ip *interp) hyphen(next string) bool {
	out := ip.out
	n := len(out)
	hl := 0
	switch {
	case n >= 1 && out[n-1] == '-':
		hl = 1
	case n >= 2 && out[n-2] == 0xC2 && out[n-1] == 0xAD:
		hl = 2
	default:
		return false
	}
	prev, _ := utf8.DecodeLastRune(out[:n-hl])
	first, _ := utf8.DecodeRuneInString(next)
	if !unicode.IsLetter(prev) || !unicode.IsLetter(first) {
		return false
	}
	ip.out = append(out[:n-hl], "\uFFFE"...)
	return true
}
