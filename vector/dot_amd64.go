//go:build amd64 && !purego

package vector

import "golang.org/x/sys/cpu"

// useAVX2 says dotInt8 may use dotInt8AVX2.
var useAVX2 = cpu.X86.HasAVX2

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
