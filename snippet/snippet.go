package snippet

import (
	"strings"
	"unicode/utf8"

	"github.com/braidsearch/braid/lexical"
)

// Range is a half-open byte range [Start, End) in a snippet.
type Range struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// Terms are the analysed terms to mark in snippets: words (a query's own)
// through the index analyzer.
func Terms(words []string) map[string]bool {
	terms := map[string]bool{}
	for _, t := range lexical.Analyze(strings.Join(words, " ")) {
		terms[t.Term] = true
	}
	return terms
}

// Best picks the window of text (about width bytes) with the most marked
// words, and returns it with newlines as spaces and the highlight ranges
// within it. A word is marked when its analysed term is in terms.
func Best(text string, terms map[string]bool, width int) (string, []Range) {
	type span struct{ start, end int }
	var marks []span
	for _, t := range lexical.Marks(text, terms) {
		marks = append(marks, span{t.Start, t.End})
	}
	lo, hi := 0, min(len(text), width)
	if len(text) > width && len(marks) > 0 {
		bestStart, bestCount := marks[0].start, 0
		for a := range marks {
			n := 0
			for b := a; b < len(marks) && marks[b].end-marks[a].start <= width; b++ {
				n++
			}
			if n > bestCount {
				bestStart, bestCount = marks[a].start, n
			}
		}
		lo = max(0, bestStart-width/5)
		hi = min(len(text), lo+width)
		if hi == len(text) {
			lo = max(0, hi-width)
		}
	}
	// Snap to rune and word boundaries.
	for lo > 0 && !utf8.RuneStart(text[lo]) {
		lo--
	}
	if lo > 0 {
		if k := strings.IndexAny(text[lo:hi], " \n\t"); k >= 0 && k < 30 {
			lo += k + 1
		}
	}
	for hi < len(text) && !utf8.RuneStart(text[hi]) {
		hi--
	}
	if hi < len(text) {
		if k := strings.LastIndexAny(text[lo:hi], " \n\t"); k > 0 && hi-(lo+k) < 30 {
			hi = lo + k
		}
	}
	snip := strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' || r == '\t' {
			return ' '
		}
		return r
	}, text[lo:hi])
	ranges := []Range{}
	for _, m := range marks {
		if m.start >= lo && m.end <= hi {
			ranges = append(ranges, Range{m.start - lo, m.end - lo})
		}
	}
	return snip, ranges
}

// Mark puts open and close around each of the ranges of text (in order,
// as Best returns them; one that overlaps the one before or runs past the
// text is left out) and trims the spaces at either end.
func Mark(text string, ranges []Range, open, close string) string {
	var b strings.Builder
	last := 0
	for _, r := range ranges {
		if r.Start < last || r.End > len(text) {
			continue
		}
		b.WriteString(text[last:r.Start])
		b.WriteString(open + text[r.Start:r.End] + close)
		last = r.End
	}
	b.WriteString(text[last:])
	return strings.TrimSpace(b.String())
}
