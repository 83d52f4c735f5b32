package half

import (
	"math"
	"math/rand"
	"testing"
)

// Every half widens exactly and narrows back to itself; every float32
// narrows to the nearest half (ties to even).
func TestHalf(t *testing.T) {
	for h := range 1 << 16 {
		f := From(uint16(h))
		if math.IsNaN(float64(f)) {
			if To(f)&0x7c00 != 0x7c00 || To(f)&0x3ff == 0 {
				t.Fatalf("NaN %#04x narrows to %#04x, not a NaN", h, To(f))
			}
			continue
		}
		if got := To(f); got != uint16(h) {
			t.Fatalf("half %#04x → %g → %#04x", h, f, got)
		}
	}
	r := rand.New(rand.NewSource(1))
	for range 200000 {
		var f float32
		switch r.Intn(3) {
		case 0:
			f = float32(r.NormFloat64() * 0.05) // a unit vector's values
		case 1:
			f = float32(r.NormFloat64() * 1e-5) // subnormal halves
		default:
			f = math.Float32frombits(r.Uint32())
		}
		if math.IsNaN(float64(f)) || math.Abs(float64(f)) > 65504 {
			continue
		}
		h := To(f)
		d := math.Abs(float64(f) - float64(From(h)))
		for _, n := range []uint16{h - 1, h + 1} {
			if n&0x7c00 == 0x7c00 || (n^h)&0x8000 != 0 {
				continue
			}
			if dn := math.Abs(float64(f) - float64(From(n))); dn < d || dn == d && h&1 == 1 {
				t.Fatalf("%g narrows to %#04x (%g), but %#04x (%g) is nearer or the even tie", f, h, From(h), n, From(n))
			}
		}
	}
}
