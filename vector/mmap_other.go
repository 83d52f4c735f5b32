//go:build !unix

package vector

import (
	"errors"
	"os"
)

func mapFile(*os.File, int64) ([]byte, error) { return nil, errors.ErrUnsupported }

func unmapFile([]byte) {}

const mapFileWorks = false
