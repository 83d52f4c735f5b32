//go:build !unix

package confine

import "os"

func open(root, path string) (*os.File, error) {
	real, err := resolveInside(root, path)
	if err != nil {
		return nil, err
	}
	return os.Open(real)
}
