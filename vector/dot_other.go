//go:build !amd64 || purego

package vector

// dotInt8 is the dot product of a and b[:len(a)] in exact integer
// arithmetic.
func dotInt8(a, b []int8) int32 { return dotInt8Go(a, b) }
