package vector

import (
	"encoding/binary"
	"math"
	"sync"
	"unsafe"

	"github.com/braidsearch/braid/internal/half"
)

// The two representations of a vector (issue 45):
//
//   - its full precision, IEEE 754 half precision (fp16, 2 bytes a value),
//     read only to rescore a search's finalists, for Vector, and to
//     rebuild the graph (a rebuild's inserts measure by codes). A unit
//     vector's values are below 1, where fp16 keeps 11 significant bits:
//     a relative error under 2^-11, a cosine off by under 5e-4.
//   - its code, the walks': dim int8s and a float32 scale, the vector
//     being about code·scale (scalar quantization, one scale a vector:
//     the largest magnitude maps to ±127). A search quantizes the query
//     the same way and compares with integer dot products (dotInt8); an
//     insert measures from the node's own code, and the neighbour
//     heuristic code against code.
//
// A vector enters the graph rounded to fp16 (Add), and its code is made
// from that rounded vector (quantize), so the code is a function of what
// the file keeps: a graph built in memory, saved and loaded, or replayed
// from a log holds the same codes and answers the same.

// codeBytes is the length of a code: dim int8s, then the scale as a
// little-endian float32.
func codeBytes(dim int) int { return dim + 4 }

// quantize writes v's code into c (codeBytes(len(v)) bytes).
func quantize(c []byte, v []float32) {
	var m float32
	for _, f := range v {
		m = max(m, abs32(f))
	}
	c = c[:len(v)+4]
	if m == 0 || m > math.MaxFloat32 || m != m {
		clear(c)
		return
	}
	inv := 127 / m
	for i, f := range v {
		c[i] = byte(int8(max(-127, min(127, math.Round(float64(f*inv))))))
	}
	binary.LittleEndian.PutUint32(c[len(v):], math.Float32bits(m/127))
}

func abs32(f float32) float32 { return math.Float32frombits(math.Float32bits(f) &^ (1 << 31)) }

// codeScale is the scale of code c of a dim-dimensional vector; 0 for
// one that is not finite (a damaged file's), so that it ranks nowhere in
// particular and never turns a comparison into NaN.
func codeScale(c []byte, dim int) float32 {
	s := math.Float32frombits(binary.LittleEndian.Uint32(c[dim:]))
	if s != s || s > math.MaxFloat32 || s < -math.MaxFloat32 {
		return 0
	}
	return s
}

// int8s views b as int8s, in place.
func int8s(b []byte) []int8 {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*int8)(unsafe.Pointer(&b[0])), len(b))
}

// dotInt8Go is the dot product of a and b[:len(a)] in exact integer
// arithmetic: 127²·len(a) fits an int32 for any dimension up to maxDim.
// A step takes 16 values through arrays of fixed length, so the compiler
// drops the bounds checks, into four sums, so that the loads and
// multiplies of a step overlap (about twice as fast as eight sums of one
// product a step; measured on the 2-core AMD EPYC, BenchmarkDot384).
func dotInt8Go(a, b []int8) int32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 int32
	for len(a) >= 16 && len(b) >= 16 {
		x, y := a[:16:16], b[:16:16]
		s0 += int32(x[0])*int32(y[0]) + int32(x[4])*int32(y[4]) + int32(x[8])*int32(y[8]) + int32(x[12])*int32(y[12])
		s1 += int32(x[1])*int32(y[1]) + int32(x[5])*int32(y[5]) + int32(x[9])*int32(y[9]) + int32(x[13])*int32(y[13])
		s2 += int32(x[2])*int32(y[2]) + int32(x[6])*int32(y[6]) + int32(x[10])*int32(y[10]) + int32(x[14])*int32(y[14])
		s3 += int32(x[3])*int32(y[3]) + int32(x[7])*int32(y[7]) + int32(x[11])*int32(y[11]) + int32(x[15])*int32(y[15])
		a, b = a[16:], b[16:]
	}
	for i := range a {
		s0 += int32(a[i]) * int32(b[i])
	}
	return s0 + s1 + s2 + s3
}

// fromHalfsGo decodes h into v (len(h) values), through a table of every
// fp16 value's float32: 256 KiB, made once per process at the first
// decode, about 2.5 times as fast as fromHalf's arithmetic value by
// value (BenchmarkDot384 and its fp16 case). fromHalfs uses F16C where
// the processor has it.
func fromHalfsGo(v []float32, h []uint16) {
	t := halfTable()
	v = v[:len(h)]
	for i, x := range h {
		v[i] = t[x]
	}
}

var halfTable = sync.OnceValue(func() *[1 << 16]float32 {
	t := new([1 << 16]float32)
	for i := range t {
		t[i] = half.From(uint16(i))
	}
	return t
})

// roundHalfs rounds each value of src to fp16 and back, into dst.
func roundHalfs(dst, src []float32) {
	dst = dst[:len(src)]
	for i, f := range src {
		dst[i] = half.From(half.To(f))
	}
}

// u16s views a section of little-endian uint16s in place where the
// system is little endian, and decodes a copy otherwise.
func u16s(b []byte) []uint16 {
	if len(b) == 0 {
		return nil
	}
	if littleEndian {
		return unsafe.Slice((*uint16)(unsafe.Pointer(&b[0])), len(b)/2)
	}
	out := make([]uint16, len(b)/2)
	for i := range out {
		out[i] = binary.LittleEndian.Uint16(b[i*2:])
	}
	return out
}
