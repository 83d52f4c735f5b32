package evidence

import (
	"context"
	"fmt"
	"strings"

	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/notes"
)

// Budgets, in tokens as chunk.Count counts them.
const (
	DefaultBudget = 2000
	MinBudget     = 100
	MaxBudget     = 16000
)

const (
	// minPassageTokens is the least text worth a cut passage and its
	// citation; a budget left smaller than this ends the pack.
	minPassageTokens = 24
	// dupSimilarity is the Jaccard similarity of two passages' word
	// trigrams from which the later one is a duplicate of the earlier.
	dupSimilarity = 0.8
)

// Budget is the budget a request for n tokens gets: DefaultBudget for
// zero, n itself within MinBudget..MaxBudget, and otherwise an error
// wrapping index.ErrBadOption.
func Budget(n int) (int, error) {
	if n == 0 {
		return DefaultBudget, nil
	}
	if n < MinBudget || n > MaxBudget {
		return 0, budgetError(n)
	}
	return n, nil
}

func budgetError(n int) error {
	return fmt.Errorf("%w: budget %d tokens out of range, want %d..%d", index.ErrBadOption, n, MinBudget, MaxBudget)
}

// Hit is one search hit, in rank order among the hits handed to Fill.
type Hit struct {
	ChunkID string // a hit without one (a document hit) is skipped
	Score   float64
	// Words are the words the hit's snippet highlights; a passage cut to
	// fit is cut around the first line that holds one.
	Words []string
}

// Reader is how Fill reads what the hits name; the engine supplies both.
type Reader struct {
	// Chunk reads a chunk by id: nil and no error when it is gone (the
	// document was re-indexed since the search).
	Chunk func(ctx context.Context, id string) (*index.Chunk, error)
	// Cite cites a chunk as notes.Reader.Cite does; an error wrapping
	// index.ErrNotFound skips the hit.
	Cite func(ctx context.Context, chunkID string) (*notes.Citation, error)
}

// Pack is the evidence found for a question: passages grouped by
// document, documents in the order of their best passage's rank, passages
// in line order within a document. braid writes no answer: the caller
// reads the passages and cites their tags.
type Pack struct {
	Question  string     `json:"question"`
	Budget    int        `json:"budget"`
	Tokens    int        `json:"tokens"` // taken of Budget
	Documents []Document `json:"documents"`
	Passages  int        `json:"passages"`
	// Considered is how many chunks the search returned; Dropped says why
	// the ones not in the pack were left out.
	Considered int     `json:"considered"`
	Dropped    Dropped `json:"dropped"`
	// Warning repeats the search's warning (for example no embedding model,
	// so the search ran on keywords alone) and says when nothing matched.
	Warning string  `json:"warning,omitempty"`
	TookMS  float64 `json:"took_ms"`
}

// Dropped counts the candidate chunks left out of a pack, by reason.
type Dropped struct {
	Overlap   int `json:"overlap"`     // every line already in a passage of the same document
	Duplicate int `json:"duplicate"`   // near-identical to a better-ranked passage (listed in its duplicates)
	Budget    int `json:"over_budget"` // no room left, even cut
}

// Document is one document's passages in a Pack.
type Document struct {
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

// Fill packs the hits, best first, into budget tokens (as Budget
// returns it): it drops hits that repeat lines of a better one in the
// same document and near-duplicates of a better one anywhere, and cuts a
// chunk around its best-matching lines when it does not fit whole. It
// sets every field of the Pack but Question, Warning and TookMS, which
// are the caller's.
func Fill(ctx context.Context, hits []Hit, budget int, r Reader) (*Pack, error) {
	if budget < MinBudget || budget > MaxBudget {
		return nil, budgetError(budget)
	}
	f := filler{r: r, room: budget}
	for rank, h := range hits {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if f.room < minPassageTokens {
			f.dropped.Budget += len(hits) - rank
			break
		}
		if err := f.add(ctx, h, rank+1); err != nil {
			return nil, err
		}
	}
	p := f.pack()
	p.Budget, p.Tokens, p.Considered = budget, budget-f.room, len(hits)
	return p, nil
}

// Text is the pack as markdown, as braid ask prints it: a line of counts,
// then each document's passages under its title, each with its tag and
// headings, quoted, and the passages it stands for.
func (p *Pack) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s from %s, %d of %d tokens; braid writes no answer: read the passages and cite their tags.\n",
		counted(p.Passages, "passage"), counted(len(p.Documents), "document"), p.Tokens, p.Budget)
	for _, d := range p.Documents {
		fmt.Fprintf(&b, "\n## %s (%s)\n", d.Title, d.Path)
		for _, ps := range d.Passages {
			head := ps.Tag
			if len(ps.HeadingPath) > 0 {
				head += "  § " + strings.Join(ps.HeadingPath, " › ")
			}
			fmt.Fprintf(&b, "\n%s\n", head)
			for _, l := range strings.Split(ps.Text, "\n") {
				b.WriteString(strings.TrimRight("> "+l, " ") + "\n")
			}
			if len(ps.Duplicates) > 0 {
				fmt.Fprintf(&b, "also in: %s\n", strings.Join(ps.Duplicates, ", "))
			}
		}
	}
	return b.String()
}

// counted is n with noun, in the plural unless n is 1: "1 document",
// "3 documents".
func counted(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
