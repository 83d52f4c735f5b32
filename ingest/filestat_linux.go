package ingest

import (
	"io/fs"
	"syscall"

	"github.com/braidsearch/braid/index"
)

// statOf is what info, a file's status, says of its content
// (index.FileStat); false where the system does not say it.
func statOf(info fs.FileInfo) (index.FileStat, bool) {
	s, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return index.FileStat{}, false
	}
	return index.FileStat{Size: s.Size, ModNS: s.Mtim.Nano(), ChangeNS: s.Ctim.Nano(), Ino: s.Ino, Dev: s.Dev}, true
}
