// Package half converts between float32 and IEEE 754 half precision
// (fp16), the precision braid stores embeddings in: meta.db's waiting
// embeddings (package index) and the graph file's vectors (package
// vector).
package half

import "math"

// To rounds f to the nearest IEEE 754 half (ties to even); beyond the
// half range it gives ±Inf, and NaN stays NaN.
func To(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int(b>>23) & 0xff
	man := b & 0x7fffff
	switch {
	case exp == 0xff: // Inf or NaN
		if man != 0 {
			return sign | 0x7e00
		}
		return sign | 0x7c00
	case exp-127 > 15:
		return sign | 0x7c00
	case exp-127 >= -14: // a normal half
		h := uint32(exp-127+15)<<10 | man>>13
		rest := man & 0x1fff
		if rest > 0x1000 || rest == 0x1000 && h&1 == 1 {
			h++ // may carry into the exponent, up to Inf: still right
		}
		return sign | uint16(h)
	case exp-127 < -25: // under half the smallest subnormal
		return sign
	}
	// A subnormal half: the value is m·2⁻²⁴ for the mantissa with its
	// hidden bit, shifted right.
	m := man | 0x800000
	shift := uint(-14-(exp-127)) + 13
	h := m >> shift
	rest := m & (1<<shift - 1)
	half := uint32(1) << (shift - 1)
	if rest > half || rest == half && h&1 == 1 {
		h++
	}
	return sign | uint16(h)
}

// From widens an IEEE half to float32, exactly.
func From(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	man := uint32(h & 0x3ff)
	switch {
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | man<<13)
	case exp == 0:
		if man == 0 {
			return math.Float32frombits(sign)
		}
		f := float32(man) / (1 << 24)
		if sign != 0 {
			f = -f
		}
		return f
	}
	return math.Float32frombits(sign | (exp-15+127)<<23 | man<<13)
}
