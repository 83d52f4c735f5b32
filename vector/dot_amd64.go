//go:build amd64 && !purego

package vector

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// useAVX2 says dotInt8 may use dotInt8AVX2, and useF16C fromHalfs
// fromHalfsF16C.
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
	if n == len(a) { // 384-d, and every dimension of the registry's models
		return dotInt8AVX2(&a[0], &b[0], n)
	}
	return dotInt8AVX2(&a[0], &b[0], n) + dotInt8Go(a[n:], b[n:])
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
