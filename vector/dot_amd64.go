//go:build amd64 && !purego

package vector

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// useAVX2 says dotInt8 may use dotInt8AVX2, and useF16C dotHalf
// dotHalfF16C.
var (
	useAVX2 = cpu.X86.HasAVX2
	useF16C = cpu.X86.HasAVX2 && cpu.X86.HasFMA && cpu.X86.HasF16C
)

// dotInt8AVX2 is the dot product of the n int8s at a and at b, n a
// multiple of 32: each step sign-extends 16 of each to int16s
// (VPMOVSXBW), multiplies them and adds neighbouring pairs into int32s
// (VPMADDWD), twice, into two accumulators. dot_amd64.s.
//
//go:noescape
func dotInt8AVX2(a, b *int8, n int) int32

// dotInt8 is the dot product of a and b[:len(a)] in exact integer
// arithmetic, with AVX2 where the processor has it (ten times as fast as
// dotInt8Go at 384 values, BenchmarkDot384), the tail in Go.
func dotInt8(a, b []int8) int32 {
	b = b[:len(a)]
	n := len(a) &^ 31
	if !useAVX2 || n == 0 {
		return dotInt8Go(a, b)
	}
	return dotInt8AVX2(&a[0], &b[0], n) + dotInt8Go(a[n:], b[n:])
}

// dotHalfF16C is the dot product of the n float32s at a and the n fp16
// values at h, n a multiple of 16: each step widens 8 of h to float32s
// (VCVTPH2PS) and multiplies and adds them into one of two accumulators
// (VFMADD231PS). dot_amd64.s.
//
//go:noescape
func dotHalfF16C(a *float32, h *uint16, n int) float32

// dotHalf is the dot product of a and the fp16 values h[:len(a)], with
// F16C and FMA where the processor has them (about as fast as a float32
// dot product, BenchmarkDot384), else decoding h into buf (len(a) values
// at least) first.
func dotHalf(a []float32, h []uint16, buf []float32) float32 {
	h = h[:len(a)]
	n := len(a) &^ 15
	if !useF16C || n == 0 {
		return dotHalfGo(a, h, buf)
	}
	d := dotHalfF16C(&a[0], &h[0], n)
	if n < len(a) {
		d += dotHalfGo(a[n:], h[n:], buf)
	}
	return d
}

// dotHalfF16Cx4 sets out[r] to the dot product of the n float32s at a and
// the n fp16 values at h[r], n a multiple of 16: a's loads are shared by
// the four rows, and each row has two accumulators (VCVTPH2PS, then
// VFMADD231PS, 16 values a step). dot_amd64.s.
//
//go:noescape
func dotHalfF16Cx4(a *float32, h *[4]*uint16, n int, out *[4]float32)

// dotHalf4 sets out[r] to dotHalf(a, hs[r], buf), up to rounding: four
// rows measured against one vector at once, with F16C and FMA where the
// processor has them (the tail past a multiple of 16 in Go). Each row's
// sum is the same whatever the other three are.
func dotHalf4(a []float32, hs *[4][]uint16, out *[4]float32, buf []float32) {
	n := len(a) &^ 15
	if !useF16C || n == 0 {
		for r, h := range hs {
			out[r] = dotHalfGo(a, h, buf)
		}
		return
	}
	var p [4]*uint16
	for r, h := range hs {
		p[r] = &h[:len(a)][0]
	}
	dotHalfF16Cx4(&a[0], &p, n, out)
	if n < len(a) {
		for r, h := range hs {
			out[r] += dotHalfGo(a[n:], h[n:len(a)], buf)
		}
	}
}

// fromHalfsF16C widens the n fp16 values at h into the n float32s at v,
// n a multiple of 8, 8 a step (VCVTPH2PS): exact, as the table is, and
// without its 256 KiB of lookups, which a link's neighbour selection
// made for every candidate (9% of an ingest's CPU at 100k chunks).
// dot_amd64.s.
//
//go:noescape
func fromHalfsF16C(v *float32, h *uint16, n int)

// fromHalfs decodes the fp16 values h into v[:len(h)].
func fromHalfs(v []float32, h []uint16) {
	v = v[:len(h)]
	n := len(h) &^ 7
	if !useF16C || n == 0 {
		fromHalfsGo(v, h)
		return
	}
	fromHalfsF16C(&v[0], &h[0], n)
	fromHalfsGo(v[n:], h[n:])
}

// prefetchLines asks for the cache lines of the n bytes at p ahead of
// their use (PREFETCHT0 a line): a hint, which never faults. dot_amd64.s.
//
//go:noescape
func prefetchLines(p unsafe.Pointer, n int)

// prefetch asks for the cache lines of the n bytes at p ahead of their
// use, so that the fetches of several nodes' vectors, at random places of
// a graph larger than the caches, overlap instead of following one
// another.
func prefetch(p unsafe.Pointer, n int) { prefetchLines(p, n) }
