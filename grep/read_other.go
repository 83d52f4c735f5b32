//go:build !unix

package grep

import "os"

// readFile reads the file at path; buf is unused off Unix.
func readFile(path string, buf []byte) ([]byte, error) {
	return os.ReadFile(path)
}
