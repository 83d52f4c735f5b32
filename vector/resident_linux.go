package vector

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// mapResident maps into the process the pages of m[lo:hi] (m a whole
// mapped file, so page-aligned) that the system already holds in memory,
// reading nothing from the disk (mincore, then MADV_POPULATE_READ on each
// run of resident pages).
func mapResident(m []byte, lo, hi int) {
	page := unix.Getpagesize()
	lo -= lo % page
	const step = 1 << 22 // mincore's answer is a byte a page: 1 KiB a step
	vec := make([]byte, step/page)
	for at := lo; at < hi; at += step {
		region := m[at:min(at+step, hi)]
		if _, _, e := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&region[0])), uintptr(len(region)), uintptr(unsafe.Pointer(&vec[0]))); e != 0 {
			return
		}
		pages := (len(region) + page - 1) / page
		run := -1 // the first page of a run of resident ones, -1 for none
		for p := 0; p <= pages; p++ {
			switch resident := p < pages && vec[p]&1 != 0; {
			case resident && run < 0:
				run = p
			case !resident && run >= 0:
				if err := unix.Madvise(region[run*page:min(p*page, len(region))], unix.MADV_POPULATE_READ); err != nil {
					return // a kernel before 5.14: the search faults them in
				}
				run = -1
			}
		}
	}
}
