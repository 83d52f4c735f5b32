//go:build !unix

package memlimit

// dontNeed does nothing where there is no madvise (Release finds no
// mappings there either: it reads /proc).
func dontNeed(addr, n uint64) error { return nil }
