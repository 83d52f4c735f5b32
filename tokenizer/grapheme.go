package tokenizer

import "unicode/utf8"

// Grapheme_Cluster_Break values, as packed in graphemeRanges' low nibble.
const (
	gcbOther = iota
	gcbCR
	gcbLF
	gcbControl
	gcbExtend
	gcbZWJ
	gcbRI
	gcbPrepend
	gcbSpacingMark
	gcbL
	gcbV
	gcbT
	gcbLV
	gcbLVT
)

// Indic_Conjunct_Break values, packed in bits 5 and 6.
const (
	incbNone = iota
	incbConsonant
	incbExtend
	incbLinker
)

// graphemeRange gives the packed properties p of the code points lo..hi.
type graphemeRange struct {
	lo, hi rune
	p      uint8
}

const pictBit = 1 << 4

// graphemeProps returns the packed grapheme properties of r:
// gcb | extended_pictographic<<4 | incb<<5.
func graphemeProps(r rune) uint8 {
	if r < utf8.RuneSelf {
		switch {
		case r == '\r':
			return gcbCR
		case r == '\n':
			return gcbLF
		case r < 0x20 || r == 0x7F:
			return gcbControl
		}
		return gcbOther
	}
	if hangulFirst <= r && r <= hangulLast {
		if (r-hangulFirst)%28 == 0 {
			return gcbLV
		}
		return gcbLVT
	}
	t := graphemeRanges
	lo, hi := 0, len(t)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		switch {
		case r < t[m].lo:
			hi = m
		case r > t[m].hi:
			lo = m + 1
		default:
			return t[m].p
		}
	}
	return gcbOther
}

// graphemeEnd returns the end of the extended grapheme cluster (UAX #29)
// that starts at s[i]. s must be valid UTF-8.
func graphemeEnd(s []byte, i int) int {
	r, size := utf8.DecodeRune(s[i:])
	p := graphemeProps(r)
	prev := p & 0xF
	ri := 0 // regional indicators in a row, ending at prev
	if prev == gcbRI {
		ri = 1
	}
	// pict: 1 after ExtPict Extend*, 2 after ExtPict Extend* ZWJ (GB11).
	pict := 0
	if p&pictBit != 0 {
		pict = 1
	}
	// conj: 1 after InCB Consonant [Extend]*, 2 once a Linker followed it
	// with only Extend and Linker since (GB9c).
	conj := 0
	if p>>5 == incbConsonant {
		conj = 1
	}
	j := i + size
	for j < len(s) {
		r, size = utf8.DecodeRune(s[j:])
		p = graphemeProps(r)
		cur, incb, isPict := p&0xF, p>>5, p&pictBit != 0
		if !joins(prev, cur, incb, isPict, ri, pict, conj) {
			break
		}
		if cur == gcbRI {
			ri++
		} else {
			ri = 0
		}
		switch {
		case isPict:
			pict = 1
		case cur == gcbExtend && pict == 1:
		case cur == gcbZWJ && pict == 1:
			pict = 2
		default:
			pict = 0
		}
		switch {
		case incb == incbConsonant:
			conj = 1
		case incb == incbLinker && conj > 0:
			conj = 2
		case incb == incbExtend && conj > 0:
		default:
			conj = 0
		}
		prev = cur
		j += size
	}
	return j
}

// joins reports whether no cluster boundary falls between a character of
// class prev and the next one, of class cur (rules GB3 to GB13).
func joins(prev, cur, incb uint8, isPict bool, ri, pict, conj int) bool {
	switch {
	case prev == gcbCR && cur == gcbLF: // GB3
		return true
	case prev == gcbCR || prev == gcbLF || prev == gcbControl: // GB4
		return false
	case cur == gcbCR || cur == gcbLF || cur == gcbControl: // GB5
		return false
	case prev == gcbL && (cur == gcbL || cur == gcbV || cur == gcbLV || cur == gcbLVT): // GB6
		return true
	case (prev == gcbLV || prev == gcbV) && (cur == gcbV || cur == gcbT): // GB7
		return true
	case (prev == gcbLVT || prev == gcbT) && cur == gcbT: // GB8
		return true
	case cur == gcbExtend || cur == gcbZWJ || cur == gcbSpacingMark: // GB9, GB9a
		return true
	case prev == gcbPrepend: // GB9b
		return true
	case incb == incbConsonant && conj == 2: // GB9c
		return true
	case prev == gcbZWJ && isPict && pict == 2: // GB11
		return true
	case prev == gcbRI && cur == gcbRI: // GB12, GB13
		return ri%2 == 1
	}
	return false // GB999
}
