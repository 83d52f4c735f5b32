package pdftext

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
)

// font is what text extraction needs of a font: each code's text and
// width.
type font struct {
	cid bool // a Type0 font with Identity-H: two-byte codes
	// A simple font's text and width (thousandths of an em) by code; a
	// code in bad has no known text.
	text  [256]string
	width [256]float64
	bad   [4]uint64
	// A Type0 font's ToUnicode map and widths by code (its CID).
	cmap  *cmap
	cidW  map[int]float64
	cidDW float64
	seen  map[int]string // codes looked up in cmap
	// spaceW is the width of the font's space, 0 when it has none.
	spaceW float64
}

// cidText is a Type0 font's text for code c, false when its CMap lacks it.
func (f *font) cidText(c int) (string, bool) {
	if t, ok := f.seen[c]; ok {
		return t, true
	}
	t, ok := f.cmap.lookup(c)
	if ok && rtl(t) {
		return "", false
	}
	if ok {
		t = unligate(t)
		f.seen[c] = t
	}
	return t, ok
}

// rtl reports whether s holds right-to-left letters (Hebrew, Arabic,
// Syriac, Thaana, N'Ko and their presentation forms), which PDFium
// reorders (bidi) and this reader does not: such text goes to PDFium.
func rtl(s string) bool {
	for _, r := range s {
		if r >= 0x0590 && r <= 0x08FF || r >= 0xFB1D && r <= 0xFDFF || r >= 0xFE70 && r <= 0xFEFF || r >= 0x10800 && r <= 0x10FFF || r >= 0x1E800 && r <= 0x1EFFF {
			return true
		}
	}
	return false
}

// unligate spells out the Latin ligatures U+FB00 to U+FB06 (ﬁ as "fi"),
// and writes a no-break space as a space and a soft hyphen as a hyphen, as
// PDFium's text extraction does.
func unligate(s string) string {
	if strings.IndexFunc(s, func(r rune) bool { return r >= 0xFB00 && r <= 0xFB06 || r == 0xA0 || r == 0xAD }) < 0 {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch r {
		case 0xFB00:
			b.WriteString("ff")
		case 0xFB01:
			b.WriteString("fi")
		case 0xFB02:
			b.WriteString("fl")
		case 0xFB03:
			b.WriteString("ffi")
		case 0xFB04:
			b.WriteString("ffl")
		case 0xFB05, 0xFB06:
			b.WriteString("st")
		case 0xA0:
			b.WriteByte(' ')
		case 0xAD:
			b.WriteByte('-')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func (f *font) isBad(c byte) bool { return f.bad[c>>6]&(1<<(c&63)) != 0 }
func (f *font) setBad(c byte)     { f.bad[c>>6] |= 1 << (c & 63) }

// fontOf loads the font v (a reference or dictionary), cached by object.
func (r *reader) fontOf(v any) (*font, error) {
	rf, isRef := v.(ref)
	if isRef {
		if f, ok := r.fonts[rf.num]; ok {
			if f == nil {
				return nil, errors.New("font loops")
			}
			return f, nil
		}
		r.fonts[rf.num] = nil
	}
	d, err := r.dictOf(v)
	if err != nil {
		return nil, err
	}
	if d == nil {
		return nil, errors.New("a font is missing")
	}
	f, err := r.loadFont(d)
	if err != nil {
		return nil, err
	}
	// Each font's maps are bounded, and so are all of them together (a
	// font given as a dictionary, not a reference, is loaded again at
	// each use, and counted again).
	n := len(f.cidW)
	if f.cmap != nil {
		n += len(f.cmap.single) + len(f.cmap.ranges)
	}
	if r.fontEntries += n; r.fontEntries > maxFontEntries {
		return nil, fmt.Errorf("fonts whose maps hold over %d entries", maxFontEntries)
	}
	r.fontBytes += int64(n) * fontEntryCost
	if err := r.grow(); err != nil {
		return nil, err
	}
	if isRef {
		r.fonts[rf.num] = f
	}
	return f, nil
}

func (r *reader) loadFont(d dict) (*font, error) {
	sub, _ := d[name("Subtype")].(name)
	switch sub {
	case "Type1", "TrueType", "MMType1":
		return r.simpleFont(d)
	case "Type0":
		return r.type0Font(d)
	}
	return nil, fmt.Errorf("%s font", sub)
}

// baseFont is a font's /BaseFont without a subset tag ("ABCDEF+").
func baseFont(d dict) string {
	b, _ := d[name("BaseFont")].(name)
	s := string(b)
	if len(s) > 7 && s[6] == '+' {
		s = s[7:]
	}
	return s
}

// toUnicode parses a font's /ToUnicode CMap; nil when it has none.
func (r *reader) toUnicode(d dict) (*cmap, error) {
	v, ok := d[name("ToUnicode")]
	if !ok {
		return nil, nil
	}
	o, err := r.resolve(v)
	if err != nil {
		return nil, err
	}
	switch o := o.(type) {
	case name:
		if o == "Identity-H" || o == "Identity-V" {
			return nil, fmt.Errorf("ToUnicode %s", o)
		}
		return nil, fmt.Errorf("ToUnicode %s", o)
	case *stream:
		data, err := r.decode(o)
		if err != nil {
			return nil, err
		}
		return parseCMap(data)
	}
	return nil, errors.New("bad /ToUnicode")
}

// simpleFont loads a Type1, MMType1 or TrueType font: its text from its
// ToUnicode CMap and, for codes it lacks, its encoding, as PDFium takes
// them.
func (r *reader) simpleFont(d dict) (*font, error) {
	f := &font{}
	sub, _ := d[name("Subtype")].(name)
	base := baseFont(d)
	fd, err := r.dictOf(d[name("FontDescriptor")])
	if err != nil {
		return nil, err
	}
	flags := int64(0)
	embedded := false
	if fd != nil {
		flags, _ = fd[name("Flags")].(int64)
		_, f1 := fd[name("FontFile")]
		_, f2 := fd[name("FontFile2")]
		_, f3 := fd[name("FontFile3")]
		embedded = f1 || f2 || f3
	}
	symbolic := flags&4 != 0
	std := std14(base)
	// A symbolic font's codes mean what its font program says, whatever
	// encoding it names: only /Differences and ToUnicode tell its text.
	symbolFont := symbolic || base == "Symbol" || base == "ZapfDingbats" || strings.HasPrefix(base, "Symbol,") || strings.HasPrefix(base, "ZapfDingbats")

	// The base encoding, as PDFium's CPDF_SimpleFont::LoadPDFEncoding.
	var enc *[256]rune
	builtin := func() *[256]rune {
		switch {
		case symbolFont:
			return nil
		case std != "" && !embedded && sub != "TrueType" && !symbolic:
			return &standard
		case !embedded:
			return &winAnsi
		}
		return nil // the font program's own encoding
	}
	encName := func(n name) (*[256]rune, bool) {
		switch n {
		case "WinAnsiEncoding":
			return &winAnsi, true
		case "MacRomanEncoding":
			return &macRoman, true
		case "StandardEncoding":
			return &standard, true
		}
		return nil, false
	}
	var diffs array
	e, err := r.resolve(d[name("Encoding")])
	if err != nil {
		return nil, err
	}
	switch e := e.(type) {
	case nil:
		enc = builtin()
	case name:
		if !symbolFont {
			var ok bool
			if enc, ok = encName(e); !ok {
				return nil, fmt.Errorf("encoding %s", e)
			}
		}
	case dict:
		if be, ok := e[name("BaseEncoding")].(name); ok && !symbolFont {
			if enc, ok = encName(be); !ok {
				return nil, fmt.Errorf("encoding %s", be)
			}
		} else if !symbolFont {
			enc = builtin()
			if enc == nil && (!embedded || sub == "TrueType") {
				enc = &standard
			}
		}
		dv, err := r.resolve(e[name("Differences")])
		if err != nil {
			return nil, err
		}
		diffs, _ = dv.(array)
	default:
		return nil, errors.New("bad /Encoding")
	}
	var names [256]string
	code := -1
	for _, v := range diffs {
		switch v := v.(type) {
		case int64:
			if v < 0 || v > 255 {
				return nil, errors.New("bad /Differences")
			}
			code = int(v)
		case name:
			if code < 0 || code > 255 {
				code = 256 // past the end: ignored
				continue
			}
			names[code] = string(v)
			code++
		}
	}
	for c := range 256 {
		switch {
		case names[c] != "":
			if u, ok := glyphUnicode(names[c]); ok {
				f.text[c] = string(u)
			} else {
				f.setBad(byte(c))
			}
		case enc != nil && enc[c] != 0:
			f.text[c] = string(enc[c])
		default:
			f.setBad(byte(c))
		}
	}
	cm, err := r.toUnicode(d)
	if err != nil {
		return nil, err
	}
	if cm != nil {
		for c := range 256 {
			if t, ok := cm.lookup(c); ok && t != "" {
				f.text[c] = t
				f.bad[c>>6] &^= 1 << (c & 63)
			}
		}
	}

	// Widths: /Widths from /FirstChar, else the standard 14's own.
	missing := 0.0
	if fd != nil {
		missing = num(fd[name("MissingWidth")])
	}
	ws, err := r.resolve(d[name("Widths")])
	if err != nil {
		return nil, err
	}
	if wa, ok := ws.(array); ok {
		first := int(num(d[name("FirstChar")]))
		for c := range 256 {
			f.width[c] = missing
			if i := c - first; i >= 0 && i < len(wa) {
				w, err := r.resolve(wa[i])
				if err != nil {
					return nil, err
				}
				f.width[c] = num(w)
			}
		}
	} else {
		tab := stdWidths[std]
		for c := range 256 {
			switch {
			case std == "Courier":
				f.width[c] = 600
			case tab != nil:
				f.width[c] = 500
				if rs := []rune(f.text[c]); len(rs) == 1 {
					if wc, ok := winAnsiCode[rs[0]]; ok {
						f.width[c] = float64(tab[wc])
					}
				}
			default:
				f.width[c] = 500 // an average: spacing relies on explicit spaces
			}
		}
	}
	for c := range f.text {
		if rtl(f.text[c]) {
			f.setBad(byte(c))
		}
		f.text[c] = unligate(f.text[c])
		if f.text[c] == " " && f.spaceW == 0 && !f.isBad(byte(c)) {
			f.spaceW = f.width[c]
		}
	}
	return f, nil
}

// std14 names the standard font whose widths a font without /Widths has:
// "Helvetica", "Times-Bold", …, "Courier", or "".
func std14(base string) string {
	b := strings.ToLower(base)
	bold := strings.Contains(b, "bold")
	italic := strings.Contains(b, "italic") || strings.Contains(b, "oblique")
	switch {
	case strings.HasPrefix(b, "courier"):
		return "Courier"
	case strings.HasPrefix(b, "helvetica") || strings.HasPrefix(b, "arial"):
		switch {
		case bold && italic:
			return "Helvetica-BoldOblique"
		case bold:
			return "Helvetica-Bold"
		case italic:
			return "Helvetica-Oblique"
		}
		return "Helvetica"
	case strings.HasPrefix(b, "times"):
		switch {
		case bold && italic:
			return "Times-BoldItalic"
		case bold:
			return "Times-Bold"
		case italic:
			return "Times-Italic"
		}
		return "Times-Roman"
	}
	return ""
}

// winAnsiCode is WinAnsiEncoding's code for a rune.
var winAnsiCode = func() map[rune]byte {
	m := map[rune]byte{}
	for c, u := range winAnsi {
		if u != 0 {
			m[u] = byte(c)
		}
	}
	return m
}()

// glyphUnicode maps a glyph name to its character as PDFium does (through
// FreeType's table): the Adobe Glyph List's names, uniXXXX and uXXXX[XX];
// a suffix after a dot is dropped.
func glyphUnicode(g string) (rune, bool) {
	if i := strings.IndexByte(g, '.'); i > 0 {
		g = g[:i]
	}
	if u, ok := glyphNames[g]; ok {
		return u, true
	}
	if strings.HasPrefix(g, "uni") && len(g) >= 7 {
		if v, err := strconv.ParseUint(g[3:7], 16, 32); err == nil {
			return rune(v), true
		}
	}
	if strings.HasPrefix(g, "u") && len(g) >= 5 && len(g) <= 7 {
		if v, err := strconv.ParseUint(g[1:], 16, 32); err == nil && v <= 0x10FFFF {
			return rune(v), true
		}
	}
	return 0, false
}

// num is a number object's value, 0 for anything else.
func num(v any) float64 {
	switch v := v.(type) {
	case int64:
		return float64(v)
	case float64:
		return v
	}
	return 0
}

// type0Font loads a Type0 font with Identity-H codes and a ToUnicode
// CMap; anything else goes to PDFium.
func (r *reader) type0Font(d dict) (*font, error) {
	f := &font{cid: true, cidDW: 1000, seen: map[int]string{}}
	enc, err := r.resolve(d[name("Encoding")])
	if err != nil {
		return nil, err
	}
	if enc != name("Identity-H") {
		return nil, fmt.Errorf("Type0 font with encoding %v", enc)
	}
	cm, err := r.toUnicode(d)
	if err != nil {
		return nil, err
	}
	if cm == nil {
		return nil, errors.New("Type0 font without ToUnicode")
	}
	f.cmap = cm
	df, err := r.resolve(d[name("DescendantFonts")])
	if err != nil {
		return nil, err
	}
	dfa, ok := df.(array)
	if !ok || len(dfa) != 1 {
		return nil, errors.New("bad /DescendantFonts")
	}
	cf, err := r.dictOf(dfa[0])
	if err != nil || cf == nil {
		return nil, errors.New("bad /DescendantFonts")
	}
	if v, ok := cf[name("DW")]; ok {
		f.cidDW = num(v)
	}
	wv, err := r.resolve(cf[name("W")])
	if err != nil {
		return nil, err
	}
	w, _ := wv.(array)
	f.cidW = map[int]float64{}
	for i := 0; i < len(w); {
		first, ok := w[i].(int64)
		if !ok || i+1 >= len(w) {
			return nil, errors.New("bad /W")
		}
		next, err := r.resolve(w[i+1])
		if err != nil {
			return nil, err
		}
		if ws, ok := next.(array); ok {
			for j, x := range ws {
				if len(f.cidW) >= 1<<16 {
					return nil, errors.New("bad /W")
				}
				f.cidW[int(first)+j] = num(x)
			}
			i += 2
			continue
		}
		if i+2 >= len(w) {
			return nil, errors.New("bad /W")
		}
		last, ok := next.(int64)
		if !ok || last < first || last-first > 1<<16 || first < 0 {
			return nil, errors.New("bad /W")
		}
		wd := num(w[i+2])
		for c := first; c <= last; c++ {
			if len(f.cidW) >= 1<<16 {
				return nil, errors.New("bad /W")
			}
			f.cidW[int(c)] = wd
		}
		i += 3
	}
	if c, ok := cm.reverse(" "); ok {
		f.spaceW = f.cidDW
		if w, ok := f.cidW[c]; ok {
			f.spaceW = w
		}
	}
	return f, nil
}

// cmap is a ToUnicode CMap: single codes and ranges of codes to text.
type cmap struct {
	single map[int]string
	ranges []cmapRange
}

type cmapRange struct {
	lo, hi int
	dst    []rune   // the first code's text; the last rune counts up
	arr    []string // or one text per code
}

func (m *cmap) lookup(c int) (string, bool) {
	if t, ok := m.single[c]; ok {
		return t, true
	}
	// The ranges are sorted and apart (parseCMap checks).
	i := sort.Search(len(m.ranges), func(i int) bool { return m.ranges[i].hi >= c })
	if i == len(m.ranges) || c < m.ranges[i].lo {
		return "", false
	}
	rg := &m.ranges[i]
	if rg.arr != nil {
		if i := c - rg.lo; i < len(rg.arr) {
			return rg.arr[i], true
		}
		return "", false
	}
	if len(rg.dst) == 0 {
		return "", false
	}
	d := append([]rune(nil), rg.dst...)
	d[len(d)-1] += rune(c - rg.lo)
	return string(d), true
}

// reverse is the lowest code mapped to text t.
func (m *cmap) reverse(t string) (int, bool) {
	best, found := 0, false
	take := func(c int) {
		if !found || c < best {
			best, found = c, true
		}
	}
	for c, s := range m.single {
		if s == t {
			take(c)
		}
	}
	for _, rg := range m.ranges {
		if rg.arr != nil {
			for i, s := range rg.arr {
				if s == t && rg.lo+i <= rg.hi {
					take(rg.lo + i)
					break
				}
			}
			continue
		}
		// Only the last rune of a range's text counts up.
		tr := []rune(t)
		if len(tr) != len(rg.dst) || len(tr) == 0 || string(tr[:len(tr)-1]) != string(rg.dst[:len(rg.dst)-1]) {
			continue
		}
		if d := int(tr[len(tr)-1] - rg.dst[len(rg.dst)-1]); d >= 0 && d <= rg.hi-rg.lo {
			take(rg.lo + d)
		}
	}
	return best, found
}

// parseCMap reads the bfchar and bfrange sections of a ToUnicode CMap.
func parseCMap(data []byte) (*cmap, error) {
	m := &cmap{single: map[int]string{}}
	p := parser{b: data}
	var ops []any
	entries := 0
	for {
		at := p.pos
		o, err := p.object()
		if p.pos == at {
			p.pos++
		}
		if errors.Is(err, errEOF) || p.pos >= len(data) && err != nil {
			break
		}
		var kw *keywordError
		if errors.As(err, &kw) {
			switch kw.kw {
			case "usecmap":
				return nil, errors.New("ToUnicode CMap with usecmap")
			case "endbfchar":
				for i := 0; i+1 < len(ops); i += 2 {
					src, ok1 := ops[i].(string)
					dst, ok2 := ops[i+1].(string)
					if !ok1 || !ok2 || len(src) == 0 || len(src) > 4 {
						return nil, errors.New("bad bfchar")
					}
					m.single[codeOf(src)] = utf16String(dst)
				}
				entries += len(ops) / 2
			case "endbfrange":
				for i := 0; i+2 < len(ops); i += 3 {
					lo, ok1 := ops[i].(string)
					hi, ok2 := ops[i+1].(string)
					if !ok1 || !ok2 || len(lo) == 0 || len(lo) > 4 || len(hi) == 0 || len(hi) > 4 {
						return nil, errors.New("bad bfrange")
					}
					rg := cmapRange{lo: codeOf(lo), hi: codeOf(hi)}
					if rg.hi < rg.lo || rg.hi-rg.lo > 0xFFFF {
						return nil, errors.New("bad bfrange")
					}
					switch d := ops[i+2].(type) {
					case string:
						rg.dst = []rune(utf16String(d))
					case array:
						for _, s := range d {
							t, _ := s.(string)
							rg.arr = append(rg.arr, utf16String(t))
						}
					default:
						return nil, errors.New("bad bfrange")
					}
					m.ranges = append(m.ranges, rg)
				}
				entries += len(ops) / 3
			}
			if entries > 1<<17 || len(m.ranges) > 1<<14 {
				return nil, errors.New("ToUnicode CMap too large")
			}
			ops = ops[:0]
			continue
		}
		if err != nil {
			// PostScript procedures and the like: skip a byte and go on.
			continue
		}
		if len(ops) < 1<<16 {
			ops = append(ops, o)
		}
	}
	slices.SortStableFunc(m.ranges, func(a, b cmapRange) int { return a.lo - b.lo })
	for i := 1; i < len(m.ranges); i++ {
		if m.ranges[i].lo <= m.ranges[i-1].hi {
			return nil, errors.New("ToUnicode CMap with overlapping bfranges")
		}
	}
	return m, nil
}

func codeOf(s string) int {
	c := 0
	for i := 0; i < len(s); i++ {
		c = c<<8 | int(s[i])
	}
	return c
}

// utf16String decodes a CMap destination, UTF-16BE.
func utf16String(s string) string {
	if len(s) == 1 {
		return string(rune(s[0]))
	}
	u := make([]uint16, 0, len(s)/2)
	for i := 0; i+1 < len(s); i += 2 {
		u = append(u, uint16(s[i])<<8|uint16(s[i+1]))
	}
	return string(utf16.Decode(u))
}
