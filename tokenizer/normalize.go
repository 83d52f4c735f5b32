package tokenizer

import "unicode/utf8"

//go:generate python3 ../tools/tokgolden/gentables.py

// runeRange is an inclusive range of code points in a generated table.
type runeRange struct{ lo, hi rune }

// runeMapping maps one code point to a replacement string.
type runeMapping struct {
	r rune
	s string
}

func inRanges(t []runeRange, r rune) bool {
	lo, hi := 0, len(t)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		switch {
		case r < t[m].lo:
			hi = m
		case r > t[m].hi:
			lo = m + 1
		default:
			return true
		}
	}
	return false
}

func lookupMapping(t []runeMapping, r rune) (string, bool) {
	lo, hi := 0, len(t)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		switch {
		case r < t[m].r:
			hi = m
		case r > t[m].r:
			lo = m + 1
		default:
			return t[m].s, true
		}
	}
	return "", false
}

// Hangul syllables decompose algorithmically (Unicode 3.12).
const (
	hangulFirst = 0xAC00
	hangulLast  = 0xD7A3
)

// normalizer is HF's BertNormalizer: clean_text, handle_chinese_chars,
// strip_accents (NFD, then drop nonspacing marks) and lowercase, applied
// in that order. Every step works character by character, which is what
// lets the generated per-character tables reproduce it.
type normalizer struct {
	clean, chinese, strip, lower bool
	// ascii is the whole pipeline for one ASCII input byte: -1 drops it,
	// anything else is the byte to write.
	ascii [128]int16
}

func newNormalizer(clean, chinese, strip, lower bool) *normalizer {
	n := &normalizer{clean: clean, chinese: chinese, strip: strip, lower: lower}
	for b := range n.ascii {
		r := rune(b)
		switch {
		case clean && inRanges(dropRanges, r):
			n.ascii[b] = -1
		case clean && inRanges(cleanSpaceRanges, r):
			n.ascii[b] = ' '
		case lower && 'A' <= r && r <= 'Z':
			n.ascii[b] = int16(r + 'a' - 'A')
		default:
			n.ascii[b] = int16(r)
		}
	}
	return n
}

// append appends the normalized form of s to dst. Invalid UTF-8 reads as
// U+FFFD, which clean_text drops.
func (n *normalizer) append(dst []byte, s string) []byte {
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if v := n.ascii[c]; v >= 0 {
				dst = append(dst, byte(v))
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if n.clean {
			if inRanges(dropRanges, r) {
				continue
			}
			if inRanges(cleanSpaceRanges, r) {
				dst = append(dst, ' ')
				continue
			}
		}
		if n.chinese && inRanges(chineseRanges, r) {
			dst = append(dst, ' ')
			dst = n.appendStripped(dst, r)
			dst = append(dst, ' ')
			continue
		}
		dst = n.appendStripped(dst, r)
	}
	return dst
}

// appendStripped applies strip_accents, then lowercase, to one character.
func (n *normalizer) appendStripped(dst []byte, r rune) []byte {
	if !n.strip {
		return n.appendLower(dst, r)
	}
	if inRanges(markRanges, r) {
		return dst
	}
	if hangulFirst <= r && r <= hangulLast {
		s := r - hangulFirst
		dst = n.appendLower(dst, 0x1100+s/588)
		dst = n.appendLower(dst, 0x1161+(s%588)/28)
		if t := s % 28; t != 0 {
			dst = n.appendLower(dst, 0x11A7+t)
		}
		return dst
	}
	if d, ok := lookupMapping(decompositions, r); ok {
		for _, c := range d {
			dst = n.appendLower(dst, c)
		}
		return dst
	}
	return n.appendLower(dst, r)
}

func (n *normalizer) appendLower(dst []byte, r rune) []byte {
	if n.lower {
		if r < utf8.RuneSelf {
			if 'A' <= r && r <= 'Z' {
				r += 'a' - 'A'
			}
			return append(dst, byte(r))
		}
		if l, ok := lookupMapping(lowercases, r); ok {
			return append(dst, l...)
		}
	}
	return utf8.AppendRune(dst, r)
}

// Character classes of the BERT pre-tokenizer.
const (
	classWord = iota
	classSpace
	classPunct
)

var asciiClass = func() (t [utf8.RuneSelf]uint8) {
	for b := range t {
		t[b] = runeClass(rune(b))
	}
	return t
}()

func runeClass(r rune) uint8 {
	switch {
	case inRanges(spaceRanges, r):
		return classSpace
	case inRanges(punctRanges, r):
		return classPunct
	}
	return classWord
}

// appendBertWords is HF's BertPreTokenizer followed by the WordPiece model:
// it splits normalized text s on whitespace, drops the whitespace, isolates
// every punctuation character and appends the ids of each piece to ids.
func (t *Tokenizer) appendBertWords(ids []int32, s []byte) []int32 {
	start, chars := 0, 0
	for i := 0; i < len(s); {
		var class uint8
		size := 1
		if c := s[i]; c < utf8.RuneSelf {
			class = asciiClass[c]
		} else {
			var r rune
			r, size = utf8.DecodeRune(s[i:])
			class = runeClass(r)
		}
		if class != classWord {
			if chars > 0 {
				ids = t.appendWordPiece(ids, s[start:i], chars)
			}
			if class == classPunct {
				ids = t.appendWordPiece(ids, s[i:i+size], 1)
			}
			chars = 0
			start = i + size
		} else {
			chars++
		}
		i += size
	}
	if chars > 0 {
		ids = t.appendWordPiece(ids, s[start:], chars)
	}
	return ids
}
