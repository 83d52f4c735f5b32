package tokenizer

import (
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"unicode/utf8"
)

// precompiled is the Precompiled normalizer: SentencePiece's compiled
// normalization rules (nmt_nfkc for XLM-R), as tokenizer.json carries them
// in precompiled_charsmap. The blob is a little-endian uint32 giving the
// size in bytes of a darts-clone double-array trie, the trie's 32-bit
// units, then NUL-terminated replacement strings that the trie's values
// point into.
//
// It rewrites text as Hugging Face's Precompiled normalizer does: one
// extended grapheme cluster at a time, a cluster of fewer than 6 bytes is
// replaced whole by the replacement of its shortest prefix in the trie, if
// any has one (so "Ａ" + U+0301 becomes "A", the accent lost); otherwise
// each character of the cluster is replaced by its own replacement, or kept.
type precompiled struct {
	units      []uint32
	normalized []byte
	// ascii holds the replacement of each single ASCII character, in
	// normalized: start offset, and -1 when it has none.
	ascii [utf8.RuneSelf]int32
}

func parsePrecompiled(charsmap string) (*precompiled, error) {
	blob, err := base64.StdEncoding.DecodeString(charsmap)
	if err != nil {
		return nil, fmt.Errorf("tokenizer: Precompiled precompiled_charsmap: %w", err)
	}
	if len(blob) < 4 {
		return nil, fmt.Errorf("tokenizer: Precompiled precompiled_charsmap has %d bytes, want at least 4", len(blob))
	}
	size := int(binary.LittleEndian.Uint32(blob))
	if size%4 != 0 || size > len(blob)-4 {
		return nil, fmt.Errorf("tokenizer: Precompiled trie of %d bytes in a charsmap of %d, want a multiple of 4 that fits", size, len(blob))
	}
	p := &precompiled{units: make([]uint32, size/4), normalized: blob[4+size:]}
	for i := range p.units {
		p.units[i] = binary.LittleEndian.Uint32(blob[4+4*i:])
	}
	for c := range p.ascii {
		p.ascii[c] = p.find([]byte{byte(c)})
	}
	return p, nil
}

// find returns the offset in p.normalized of the replacement of the
// shortest prefix of key that the trie holds, or -1. A damaged trie reads
// as holding nothing more.
func (p *precompiled) find(key []byte) int32 {
	u := p.units
	if len(u) == 0 {
		return -1
	}
	pos := unitOffset(u[0])
	for _, c := range key {
		pos ^= uint32(c)
		if int(pos) >= len(u) {
			return -1
		}
		unit := u[pos]
		if unit&(1<<31|0xFF) != uint32(c) { // label
			return -1
		}
		pos ^= unitOffset(unit)
		if unit>>8&1 == 1 { // has a leaf: a key ends here
			if int(pos) >= len(u) {
				return -1
			}
			v := int32(u[pos] & (1<<31 - 1))
			if int(v) >= len(p.normalized) {
				return -1
			}
			return v
		}
	}
	return -1
}

func unitOffset(unit uint32) uint32 {
	return unit >> 10 << ((unit & (1 << 9)) >> 6)
}

// replacement returns the NUL-terminated string at offset v.
func (p *precompiled) replacement(v int32) []byte {
	s := p.normalized[v:]
	for i, c := range s {
		if c == 0 {
			return s[:i]
		}
	}
	return s
}

// append appends the normalized form of s, valid UTF-8, to dst.
func (p *precompiled) append(dst, s []byte) []byte {
	for i := 0; i < len(s); {
		// A run of ASCII characters that map to themselves, each followed
		// by ASCII (or nothing), goes through as it is.
		j := i
		for j < len(s) && s[j] < utf8.RuneSelf && p.ascii[s[j]] < 0 {
			j++
		}
		if j < len(s) && s[j] >= utf8.RuneSelf && j > i {
			j-- // the last one may start a cluster with what follows
		}
		if j > i {
			dst = append(dst, s[i:j]...)
			i = j
			continue
		}
		c := s[i]
		// An ASCII character followed by ASCII (or nothing) is a cluster of
		// its own, CR LF aside.
		if c < utf8.RuneSelf && (i+1 == len(s) || s[i+1] < utf8.RuneSelf && (c != '\r' || s[i+1] != '\n')) {
			if v := p.ascii[c]; v >= 0 {
				dst = append(dst, p.replacement(v)...)
			} else {
				dst = append(dst, c)
			}
			i++
			continue
		}
		end := graphemeEnd(s, i)
		if end-i < 6 {
			if v := p.find(s[i:end]); v >= 0 {
				dst = append(dst, p.replacement(v)...)
				i = end
				continue
			}
		}
		for i < end {
			_, size := utf8.DecodeRune(s[i:])
			if v := p.find(s[i : i+size]); v >= 0 {
				dst = append(dst, p.replacement(v)...)
			} else {
				dst = append(dst, s[i:i+size]...)
			}
			i += size
		}
	}
	return dst
}
