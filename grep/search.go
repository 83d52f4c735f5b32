package grep

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// Search searches files with up to workers goroutines (runtime.NumCPU() when
// workers <= 0) and calls emit once per file, in the order of files, from the
// calling goroutine; files without matches, binary files and unreadable files
// get a Result too. A panic while searching a file becomes that file's
// Result.Err. Search stops early and returns the error when ctx is done or
// emit returns an error; it returns only after all its goroutines have
// exited.
func (m *Matcher) Search(ctx context.Context, files []File, workers int, emit func(Result) error) error {
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	workers = max(1, min(workers, len(files)))
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() {
		cancel()
		wg.Wait()
	}()

	// File i's result goes through slots[i%window]. A worker takes a token
	// from tokens before it claims the next file and emit's loop gives it
	// back once that file's result is out of its slot, so at most window
	// files are claimed and not yet emitted, no slot ever holds two results,
	// and memory stays bounded however far emit lags.
	window := 4 * workers
	slots := make([]chan Result, window)
	for i := range slots {
		slots[i] = make(chan Result, 1)
	}
	tokens := make(chan struct{}, window)
	var next atomic.Int64
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := m.newSearcher()
			defer s.dirs.close()
			for {
				select {
				case tokens <- struct{}{}:
				case <-ctx.Done():
					return
				}
				i := int(next.Add(1) - 1)
				if i >= len(files) {
					return
				}
				slots[i%window] <- s.searchFile(ctx, files[i])
			}
		}()
	}

	for i := range files {
		var r Result
		select {
		case r = <-slots[i%window]:
		case <-ctx.Done():
			return ctx.Err()
		}
		<-tokens
		if err := emit(r); err != nil {
			return err
		}
	}
	return ctx.Err()
}

// searcher holds one worker's scratch state.
type searcher struct {
	m    *Matcher
	dfa  *dfa
	lit  finders   // nil without literals
	buf  []byte    // read buffer, reused: Lines hold copies of their text
	out  collector // scratch for building Lines
	dirs dirs      // the roots files are opened beneath, each opened once
}

func (m *Matcher) newSearcher() *searcher {
	s := &searcher{m: m, dirs: dirs{}}
	s.out.s = s
	if m.prog != nil {
		s.dfa = newDFA(m.prog, m.re)
	}
	if len(m.lits) > 0 {
		s.lit = newFinders(m.lits)
	}
	return s
}

// searchFile reads and searches one file, turning a panic into Result.Err.
func (s *searcher) searchFile(ctx context.Context, f File) (r Result) {
	defer func() {
		if p := recover(); p != nil {
			if s.m.prog != nil {
				s.dfa = newDFA(s.m.prog, s.m.re) // its state may be torn
			}
			r = Result{File: f, Err: fmt.Errorf("grep: search %s: panic: %v (please report this bug)", f.Path, p)}
		}
	}()
	if err := ctx.Err(); err != nil {
		return Result{File: f, Err: err}
	}
	var buf []byte
	var err error
	if f.Text != nil {
		buf, err = f.Text()
	} else {
		buf, err = readFile(f, s.buf, &s.dirs)
	}
	if err != nil {
		return Result{File: f, Err: fmt.Errorf("grep: %w", err)}
	}
	if f.Text == nil {
		s.buf = buf
	}
	if bytes.IndexByte(buf, 0) >= 0 {
		return Result{File: f, Binary: true}
	}
	r = s.search(buf)
	r.File = f
	return r
}

// search selects lines of buf and their context.
func (s *searcher) search(buf []byte) Result {
	m := s.m
	opt := m.opt
	if s.lit != nil {
		s.lit.reset(buf)
	}
	c := &s.out
	c.reset(buf)

	sel := selector{s: s, buf: buf, matchStart: -2}
	count := 0
	afterLeft := 0
	from := 0
	for {
		ls, le := sel.next(from)
		if ls < 0 {
			break
		}
		// Context after the previous selected line, then before this one.
		for afterLeft > 0 && c.pos < ls {
			c.emit(false)
			afterLeft--
		}
		if opt.Before > 0 {
			b := ls
			for k := 0; k < opt.Before && b > c.pos; k++ {
				b = c.pos + bytes.LastIndexByte(buf[c.pos:b-1], '\n') + 1
			}
			c.skipTo(b)
			for c.pos < ls {
				c.emit(false)
			}
		}
		c.skipTo(ls)
		c.emit(true)
		from = le + 1
		count++
		afterLeft = opt.After
		if count == opt.MaxCount {
			// ripgrep prints the trailing context of the last counted
			// line, marking the lines in it that would have been selected.
			for ; afterLeft > 0 && c.pos < len(buf); afterLeft-- {
				end := c.lineEnd()
				c.emit(s.lineMatches(buf[c.pos:end]) != opt.Invert)
			}
			afterLeft = 0
			break
		}
	}
	for ; afterLeft > 0 && c.pos < len(buf); afterLeft-- {
		c.emit(false)
	}
	return Result{Lines: c.finish(), Count: count}
}

// selector yields the selected lines of a buffer in order.
type selector struct {
	s   *searcher
	buf []byte
	// the next matching line at or after the last position asked for,
	// under Invert; matchStart -2 means not looked up yet, -1 none.
	matchStart, matchEnd int
}

// next returns the bounds [ls, le) of the first selected line starting at or
// after the line start from, or -1, -1. le is the offset of the line's \n, or
// len(buf).
func (sel *selector) next(from int) (int, int) {
	buf := sel.buf
	if !sel.s.m.opt.Invert {
		return sel.s.nextMatch(buf, from)
	}
	for from < len(buf) {
		if sel.matchStart != -1 && sel.matchStart < from {
			sel.matchStart, sel.matchEnd = sel.s.nextMatch(buf, from)
		}
		if sel.matchStart != from {
			end := bytes.IndexByte(buf[from:], '\n')
			if end < 0 {
				return from, len(buf)
			}
			return from, from + end
		}
		from = sel.matchEnd + 1
	}
	return -1, -1
}

// nextMatch returns the bounds of the first matching line starting at or
// after the line start from, or -1, -1.
func (s *searcher) nextMatch(buf []byte, from int) (int, int) {
	m := s.m
	for from <= len(buf) {
		var p int
		switch {
		case s.lit == nil:
			p = s.dfa.scan(buf, from, len(buf) > 0 && buf[len(buf)-1] != '\n')
		default:
			p = s.lit.next(from)
		}
		if p < 0 {
			return -1, -1
		}
		ls := from + bytes.LastIndexByte(buf[from:p], '\n') + 1
		le := len(buf)
		if i := bytes.IndexByte(buf[p:], '\n'); i >= 0 {
			le = p + i
		}
		if m.exact || s.lit == nil || s.dfa.scan(buf[ls:le], 0, true) >= 0 {
			return ls, le
		}
		from = le + 1
	}
	return -1, -1
}

// lineMatches reports whether the line (without its \n) matches.
func (s *searcher) lineMatches(line []byte) bool {
	if s.lit != nil && !s.lit.contains(line) {
		return false
	}
	return s.m.exact || s.dfa.scan(line, 0, true) >= 0
}

// collector builds a Result's lines, walking the buffer line by line. Its
// slices are scratch space kept by the searcher across files: finish copies
// what the Result keeps, so a file without output allocates nothing.
type collector struct {
	s      *searcher
	buf    []byte
	pos    int // offset of the next line not yet emitted or skipped
	number int // number of the line at pos, less one

	lines  []Line   // Text and Ranges are filled in by finish
	text   []byte   // the kept lines' bytes, one after the other
	marks  []int    // per line: end of its text in text, end of its ranges in ranges
	ranges [][2]int // the kept lines' ranges, one after the other
}

// reset prepares c for buf, keeping its scratch space.
func (c *collector) reset(buf []byte) {
	c.buf, c.pos, c.number = buf, 0, 0
	c.lines, c.text, c.marks, c.ranges = c.lines[:0], c.text[:0], c.marks[:0], c.ranges[:0]
}

// skipTo moves past the lines before the line start to.
func (c *collector) skipTo(to int) {
	if to > c.pos {
		c.number += bytes.Count(c.buf[c.pos:to], []byte{'\n'})
		c.pos = to
	}
}

// lineEnd returns the end of the line at pos.
func (c *collector) lineEnd() int {
	if i := bytes.IndexByte(c.buf[c.pos:], '\n'); i >= 0 {
		return c.pos + i
	}
	return len(c.buf)
}

// emit appends the line at pos, selected or as context, and moves past it.
func (c *collector) emit(selected bool) {
	end := c.lineEnd()
	line := c.buf[c.pos:end]
	c.number++
	c.lines = append(c.lines, Line{Number: c.number, Match: selected})
	c.text = append(c.text, line...)
	if selected && !c.s.m.opt.Invert && !c.s.m.opt.NoRanges {
		c.ranges = c.s.appendRanges(c.ranges, line)
	}
	c.marks = append(c.marks, len(c.text), len(c.ranges))
	c.pos = end + 1
}

// finish returns the lines with their own copies of text and ranges.
func (c *collector) finish() []Line {
	if len(c.lines) == 0 {
		return nil
	}
	lines := slices.Clone(c.lines)
	text := string(c.text)
	var ranges [][2]int
	if len(c.ranges) > 0 {
		ranges = slices.Clone(c.ranges)
	}
	t, r := 0, 0
	for i := range lines {
		te, re := c.marks[2*i], c.marks[2*i+1]
		lines[i].Text = text[t:te]
		if re > r {
			lines[i].Ranges = ranges[r:re:re]
		}
		t, r = te, re
	}
	return lines
}

// appendRanges appends the matches in line to dst.
func (s *searcher) appendRanges(dst [][2]int, line []byte) [][2]int {
	m := s.m
	switch {
	case m.exact && len(s.lit) == 1:
		f := s.lit[0]
		n := len(f.lit.s)
		for i := 0; i+n <= len(line); {
			j := f.index(line[i:])
			if j < 0 {
				break
			}
			dst = append(dst, [2]int{i + j, i + j + n})
			i += j + n
		}
	case m.opt.Word:
		// The pattern is group 1 of a match that also consumes the non-word
		// characters around it; the next match may reuse the character
		// after this one as its leading boundary.
		loc := m.re.FindSubmatchIndex(line)
		for loc != nil {
			start, end := loc[2], loc[3]
			dst = append(dst, [2]int{start, end})
			from := max(end, start+1)
			if from >= len(line) {
				break
			}
			loc = m.wordNext.FindSubmatchIndex(line[from:])
			for k := range loc {
				loc[k] += from
			}
		}
	default:
		for _, loc := range m.re.FindAllIndex(line, -1) {
			dst = append(dst, [2]int{loc[0], loc[1]})
		}
	}
	return dst
}
