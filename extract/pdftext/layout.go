package pdftext

import (
	"bytes"
	"math"
	"slices"
	"strings"
)

// glyph is one glyph shown: its text, where it starts and ends on the
// device, its width (thousandths of an em), how far a TJ array moved it
// on (ems), and whether it descends below the baseline.
type glyph struct {
	text         string
	x, y, ex, ey float64
	w, kern      float64
	desc         bool
}

// objLook is what a text object's glyphs share: their direction on the
// device (along the baseline, and up), size there, and their font's
// space width.
type objLook struct {
	ux, uy, vx, vy, size, spaceW float64
}

// descends reports whether text has a letter or sign that goes below the
// baseline.
func descends(text string) bool {
	if len(text) == 1 {
		switch text[0] {
		case 'g', 'j', 'p', 'q', 'y', ',', ';', '(', ')', '[', ']', '{', '}', '|', '@', '$', 'Q':
			return true
		}
		return false
	}
	return strings.ContainsAny(text, "gjpqy,;()[]{}|@$Q")
}

// textObj is the glyphs one operator (Tj, TJ, ' or ") shows: PDFium's
// text object, which its text page orders and compares.
type textObj struct {
	g0, g1                 int     // its glyphs in interp.glyphs
	c0, c1                 int     // its codes in interp.codes
	x, y                   float64 // where it starts
	fsize                  float64 // its font size (Tf)
	look                   objLook
	firstW, lastW          float64 // its first and last glyph's widths on the device
	minX, maxX, minY, maxY float64 // its box
}

// begin starts a text object.
func (ip *interp) begin() {
	ip.cur, ip.curC, ip.kern = len(ip.glyphs), len(ip.codes), 0
}

// end closes the text object begun, and gathers it into the line as
// PDFium's text page does (CPDF_TextPage::ProcessTextObject): an object
// of no width, or one that repeats one of the last five at about the same
// place (text drawn twice to look bold), is dropped; one off the line's
// last object by over half the wider of their facing glyphs starts a new
// line; else it goes into the line in order of where it starts.
func (ip *interp) end() {
	g := ip.glyphs[ip.cur:]
	if len(g) == 0 {
		return
	}
	o := textObj{
		g0: ip.cur, g1: len(ip.glyphs), c0: ip.curC, c1: len(ip.codes),
		x: g[0].x, y: g[0].y, fsize: ip.gs.size, look: ip.obj,
		firstW: math.Abs(g[0].w / 1000 * ip.obj.size), lastW: math.Abs(g[len(g)-1].w / 1000 * ip.obj.size),
		minX: math.Inf(1), maxX: math.Inf(-1), minY: math.Inf(1), maxY: math.Inf(-1),
	}
	// Its box: the glyphs' advances along the baseline, from their cap
	// height above it to their descent below, where they have one (PDFium
	// boxes glyphs by their outlines, which decides whether text drawn
	// mirrored over itself repeats it). One string's glyphs share their
	// direction and size.
	desc := 0.02 // round glyphs overshoot the baseline
	for k := range g {
		o.minX, o.maxX = min(o.minX, g[k].x, g[k].ex), max(o.maxX, g[k].x, g[k].ex)
		o.minY, o.maxY = min(o.minY, g[k].y, g[k].ey), max(o.maxY, g[k].y, g[k].ey)
		if g[k].desc {
			desc = 0.2
		}
	}
	px, py := o.look.vx*o.look.size, o.look.vy*o.look.size
	o.minX += min(-desc*px, 0.72*px)
	o.maxX += max(-desc*px, 0.72*px)
	o.minY += min(-desc*py, 0.72*py)
	o.maxY += max(-desc*py, 0.72*py)
	if o.maxX-o.minX < 1e-4 || o.look.size == 0 || ip.repeats(&o) {
		ip.glyphs, ip.codes = ip.glyphs[:ip.cur], ip.codes[:ip.curC]
		return
	}
	ip.recent[ip.nrec%len(ip.recent)] = o
	ip.nrec++
	if n := len(ip.line); n > 0 {
		prev := &ip.line[n-1]
		if math.Abs(o.y-prev.y) > max(prev.lastW, o.firstW)/2 {
			ip.flush()
			// Only this object's glyphs are still needed.
			k := copy(ip.glyphs, ip.glyphs[o.g0:o.g1])
			ip.glyphs = ip.glyphs[:k]
			o.g0, o.g1 = 0, k
			ip.line = append(ip.line, o)
			return
		}
		i := n
		for i > 0 && o.x < ip.line[i-1].x {
			i--
		}
		ip.line = slices.Insert(ip.line, i, o)
		return
	}
	ip.line = append(ip.line, o)
}

// repeats reports whether o repeats one of the last five text objects, as
// PDFium's IsSameTextObject decides: the same codes in the same font
// size, their boxes mostly overlapping, within 0.9 of a glyph across and
// an eighth of the size up or down.
func (ip *interp) repeats(o *textObj) bool {
	for k := range min(ip.nrec, len(ip.recent)) {
		p := &ip.recent[(ip.nrec-1-k)%len(ip.recent)]
		if p.fsize != o.fsize || !bytes.Equal(ip.codes[p.c0:p.c1], ip.codes[o.c0:o.c1]) {
			continue
		}
		l, r := max(p.minX, o.minX), min(p.maxX, o.maxX)
		if r <= l || min(p.maxY, o.maxY) <= max(p.minY, o.minY) {
			continue
		}
		w := o.maxX - o.minX
		if math.Abs((r-l)-w) > w/2 {
			continue
		}
		size := max(p.maxY-p.minY, p.maxX-p.minX, math.Abs(p.fsize))
		if math.Abs(o.x-p.x) <= 0.9*p.lastW && math.Abs(o.y-p.y) <= size/8 {
			return true
		}
	}
	return false
}

// flush writes the line's text objects.
func (ip *interp) flush() {
	for k := range ip.line {
		o := &ip.line[k]
		for i := o.g0; i < o.g1; i++ {
			ip.emit(&ip.glyphs[i], &o.look, i == o.g0, k == 0 && i == o.g0)
		}
	}
	ip.line = ip.line[:0]
}
