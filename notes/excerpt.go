package notes

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/braidsearch/braid/index"
)

// Excerpt is a few numbered lines of a document's current file.
type Excerpt struct {
	Start int      `json:"start"` // 1-based number of the first line
	Lines []string `json:"lines"`
	Focus int      `json:"focus"` // the line the excerpt is centred on
}

// Excerpt reads lines of document id from its file as it is now: the
// first line of at that holds one of words (a search hit's highlighted
// words; else at's first line), with before and after lines of context.
func (r *Reader) Excerpt(ctx context.Context, id string, at Lines, words []string, before, after int) (*Excerpt, error) {
	if err := r.embeddedOnly("excerpts"); err != nil {
		return nil, err
	}
	if before < 0 || after < 0 {
		return nil, fmt.Errorf("%w: context %d/%d lines, want 0 or more", index.ErrBadOption, before, after)
	}
	c, err := r.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimSuffix(string(bytes.ReplaceAll(c.Data, []byte("\r\n"), []byte("\n"))), "\n"), "\n")
	first, last := max(1, at.Start), min(len(lines), at.End)
	focus := min(first, len(lines))
	for n := first; n <= last && len(words) > 0; n++ {
		l := strings.ToLower(lines[n-1])
		found := false
		for _, w := range words {
			found = found || strings.Contains(l, strings.ToLower(w))
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

// Slice is the text of lines at.Start to at.End of the content (1-based,
// inclusive, each with its line ending; an End of 0 or past the last line
// means to the end) and the lines it holds, and total, the number of
// lines in the content. When at.Start is past the last line, text is
// empty and got the zero Lines.
func (c *Content) Slice(at Lines) (text string, got Lines, total int) {
	lines := bytes.SplitAfter(c.Data, []byte("\n"))
	if n := len(lines); n > 0 && len(lines[n-1]) == 0 {
		lines = lines[:n-1]
	}
	total = len(lines)
	start, end := max(at.Start, 1), at.End
	if end == 0 || end > total {
		end = total
	}
	if start > total {
		return "", Lines{}, total
	}
	return string(bytes.Join(lines[start-1:end], nil)), Lines{Start: start, End: end}, total
}
