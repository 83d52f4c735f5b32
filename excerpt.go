package braid

import (
	"bytes"
	"fmt"
	"strings"
)

// Excerpt is a few numbered lines of a document's current file.
type Excerpt struct {
	Start int      `json:"start"` // 1-based number of the first line
	Lines []string `json:"lines"`
	Focus int      `json:"focus"` // the line the excerpt is centred on
}

// Excerpt reads the lines around a hit from its file as it is now: the
// first line in the hit's range that holds a highlighted word (else the
// range's first line), with before and after lines of context.
func (e *Engine) Excerpt(h Hit, before, after int) (*Excerpt, error) {
	if err := e.embeddedOnly("excerpts"); err != nil {
		return nil, err
	}
	if before < 0 || after < 0 {
		return nil, fmt.Errorf("%w: context %d/%d lines, want 0 or more", ErrBadOption, before, after)
	}
	c, err := e.nt.Get(h.ID)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimSuffix(string(bytes.ReplaceAll(c.Data, []byte("\r\n"), []byte("\n"))), "\n"), "\n")
	var words []string
	for _, r := range h.Highlights {
		if r.Start >= 0 && r.Start < r.End && r.End <= len(h.Snippet) {
			words = append(words, strings.ToLower(h.Snippet[r.Start:r.End]))
		}
	}
	first, last := max(1, h.Line.Start), min(len(lines), h.Line.End)
	focus := min(first, len(lines))
	for n := first; n <= last && len(words) > 0; n++ {
		l := strings.ToLower(lines[n-1])
		found := false
		for _, w := range words {
			found = found || strings.Contains(l, w)
		}
		if found {
			focus = n
			break
		}
	}
	lo, hi := max(1, focus-before), min(len(lines), focus+after)
	x := &Excerpt{Start: lo, Focus: focus, Lines: []string{}}
	if lo <= hi {
		x.Lines = lines[lo-1 : hi]
	}
	return x, nil
}
