package grep

import (
	"bytes"
	"encoding/binary"
	"regexp"
	"regexp/syntax"
	"slices"
	"unicode/utf8"
)

// Transition table entries that are not the offset of a next state.
const (
	transUnknown  = -1 // not computed yet
	transMatch    = -2 // a match ends before this input
	transRune     = -3 // byte starts a multi-byte sequence: use the rune path
	transOverflow = -4 // cache full (returned by step, never stored)
)

// Classes of the input unit that follows a position, as far as empty-width
// assertions care.
const (
	clsOther = iota // non-word character, or an invalid UTF-8 byte
	clsWord         // word character
	clsEOL          // \n or end of input
)

// Contexts a state remembers about the input unit before it.
const (
	ctxLine  = iota // line start
	ctxOther        // after a non-word character
	ctxWord         // after a word character
)

// dfaMaxStates bounds the cache; each state costs about 1 KiB of table.
const dfaMaxStates = 2048

// dstate is a DFA state: the program counters waiting for the next input
// (before following empty-width assertions, which depend on that input) and
// the context of the previous input.
type dstate struct {
	pcs   []uint32
	ctx   uint8
	runes map[rune]int32 // transitions on non-ASCII runes; -1 keys invalid bytes
	eol   int32          // transition at end of line: transUnknown, transMatch or a state
}

// dfa decides whether lines match a program, building its states lazily.
// It answers "does this line contain a match", never where the match is,
// which is all line selection needs and what makes a DFA possible. A dfa is
// not safe for concurrent use: each worker has its own.
type dfa struct {
	prog      *syntax.Prog
	fallback  *regexp.Regexp // decides lines too complex for the cache
	maxStates int            // cache bound, dfaMaxStates but in tests
	trans     []int32        // 256 entries per state; entries are state index*256
	states    []dstate
	index     map[string]int32

	// scratch
	stack []uint32
	seen  sparseSet
	next  sparseSet
	runes []uint32
	key   []byte
}

func newDFA(prog *syntax.Prog, fallback *regexp.Regexp) *dfa {
	d := &dfa{
		prog:      prog,
		fallback:  fallback,
		maxStates: dfaMaxStates,
		seen:      newSparseSet(len(prog.Inst)),
		next:      newSparseSet(len(prog.Inst)),
		index:     make(map[string]int32),
	}
	d.reset()
	return d
}

// reset empties the cache, keeping only the start state (index 0).
func (d *dfa) reset() {
	d.trans = d.trans[:0]
	d.states = d.states[:0]
	clear(d.index)
	d.add(nil, ctxLine)
}

// setKey puts the index key of the state (pcs, ctx) in d.key.
func (d *dfa) setKey(pcs []uint32, ctx uint8) {
	d.key = append(d.key[:0], ctx)
	for _, pc := range pcs {
		d.key = binary.LittleEndian.AppendUint32(d.key, pc)
	}
}

func (d *dfa) add(pcs []uint32, ctx uint8) int32 {
	id := int32(len(d.states))
	d.states = append(d.states, dstate{pcs: pcs, ctx: ctx, eol: transUnknown})
	d.setKey(pcs, ctx)
	d.index[string(d.key)] = id
	for c := range 256 {
		if c < utf8.RuneSelf {
			d.trans = append(d.trans, transUnknown)
		} else {
			d.trans = append(d.trans, transRune)
		}
	}
	return id
}

// step computes the transition of state id on input r of class cls: the next
// state's table offset, transMatch when a match ends before r, or
// transOverflow when the cache is full. r < 0 stands for an invalid byte.
func (d *dfa) step(id int32, r rune, cls int) int32 {
	st := &d.states[id]
	flags := emptyFlags(st.ctx, cls)

	// Follow the closure from the waiting threads plus a fresh thread at the
	// program start (the search is unanchored), collecting rune instructions.
	d.seen.clear()
	d.runes = d.runes[:0]
	d.stack = append(d.stack[:0], st.pcs...)
	d.stack = append(d.stack, uint32(d.prog.Start))
	for len(d.stack) > 0 {
		pc := d.stack[len(d.stack)-1]
		d.stack = d.stack[:len(d.stack)-1]
		if !d.seen.add(pc) {
			continue
		}
		inst := &d.prog.Inst[pc]
		switch inst.Op {
		case syntax.InstAlt, syntax.InstAltMatch:
			d.stack = append(d.stack, inst.Arg, inst.Out)
		case syntax.InstNop, syntax.InstCapture:
			d.stack = append(d.stack, inst.Out)
		case syntax.InstEmptyWidth:
			if syntax.EmptyOp(inst.Arg)&^flags == 0 {
				d.stack = append(d.stack, inst.Out)
			}
		case syntax.InstMatch:
			return transMatch
		case syntax.InstRune, syntax.InstRune1, syntax.InstRuneAny, syntax.InstRuneAnyNotNL:
			d.runes = append(d.runes, pc)
		}
	}

	ctx := uint8(ctxOther)
	d.next.clear()
	switch {
	case cls == clsEOL:
		ctx = ctxLine
	case r >= 0:
		if cls == clsWord {
			ctx = ctxWord
		}
		for _, pc := range d.runes {
			if inst := &d.prog.Inst[pc]; matchRune(inst, r) {
				d.next.add(inst.Out)
			}
		}
	}
	pcs := d.next.dense
	slices.Sort(pcs)

	d.setKey(pcs, ctx)
	if next, ok := d.index[string(d.key)]; ok {
		return next * 256
	}
	if len(d.states) >= d.maxStates {
		return transOverflow
	}
	return d.add(slices.Clone(pcs), ctx) * 256
}

func matchRune(inst *syntax.Inst, r rune) bool {
	switch inst.Op {
	case syntax.InstRune1:
		return r == inst.Rune[0]
	case syntax.InstRune:
		return inst.MatchRune(r)
	case syntax.InstRuneAny:
		return true
	case syntax.InstRuneAnyNotNL:
		return r != '\n'
	}
	return false
}

// emptyFlags returns the empty-width assertions that hold between an input
// unit seen in context ctx and the next one of class cls.
func emptyFlags(ctx uint8, cls int) syntax.EmptyOp {
	var f syntax.EmptyOp
	if ctx == ctxLine {
		f |= syntax.EmptyBeginLine | syntax.EmptyBeginText
	}
	if cls == clsEOL {
		f |= syntax.EmptyEndLine | syntax.EmptyEndText
	}
	if (ctx == ctxWord) != (cls == clsWord) {
		f |= syntax.EmptyWordBoundary
	} else {
		f |= syntax.EmptyNoWordBoundary
	}
	return f
}

var asciiClass = func() (t [utf8.RuneSelf]int) {
	for c := range utf8.RuneSelf {
		switch {
		case c == '\n':
			t[c] = clsEOL
		case asciiWord[c]:
			t[c] = clsWord
		default:
			t[c] = clsOther
		}
	}
	return t
}()

// scan looks for a match in buf starting at from, which must be a line start,
// and returns the offset at which a match was seen to end, or -1: the match
// lies in the line containing that offset. With eol set, the end of buf also
// ends a line (for a buffer or line without a final \n).
//
// When the cache fills up, scan empties it and starts over at the current
// line; a line that fills an empty cache on its own is decided by the
// fallback regexp instead.
func (d *dfa) scan(buf []byte, from int, eol bool) int {
	var id int32 // table offset of the current state
	resetAt := -1
	trans := d.trans
	i := from
	for {
		for i < len(buf) {
			t := trans[int(id)+int(buf[i])]
			if t < 0 {
				break
			}
			id = t
			i++
		}
		var t int32
		if i < len(buf) {
			c := buf[i]
			switch t = trans[int(id)+int(c)]; t {
			case transUnknown:
				if t = d.step(id/256, rune(c), asciiClass[c]); t != transOverflow {
					d.trans[int(id)+int(c)] = t
					trans = d.trans
					continue
				}
			case transRune:
				r, w := utf8.DecodeRune(buf[i:])
				cls := clsOther
				if r == utf8.RuneError && w == 1 {
					r = -1
				} else if isWordRune(r) {
					cls = clsWord
				}
				st := &d.states[id/256]
				next, ok := st.runes[r]
				if !ok {
					if next = d.step(id/256, r, cls); next != transOverflow {
						st = &d.states[id/256]
						if st.runes == nil {
							st.runes = make(map[rune]int32)
						}
						st.runes[r] = next
					}
				}
				if next >= 0 {
					trans = d.trans
					id = next
					i += w
					continue
				}
				t = next
			}
		} else {
			if !eol {
				return -1
			}
			st := &d.states[id/256]
			if t = st.eol; t == transUnknown {
				if t = d.step(id/256, '\n', clsEOL); t != transOverflow {
					d.states[id/256].eol = t
				}
			}
			if t >= 0 {
				return -1
			}
		}
		if t == transMatch {
			return i
		}

		// The cache is full.
		ls := from + bytes.LastIndexByte(buf[from:i], '\n') + 1
		d.reset()
		trans = d.trans
		id = 0
		if ls != resetAt {
			resetAt, i = ls, ls
			continue
		}
		le := len(buf)
		if j := bytes.IndexByte(buf[ls:], '\n'); j >= 0 {
			le = ls + j
		}
		if d.fallback.Match(buf[ls:le]) {
			return ls
		}
		if le == len(buf) {
			return -1
		}
		i = le + 1
	}
}

// sparseSet is a set of small integers with O(1) clear that keeps insertion
// order in dense.
type sparseSet struct {
	sparse []uint32
	dense  []uint32
}

func newSparseSet(n int) sparseSet {
	return sparseSet{sparse: make([]uint32, n), dense: make([]uint32, 0, n)}
}

func (s *sparseSet) clear() { s.dense = s.dense[:0] }

// add inserts x and reports whether it was absent.
func (s *sparseSet) add(x uint32) bool {
	if i := s.sparse[x]; int(i) < len(s.dense) && s.dense[i] == x {
		return false
	}
	s.sparse[x] = uint32(len(s.dense))
	s.dense = append(s.dense, x)
	return true
}
