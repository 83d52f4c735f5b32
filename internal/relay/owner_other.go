//go:build !unix

package relay

import "io/fs"

// ownerOnly: permission bits do not say who may enter a folder here.
const ownerOnly = false

// fileOwner cannot tell here.
func fileOwner(fs.FileInfo) (int, bool) { return 0, false }
