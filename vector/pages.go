package vector

import "slices"

// pageItems is how many items (vectors, layer-0 rows) a page holds: 24 MiB
// of 384-d vectors, 2 MiB of rows at M=16.
const pageItems = 1 << 14

// pages holds a growing sequence of items of width values each in pages
// of pageItems items that never move once made, so a graph growing to a
// million nodes never copies its vectors or rows to grow (one flat slice
// did, holding the old array and the new, a quarter larger, at once). A
// page grows as a slice does until it is full, so a small graph holds a
// small one. The graph's vectors added in memory (tail) and its layer-0
// rows (rows) are kept this way.
type pages[T any] struct {
	ps [][]T
}

// grow appends an item of width zero values and returns it.
func (p *pages[T]) grow(width int) []T {
	n := len(p.ps)
	if n == 0 || len(p.ps[n-1]) == pageItems*width {
		p.ps = append(p.ps, nil)
		n++
	}
	last := p.ps[n-1]
	o := len(last)
	last = slices.Grow(last, width)[:o+width]
	clear(last[o:])
	p.ps[n-1] = last
	return last[o:]
}

// at is item k.
func (p *pages[T]) at(k, width int) []T {
	o := k % pageItems * width
	return p.ps[k/pageItems][o : o+width]
}
