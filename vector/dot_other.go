//go:build !amd64 || purego

package vector

import "unsafe"

// dotInt8 is the dot product of a and b[:len(a)] in exact integer
// arithmetic.
func dotInt8(a, b []int8) int32 { return dotInt8Go(a, b) }

// useF16C says dotHalf reads fp16 values as they lie: not here.
const useF16C = false

// dotHalf is the dot product of a and the fp16 values h[:len(a)],
// decoded into buf (len(a) values at least) first.
func dotHalf(a []float32, h []uint16, buf []float32) float32 { return dotHalfGo(a, h, buf) }

// dotHalf4 sets out[r] to dotHalf(a, hs[r], buf).
func dotHalf4(a []float32, hs *[4][]uint16, out *[4]float32, buf []float32) {
	for r, h := range hs {
		out[r] = dotHalfGo(a, h, buf)
	}
}

// fromHalfs decodes the fp16 values h into v[:len(h)].
func fromHalfs(v []float32, h []uint16) { fromHalfsGo(v, h) }

// prefetch does nothing here: a hint the processor does without.
func prefetch(p unsafe.Pointer, n int) {}
