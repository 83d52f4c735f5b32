//go:build unix

package relay

import (
	"io/fs"
	"syscall"
)

// ownerOnly: permission bits say who may enter a folder.
const ownerOnly = true

// fileOwner is the uid that owns the file fi describes.
func fileOwner(fi fs.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}
