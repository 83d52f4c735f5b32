package evidence

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/braidsearch/braid/chunk"
	"github.com/braidsearch/braid/index"
)

// filler packs passages into a budget, in the order they are added.
type filler struct {
	r       Reader
	room    int // tokens left
	picks   []*pick
	dropped Dropped
}

// pick is a passage taken, with what later candidates are checked against.
type pick struct {
	Passage
	doc      Document // its id, title, path and file; no passages
	lo, hi   int      // the chunk lines Text holds
	shingles map[string]bool
}

// add considers the hit ranked rank.
func (f *filler) add(ctx context.Context, h Hit, rank int) error {
	if h.ChunkID == "" {
		return nil
	}
	c, err := f.r.Chunk(ctx, h.ChunkID)
	if err != nil {
		return err
	}
	if c == nil {
		return nil // re-indexed since the search
	}
	sh := shingles(c.Text)
	ct, err := f.r.Cite(ctx, c.ID)
	if err != nil {
		if errors.Is(err, index.ErrNotFound) {
			return nil
		}
		return err
	}
	for _, p := range f.picks {
		if similarity(sh, p.shingles) >= dupSimilarity {
			f.dropped.Duplicate++
			if cost := chunk.Count(ct.Tag); cost <= f.room && !slices.Contains(p.Duplicates, ct.Tag) && ct.Tag != p.Tag {
				p.Duplicates = append(p.Duplicates, ct.Tag)
				p.Tokens += cost
				f.room -= cost
			}
			return nil
		}
	}
	lines := strings.Split(c.Text, "\n")
	// Text's lines are the file's StartLine..EndLine; should a chunk say
	// otherwise, it is kept whole or not at all.
	mapped := c.StartLine+len(lines)-1 == c.EndLine
	lo, hi, ok := f.free(c)
	if !ok || !mapped && (lo != c.StartLine || hi != c.EndLine) {
		f.dropped.Overlap++
		return nil
	}
	kept := lines
	if mapped {
		kept = lines[lo-c.StartLine : hi-c.StartLine+1]
	}
	// A BEIR record cites the record's line, not the chunk's: its tag
	// does not change with the lines kept.
	byLine := mapped && ct.StartLine == c.StartLine && ct.EndLine == c.EndLine
	tag := func(a, b int) string {
		if !byLine {
			return ct.Tag
		}
		return retag(ct.Tag, a, b)
	}
	text := strings.Join(kept, "\n")
	cut := lo != c.StartLine || hi != c.EndLine
	if cost := chunk.Count(tag(lo, hi)) + chunk.Count(text); cost > f.room {
		var a, b int
		text, a, b, ok = fit(kept, focus(kept, h.Words), f.room, func(a, b int) int { return chunk.Count(tag(lo+a, lo+b)) })
		if !ok {
			f.dropped.Budget++
			return nil
		}
		if mapped {
			lo, hi = lo+a, lo+b
		}
		cut = true
	}
	if strings.TrimSpace(text) == "" {
		f.dropped.Overlap++
		return nil
	}
	p := &pick{Passage: Passage{ChunkID: c.ID, Rank: rank, Score: h.Score, HeadingPath: c.HeadingPath,
		StartLine: ct.StartLine, EndLine: ct.EndLine, Tag: tag(lo, hi), Text: text, Cut: cut},
		doc: Document{Document: ct.Document, Title: ct.Title, Path: ct.Path, File: ct.File}, lo: lo, hi: hi, shingles: sh}
	if byLine {
		p.StartLine, p.EndLine = lo, hi
	}
	p.Tokens = chunk.Count(p.Tag) + chunk.Count(p.Text)
	f.room -= p.Tokens
	f.picks = append(f.picks, p)
	return nil
}

// free returns the lines of chunk c that no passage of its document
// holds yet: all of them, or the longest run left at one end. ok is false
// when none are left.
func (f *filler) free(c *index.Chunk) (lo, hi int, ok bool) {
	lo, hi = c.StartLine, c.EndLine
	for changed := true; changed; {
		changed = false
		for _, p := range f.picks {
			if p.doc.Document != c.DocID || p.hi < lo || p.lo > hi {
				continue
			}
			changed = true
			switch {
			case p.lo <= lo && hi <= p.hi:
				return 0, 0, false
			case p.lo <= lo:
				lo = p.hi + 1
			case hi <= p.hi:
				hi = p.lo - 1
			case p.lo-lo >= hi-p.hi: // p inside: keep the longer side
				hi = p.lo - 1
			default:
				lo = p.hi + 1
			}
		}
	}
	return lo, hi, true
}

// focus is the index of the first line that holds one of words (case
// aside), or 0.
func focus(lines []string, words []string) int {
	lower := make([]string, len(words))
	for i, w := range words {
		lower[i] = strings.ToLower(w)
	}
	for i, l := range lines {
		l = strings.ToLower(l)
		for _, w := range lower {
			if strings.Contains(l, w) {
				return i
			}
		}
	}
	return 0
}

// fit chooses the lines around lines[at] that fit in room tokens with
// their tag (tagCost of the first and last index), growing the window a
// line after, then a line before, while it fits. A focus line too long on
// its own is cut at a word. ok is false when less than minPassageTokens of
// text fits.
func fit(lines []string, at, room int, tagCost func(a, b int) int) (text string, a, b int, ok bool) {
	cost := func(a, b int) int { return tagCost(a, b) + chunk.Count(strings.Join(lines[a:b+1], "\n")) }
	a, b = at, at
	if cost(a, b) > room {
		words := strings.Fields(lines[at])
		left := room - tagCost(a, b)
		n := 0
		for n < len(words) && chunk.Count(strings.Join(words[:n+1], " ")) <= left {
			n++
		}
		text = strings.Join(words[:n], " ")
		if chunk.Count(text) < minPassageTokens {
			return "", 0, 0, false
		}
		return text, a, b, true
	}
	for grown := true; grown; {
		grown = false
		if b+1 < len(lines) && cost(a, b+1) <= room {
			b++
			grown = true
		}
		if a > 0 && cost(a-1, b) <= room {
			a--
			grown = true
		}
	}
	text = strings.Join(lines[a:b+1], "\n")
	if chunk.Count(text) < minPassageTokens {
		return "", 0, 0, false
	}
	return text, a, b, true
}

// retag rewrites a citation tag's line anchor (#L12-L30) for lines a..b.
func retag(tag string, a, b int) string {
	i := strings.LastIndex(tag, "#L")
	if i < 0 {
		return tag
	}
	anchor := fmt.Sprintf("#L%d", a)
	if b > a {
		anchor += fmt.Sprintf("-L%d", b)
	}
	return tag[:i] + anchor + ")"
}

// pack groups the picks by document, documents in the order of their
// first (best-ranked) pick, passages in line order.
func (f *filler) pack() *Pack {
	p := &Pack{Documents: []Document{}, Dropped: f.dropped}
	at := map[string]int{}
	for _, k := range f.picks {
		i, ok := at[k.doc.Document]
		if !ok {
			i = len(p.Documents)
			at[k.doc.Document] = i
			p.Documents = append(p.Documents, k.doc)
		}
		p.Documents[i].Passages = append(p.Documents[i].Passages, k.Passage)
		p.Passages++
	}
	for i := range p.Documents {
		slices.SortFunc(p.Documents[i].Passages, func(x, y Passage) int { return x.StartLine - y.StartLine })
	}
	return p
}

// shingles are the word trigrams of text, lower-cased, letters and digits
// only; a text of fewer than three words is one shingle.
func shingles(text string) map[string]bool {
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	out := map[string]bool{}
	if len(words) < 3 {
		out[strings.Join(words, " ")] = true
		return out
	}
	for i := 0; i+3 <= len(words); i++ {
		out[strings.Join(words[i:i+3], " ")] = true
	}
	return out
}

// similarity is the Jaccard similarity of two shingle sets.
func similarity(a, b map[string]bool) float64 {
	if len(a) > len(b) {
		a, b = b, a
	}
	both := 0
	for s := range a {
		if b[s] {
			both++
		}
	}
	union := len(a) + len(b) - both
	if union == 0 {
		return 1
	}
	return float64(both) / float64(union)
}
