//go:build !unix

package grep

import "github.com/braidsearch/braid/internal/confine"

// readFile reads the file; buf is unused off Unix.
func readFile(f File, buf []byte) ([]byte, error) {
	return confine.ReadFile(f.Root, f.Path, 0)
}
