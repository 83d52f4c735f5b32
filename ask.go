package braid

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/braidsearch/braid/chunk"
	"github.com/braidsearch/braid/index"
)

// Ask budgets, in tokens as chunk.Count counts them.
const (
	DefaultAskBudget = 2000
	MinAskBudget     = 100
	MaxAskBudget     = 16000
)

const (
	// askCandidates is how many chunks Ask asks Search for: the reranker's
	// window, so every candidate can be reranked.
	askCandidates = DefaultRerankTop
	// minPassageTokens is the least text worth a cut passage and its
	// citation; a budget left smaller than this ends the pack.
	minPassageTokens = 24
	// dupSimilarity is the Jaccard similarity of two passages' word
	// trigrams from which the later one is a duplicate of the earlier.
	dupSimilarity = 0.8
)

// ErrEmptyIndex means the index holds no documents, so there is nothing
// to search.
var ErrEmptyIndex = errors.New("braid: the index holds no documents yet; run braid index PATH first")

// AskOptions shapes Ask. The zero value fills DefaultAskBudget tokens from
// every source, searching as Search does by default.
type AskOptions struct {
	// Budget is the most tokens the pack's passages may take: their text and
	// their citation tags (also the tags of duplicates they stand for),
	// counted with chunk.Count, which estimates a BERT WordPiece tokenizer
	// (English prose: about 4 bytes a token; it over-counts prose by ~7%).
	// The JSON around them is not counted. Zero means DefaultAskBudget;
	// otherwise it must be MinAskBudget..MaxAskBudget.
	Budget int
	// Sources, PathGlob and Tags filter the documents as in SearchOptions.
	Sources  []string
	PathGlob string
	Tags     []string
	// VectorWeight is as in SearchOptions; nil means Search's default.
	VectorWeight *float64
	// NoRerank skips the cross-encoder.
	NoRerank bool
}

// Pack is the evidence Ask found for a question: passages grouped by
// document, documents in the order of their best passage's rank, passages
// in line order within a document. braid writes no answer: the caller
// reads the passages and cites their tags.
type Pack struct {
	Question  string         `json:"question"`
	Budget    int            `json:"budget"`
	Tokens    int            `json:"tokens"` // taken of Budget
	Documents []PackDocument `json:"documents"`
	Passages  int            `json:"passages"`
	// Considered is how many chunks the search returned; Dropped says why
	// the ones not in the pack were left out.
	Considered int     `json:"considered"`
	Dropped    Dropped `json:"dropped"`
	// Warning repeats the search's warning (for example no embedding model,
	// so the search ran on keywords alone) and says when nothing matched.
	Warning string  `json:"warning,omitempty"`
	TookMS  float64 `json:"took_ms"`
}

// Dropped counts the candidate chunks Ask left out, by reason.
type Dropped struct {
	Overlap   int `json:"overlap"`     // every line already in a passage of the same document
	Duplicate int `json:"duplicate"`   // near-identical to a better-ranked passage (listed in its duplicates)
	Budget    int `json:"over_budget"` // no room left, even cut
}

// PackDocument is one document's passages in a Pack.
type PackDocument struct {
	Document string    `json:"document"` // its id
	Title    string    `json:"title"`
	Path     string    `json:"path"`           // relative to its source
	File     string    `json:"file,omitempty"` // absolute, when it has one
	Passages []Passage `json:"passages"`
}

// Passage is a piece of a chunk with its citation.
type Passage struct {
	ChunkID     string   `json:"chunk_id"`
	Rank        int      `json:"rank"` // 1-based, among the chunks the search returned
	Score       float64  `json:"score"`
	HeadingPath []string `json:"heading_path,omitempty"`
	// StartLine and EndLine are the lines of Text in the document's file, as
	// Cite gives them (a BEIR record's passages keep the record's line).
	StartLine int `json:"start_line"`
	EndLine   int `json:"end_line"`
	// Tag is the citation as Cite makes it, [Title](path#L12-L30), for the
	// lines of Text.
	Tag  string `json:"tag"`
	Text string `json:"text"`
	// Tokens is what the passage takes of the budget: chunk.Count of Tag,
	// Text and the Duplicates' tags.
	Tokens int `json:"tokens"`
	// Cut says Text is a part of the chunk, around its best-matching line,
	// to fit the budget or to leave out lines another passage holds.
	Cut bool `json:"cut,omitempty"`
	// Duplicates are the tags of near-identical passages in other places,
	// left out of the pack: the same text, cited elsewhere.
	Duplicates []string `json:"duplicates,omitempty"`
}

// Ask gathers the evidence for a question: it searches (hybrid, as Search
// does, filters included) for the best chunks across the index, drops
// chunks that repeat lines of a better one in the same document and
// near-duplicates of a better one anywhere, and fills opt.Budget tokens
// with the rest in rank order, cutting a chunk around its best-matching
// lines when it does not fit whole. It runs no language model: the caller
// writes the answer from the passages and cites their tags.
//
// The question is a search query (at most 4 KiB; quoted phrases must
// appear, -word excludes). An index without documents is ErrEmptyIndex;
// a question nothing matches is a Pack without passages and a Warning.
func (e *Engine) Ask(ctx context.Context, question string, opt AskOptions) (*Pack, error) {
	start := time.Now()
	budget := opt.Budget
	if budget == 0 {
		budget = DefaultAskBudget
	}
	if budget < MinAskBudget || budget > MaxAskBudget {
		return nil, fmt.Errorf("%w: budget %d tokens out of range, want %d..%d", ErrBadOption, opt.Budget, MinAskBudget, MaxAskBudget)
	}
	if _, err := index.ParseQuery(question); err != nil {
		return nil, err
	}
	if err := e.mirrored(); err != nil {
		return nil, err
	}
	if docs, _, err := e.st.Counts(); err != nil {
		return nil, err
	} else if docs == 0 {
		return nil, ErrEmptyIndex
	}
	res, err := e.Search(ctx, question, SearchOptions{Limit: askCandidates, Chunks: true, VectorWeight: opt.VectorWeight,
		Sources: opt.Sources, PathGlob: opt.PathGlob, Tags: opt.Tags, NoRerank: opt.NoRerank})
	if err != nil {
		return nil, err
	}
	f := filler{e: e, room: budget}
	for rank, h := range res.Results {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if f.room < minPassageTokens {
			f.dropped.Budget += len(res.Results) - rank
			break
		}
		if err := f.add(h, rank+1); err != nil {
			return nil, err
		}
	}
	p := f.pack()
	p.Question, p.Budget, p.Tokens = question, budget, budget-f.room
	p.Considered, p.Warning = len(res.Results), res.Warning
	if len(res.Results) == 0 {
		p.Warning = joinWarnings(p.Warning, "no passage matches the question; try other words, fewer filters, or a search with fuzzy")
	}
	p.TookMS = msSince(start)
	return p, nil
}

// filler packs passages into a budget, in the order they are added.
type filler struct {
	e       *Engine
	room    int // tokens left
	picks   []*pick
	dropped Dropped
}

// pick is a passage taken, with what later candidates are checked against.
type pick struct {
	Passage
	doc      *Document
	file     string
	lo, hi   int // the chunk lines Text holds
	shingles map[string]bool
}

// add considers the search hit ranked rank.
func (f *filler) add(h Hit, rank int) error {
	if h.ChunkID == "" {
		return nil
	}
	c, err := f.e.chunkByID(h.ChunkID)
	if err != nil {
		return err
	}
	if c == nil {
		return nil // re-indexed since the search
	}
	sh := shingles(c.Text)
	ct, err := f.e.nt.Cite(c.ID)
	if err != nil {
		if errors.Is(err, ErrNotFound) {
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
		text, a, b, ok = fit(kept, focus(kept, h), f.room, func(a, b int) int { return chunk.Count(tag(lo+a, lo+b)) })
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
		doc: &Document{ID: ct.Document, Title: ct.Title, Path: ct.Path}, file: ct.File, lo: lo, hi: hi, shingles: sh}
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
func (f *filler) free(c *Chunk) (lo, hi int, ok bool) {
	lo, hi = c.StartLine, c.EndLine
	for changed := true; changed; {
		changed = false
		for _, p := range f.picks {
			if p.doc.ID != c.DocID || p.hi < lo || p.lo > hi {
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

// focus is the index of the first line that holds a word the hit's
// snippet highlights, or 0.
func focus(lines []string, h Hit) int {
	var words []string
	for _, r := range h.Highlights {
		if r.Start >= 0 && r.Start < r.End && r.End <= len(h.Snippet) {
			words = append(words, strings.ToLower(h.Snippet[r.Start:r.End]))
		}
	}
	for i, l := range lines {
		l = strings.ToLower(l)
		for _, w := range words {
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
	p := &Pack{Documents: []PackDocument{}, Dropped: f.dropped}
	at := map[string]int{}
	for _, k := range f.picks {
		i, ok := at[k.doc.ID]
		if !ok {
			i = len(p.Documents)
			at[k.doc.ID] = i
			p.Documents = append(p.Documents, PackDocument{Document: k.doc.ID, Title: k.doc.Title, Path: k.doc.Path, File: k.file})
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
