package vector

import (
	"math"
	"math/rand"
	"testing"

	"github.com/braidsearch/braid/internal/half"
	"github.com/viterin/vek/vek32"
)

// Every fp16 value decodes to a float32 that encodes back to it, and
// decodes in order: fromHalf is exact and monotonic over the finite ones.
func TestHalfRoundTrip(t *testing.T) {
	prev := float32(math.Inf(-1))
	for h := range 1 << 16 {
		f := half.From(uint16(h))
		if f != f {
			if half.To(f)&0x7c00 != 0x7c00 || half.To(f)&0x3ff == 0 {
				t.Errorf("NaN %#04x encodes as %#04x, want a NaN", h, half.To(f))
			}
			continue
		}
		if got := half.To(f); got != uint16(h) && !(f == 0 && got&0x7fff == 0) {
			t.Errorf("fp16 %#04x → %g → %#04x", h, f, got)
		}
	}
	// Positive finite values in code order increase.
	for h := range 0x7c00 {
		f := half.From(uint16(h))
		if h > 0 && f <= prev {
			t.Fatalf("fp16 %#04x = %g, not above %#04x = %g", h, f, h-1, prev)
		}
		prev = f
	}
	if half.From(0x3c00) != 1 || half.From(0xc000) != -2 || half.From(0x0001) != 1.0/(1<<24) || half.From(0x7bff) != 65504 {
		t.Error("fp16 1, -2, the least subnormal or the largest finite decode wrong")
	}
}

// toHalf rounds to the nearest fp16 value, ties to even, checked against
// a search of the two fp16 neighbours in float64.
func TestToHalfNearest(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for range 200000 {
		var f float32
		switch r.Intn(3) {
		case 0:
			f = float32(r.NormFloat64() * 0.05) // unit-vector values
		case 1:
			f = math.Float32frombits(r.Uint32()) // anything
		default:
			f = float32(r.NormFloat64() * 1e-6) // subnormal in fp16
		}
		if f != f || math.Abs(float64(f)) >= 65520 {
			continue
		}
		h := half.To(f)
		got := float64(half.From(h))
		d := math.Abs(got - float64(f))
		for _, n := range []uint16{h + 1, h - 1} {
			if n&0x7c00 == 0x7c00 || (n^h)&0x8000 != 0 {
				continue
			}
			nd := math.Abs(float64(half.From(n)) - float64(f))
			if nd < d || nd == d && h&1 == 1 {
				t.Fatalf("half.To(%g) = %#04x (%g), but %#04x (%g) is nearer or the even tie", f, h, got, n, half.From(n))
			}
		}
	}
	if half.To(70000) != 0x7c00 || half.To(-70000) != 0xfc00 {
		t.Error("values past fp16's range do not encode as ±Inf")
	}
}

// dotInt8 (with AVX2 where there is, and dotInt8Go) is the integer dot
// product, at every length around their steps, -128 (a damaged file's)
// and the extremes included; and a quantized dot product tracks the
// float one.
func TestDotInt8(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	for n := range 400 {
		a, b := make([]int8, n), make([]int8, n+3)
		var want int32
		for i := range b {
			b[i] = int8(r.Intn(256) - 128)
		}
		for i := range a {
			a[i] = int8(r.Intn(256) - 128)
			if n == 384 { // the largest sum
				a[i], b[i] = -128, -128
			}
			want += int32(a[i]) * int32(b[i])
		}
		if got := dotInt8(a, b); got != want {
			t.Errorf("n=%d: dotInt8 = %d, want %d", n, got, want)
		}
		if got := dotInt8Go(a, b); got != want {
			t.Errorf("n=%d: dotInt8Go = %d, want %d", n, got, want)
		}
	}
	const dim = 384
	ca, cb := make([]byte, codeBytes(dim)), make([]byte, codeBytes(dim))
	worst := 0.0
	for range 200 {
		u, v := unitVec(r, dim), unitVec(r, dim)
		quantize(ca, u)
		quantize(cb, v)
		approx := float64(dotInt8(int8s(ca[:dim]), int8s(cb[:dim]))) * float64(codeScale(ca, dim)) * float64(codeScale(cb, dim))
		worst = max(worst, math.Abs(approx-float64(vek32.Dot(u, v))))
	}
	// Each value is off by at most half a step, max|v|/254; summed over
	// 384 values of random sign that is about 1e-3.
	if worst > 0.005 {
		t.Errorf("quantized dot products off by up to %.4f, want under 0.005", worst)
	}
	quantize(ca, make([]float32, dim))
	if codeScale(ca, dim) != 0 {
		t.Error("the code of a zero vector has a scale")
	}
}

// TestFromHalfs checks fromHalfs (F16C where the processor has it) against
// the table for every fp16 value, at lengths with and without a tail: the
// widening is exact, so the float32s must be the same bits (a NaN stays a
// NaN).
func TestFromHalfs(t *testing.T) {
	all := make([]uint16, 1<<16)
	for i := range all {
		all[i] = uint16(i)
	}
	for _, n := range []int{0, 3, 8, 21, 384, len(all)} {
		for _, off := range []int{0, 5} {
			h := all[off : off+min(n, len(all)-off)]
			got, want := make([]float32, len(h)), make([]float32, len(h))
			fromHalfs(got, h)
			fromHalfsGo(want, h)
			for i := range h {
				g, w := got[i], want[i]
				if math.Float32bits(g) != math.Float32bits(w) && !(g != g && w != w) {
					t.Fatalf("n %d off %d: fp16 %#04x decodes to %v (%#08x), want %v (%#08x)", n, off, h[i], g, math.Float32bits(g), w, math.Float32bits(w))
				}
			}
		}
	}
}

func BenchmarkDot384(b *testing.B) {
	r := rand.New(rand.NewSource(3))
	u, v := unitVec(r, 384), unitVec(r, 384)
	ca, cb := make([]byte, codeBytes(384)), make([]byte, codeBytes(384))
	quantize(ca, u)
	quantize(cb, v)
	h := make([]uint16, 384)
	for i, f := range v {
		h[i] = half.To(f)
	}
	buf := make([]float32, 384)
	var sink float32
	b.Run("float32", func(b *testing.B) {
		for range b.N {
			sink += vek32.Dot(u, v)
		}
	})
	b.Run("int8", func(b *testing.B) {
		qa, qb := int8s(ca[:384]), int8s(cb[:384])
		for range b.N {
			sink += float32(dotInt8(qa, qb))
		}
	})
	b.Run("int8-go", func(b *testing.B) {
		qa, qb := int8s(ca[:384]), int8s(cb[:384])
		for range b.N {
			sink += float32(dotInt8Go(qa, qb))
		}
	})
	b.Run("fp16", func(b *testing.B) {
		for range b.N {
			fromHalfs(buf, h)
			sink += vek32.Dot(u, buf)
		}
	})
	_ = sink
}
