//go:build !amd64 || purego

package vector

import "unsafe"

// dotInt8 is the dot product of a and b[:len(a)] in exact integer
// arithmetic.
func dotInt8(a, b []int8) int32 { return dotInt8Go(a, b) }

// useF16C says fromHalfs widens fp16 values with F16C: not here.
const useF16C = false

// fromHalfs decodes the fp16 values h into v[:len(h)].
func fromHalfs(v []float32, h []uint16) { fromHalfsGo(v, h) }

// prefetch does nothing here: a hint the processor does without.
func prefetch(p unsafe.Pointer, n int) {}
