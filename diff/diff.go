// Package diff compares texts line by line with Myers' O(ND) algorithm and
// renders the result as a unified diff.
package diff

import (
	"fmt"
	"strings"
)

// Op is what an edit does to a line.
type Op byte

const (
	Equal  Op = ' '
	Delete Op = '-'
	Insert Op = '+'
)

// Edit is one line of a line diff.
type Edit struct {
	Op   Op
	Line string // without its newline
	A, B int    // 0-based line numbers in a and b (the one that does not apply is -1)
}

// splitLines splits text into lines without their "\n"; a final line
// without a newline counts, an empty text has no lines.
func splitLines(text string) []string {
	if text == "" {
		return nil
	}
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\n")
	}
	return lines
}

// Lines returns a shortest edit script turning a into b, line by line.
func Lines(a, b string) []Edit {
	return edits(splitLines(a), splitLines(b))
}

// edits runs Myers' greedy forward search, keeping each round's furthest
// reaching paths, then walks them back to recover the script.
func edits(a, b []string) []Edit {
	n, m := len(a), len(b)
	max := n + m
	off := max + 1
	v := make([]int, 2*max+3)
	var trace [][]int
	for d := 0; d <= max; d++ {
		trace = append(trace, append([]int(nil), v...))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1] // down: an insertion
			} else {
				x = v[off+k-1] + 1 // right: a deletion
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[off+k] = x
			if x >= n && y >= m {
				return backtrack(a, b, trace, d, off)
			}
		}
	}
	return nil // unreachable: d = n+m always reaches the end
}

func backtrack(a, b []string, trace [][]int, d, off int) []Edit {
	x, y := len(a), len(b)
	var out []Edit
	for ; d > 0; d-- {
		v := trace[d] // the state before round d
		k := x - y
		var pk int
		if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := v[off+pk]
		py := px - pk
		for x > px && y > py {
			x--
			y--
			out = append(out, Edit{Op: Equal, Line: a[x], A: x, B: y})
		}
		if x == px {
			y--
			out = append(out, Edit{Op: Insert, Line: b[y], A: -1, B: y})
		} else {
			x--
			out = append(out, Edit{Op: Delete, Line: a[x], A: x, B: -1})
		}
	}
	for x > 0 && y > 0 {
		x--
		y--
		out = append(out, Edit{Op: Equal, Line: a[x], A: x, B: y})
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// Unified renders the differences between a and b as a unified diff with
// context lines around each change, headed by the names fromName and
// toName; it is empty when the texts are equal.
func Unified(fromName, toName, a, b string, context int) string {
	es := Lines(a, b)
	changed := false
	for _, e := range es {
		changed = changed || e.Op != Equal
	}
	if !changed {
		return ""
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "--- %s\n+++ %s\n", fromName, toName)
	for i := 0; i < len(es); {
		// Find the next change, then the end of its hunk: changes closer
		// than 2*context lines share one.
		for i < len(es) && es[i].Op == Equal {
			i++
		}
		if i == len(es) {
			break
		}
		start := max(0, i-context)
		end := i
		for j := i; j < len(es); j++ {
			if es[j].Op != Equal {
				end = j + 1
			} else if j-end >= 2*context {
				break
			}
		}
		end = min(len(es), end+context)
		aBefore, bBefore := 0, 0
		for _, e := range es[:start] {
			if e.Op != Insert {
				aBefore++
			}
			if e.Op != Delete {
				bBefore++
			}
		}
		writeHunk(&sb, es[start:end], aBefore, bBefore)
		i = end
	}
	return sb.String()
}

// writeHunk writes one hunk; aBefore and bBefore count the lines of a and
// b that precede it.
func writeHunk(sb *strings.Builder, h []Edit, aBefore, bBefore int) {
	aN, bN := 0, 0
	for _, e := range h {
		if e.Op != Insert {
			aN++
		}
		if e.Op != Delete {
			bN++
		}
	}
	fmt.Fprintf(sb, "@@ -%s +%s @@\n", hunkRange(aBefore, aN), hunkRange(bBefore, bN))
	for _, e := range h {
		sb.WriteByte(byte(e.Op))
		sb.WriteString(e.Line)
		sb.WriteByte('\n')
	}
}

// hunkRange is a hunk's "start,count" on one side, 1-based; an empty side
// names the line before it, as diff -u does.
func hunkRange(before, n int) string {
	switch n {
	case 0:
		return fmt.Sprintf("%d,0", before)
	case 1:
		return fmt.Sprint(before + 1)
	}
	return fmt.Sprintf("%d,%d", before+1, n)
}
