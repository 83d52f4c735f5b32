package grep

import "bytes"

// finder locates a literal in a buffer. It scans for the literal's rarest
// byte (in both cases, for a case-folded literal) with bytes.IndexByte and
// checks the bytes around each hit, remembering the next hit of each case so
// a buffer is scanned once however often next is called. Keying on a rare
// byte beats bytes.Index, which keys on the first, by 1.1-4x on prose.
type finder struct {
	lit   literal
	pivot int  // index in lit.s of the byte scanned for
	lo    byte // pivot byte, lower case
	up    byte // pivot byte, upper case (== lo for non-letters)

	buf    []byte
	nl, nu int // next offset of lo / up at or after the last start; -1 none
	// last is the result of next(lastFrom): a later call with a start up
	// to last has the same answer.
	last, lastFrom int
}

func newFinder(lit literal) *finder {
	f := &finder{lit: lit}
	best := 1 << 30
	for i, c := range lit.s {
		r := byteRank(c)
		if lit.fold {
			r += byteRank(upperASCII(c))
		}
		if r < best {
			best, f.pivot = r, i
		}
	}
	f.lo = lit.s[f.pivot]
	f.up = f.lo
	if lit.fold {
		f.up = upperASCII(f.lo)
	}
	return f
}

// reset prepares f for a new buffer.
func (f *finder) reset(buf []byte) {
	f.buf = buf
	f.nl, f.nu = -2, -2
	f.last, f.lastFrom = -2, 0
}

// next returns the offset of the first occurrence of the literal that starts
// at or after from, or -1. Calls after reset must not decrease from.
func (f *finder) next(from int) int {
	if f.last >= from || f.last == -1 && from >= f.lastFrom {
		return f.last
	}
	f.last, f.lastFrom = f.find(from), from
	return f.last
}

func (f *finder) find(from int) int {
	n := len(f.lit.s)
	for p := from + f.pivot; p+n-f.pivot <= len(f.buf); {
		c := f.nextPivot(p)
		if c < 0 {
			return -1
		}
		start := c - f.pivot
		if start+n > len(f.buf) {
			return -1
		}
		if f.match(f.buf[start : start+n]) {
			return start
		}
		p = c + 1
	}
	return -1
}

// nextPivot returns the first offset at or after p holding the pivot byte in
// either case, or -1.
func (f *finder) nextPivot(p int) int {
	if f.nl != -1 && f.nl < p {
		f.nl = indexFrom(f.buf, f.lo, p)
	}
	if f.lo == f.up {
		return f.nl
	}
	if f.nu != -1 && f.nu < p {
		f.nu = indexFrom(f.buf, f.up, p)
	}
	switch {
	case f.nl < 0:
		return f.nu
	case f.nu < 0:
		return f.nl
	default:
		return min(f.nl, f.nu)
	}
}

// index returns the first occurrence of the literal in h, or -1. It keeps no
// state, for use on single lines.
func (f *finder) index(h []byte) int {
	if !f.lit.fold {
		return bytes.Index(h, f.lit.s)
	}
	n := len(f.lit.s)
	for i := 0; i+n <= len(h); i++ {
		j := bytes.IndexByte(h[i+f.pivot:len(h)-n+f.pivot+1], f.lo)
		if f.up != f.lo {
			if k := bytes.IndexByte(h[i+f.pivot:len(h)-n+f.pivot+1], f.up); k >= 0 && (j < 0 || k < j) {
				j = k
			}
		}
		if j < 0 {
			return -1
		}
		i += j
		if equalFoldASCII(h[i:i+n], f.lit.s) {
			return i
		}
	}
	return -1
}

// match reports whether h, of the literal's length, is the literal.
func (f *finder) match(h []byte) bool {
	if f.lit.fold {
		return equalFoldASCII(h, f.lit.s)
	}
	return bytes.Equal(h, f.lit.s)
}

func indexFrom(b []byte, c byte, from int) int {
	if from >= len(b) {
		return -1
	}
	if i := bytes.IndexByte(b[from:], c); i >= 0 {
		return from + i
	}
	return -1
}

// equalFoldASCII reports whether h equals the lower-case ASCII needle when
// ASCII letters in h are lowered.
func equalFoldASCII(h, needle []byte) bool {
	for i, c := range needle {
		if lowerASCII(h[i]) != c {
			return false
		}
	}
	return true
}

func upperASCII(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}

// byteRank estimates how often c occurs in prose and markdown; lower is
// rarer. Bytes not listed are taken to be rare.
func byteRank(c byte) int {
	const common = " etaoinsrhldcumfpgwyb,.vk-\n#*[]()`/:_0123456789TSAIMCx>|'\"=jq!z"
	for i := range len(common) {
		if common[i] == c {
			return 256 - i
		}
	}
	return 0
}

// finders searches for several literals at once.
type finders []*finder

func newFinders(set litSet) finders {
	fs := make(finders, len(set))
	for i, l := range set {
		fs[i] = newFinder(l)
	}
	return fs
}

func (fs finders) reset(buf []byte) {
	for _, f := range fs {
		f.reset(buf)
	}
}

// next returns the first offset at or after from where one of the literals
// starts, or -1. Calls after reset must not decrease from.
func (fs finders) next(from int) int {
	best := -1
	for _, f := range fs {
		if i := f.next(from); i >= 0 && (best < 0 || i < best) {
			best = i
		}
	}
	return best
}

// contains reports whether h holds one of the literals.
func (fs finders) contains(h []byte) bool {
	for _, f := range fs {
		if f.index(h) >= 0 {
			return true
		}
	}
	return false
}
