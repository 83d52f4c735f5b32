package cli

import (
	"fmt"

	"github.com/braidsearch/braid"
)

// AskCmd prints the evidence for a question: cited passages within a token
// budget, for an agent (or a person) to write the answer from.
type AskCmd struct {
	Question     string   `arg:"" help:"The question, in words (a search query: \"quoted phrases\" must appear, -word excludes; at most 4 KiB)."`
	Budget       int      `help:"Tokens the passages and their citations may take, 100..16000 (counted as the chunker counts: about 4 bytes of English a token)." default:"2000" placeholder:"TOKENS"`
	Source       []string `help:"Only this source (id or name; repeatable)." placeholder:"SOURCE"`
	Path         string   `help:"Only documents whose path (relative to its source) matches this glob." placeholder:"GLOB"`
	Tag          []string `help:"Only documents with this tag (repeatable: all must match)." placeholder:"TAG"`
	VectorWeight *float64 `help:"Weight of vector similarity against BM25, 0..1 (default as braid search)." placeholder:"W"`
	NoRerank     bool     `help:"Skip the cross-encoder." xor:"rerank"`
	Rerank       bool     `help:"Rerank with the cross-encoder, as ask does by default when one is installed, and warn when none can be loaded." xor:"rerank"`
}

// Run searches and prints the pack: markdown, or the Pack with --json.
func (c *AskCmd) Run(g *Globals) error {
	if c.Budget < braid.MinAskBudget || c.Budget > braid.MaxAskBudget {
		return fmt.Errorf("--budget %d tokens out of range, want %d..%d", c.Budget, braid.MinAskBudget, braid.MaxAskBudget)
	}
	opt := braid.AskOptions{Budget: c.Budget, Sources: c.Source, PathGlob: c.Path, Tags: c.Tag, VectorWeight: c.VectorWeight, NoRerank: c.NoRerank, Rerank: c.Rerank}
	e, done, err := g.openSearch(braid.SearchOptions{VectorWeight: c.VectorWeight, NoRerank: c.NoRerank})
	if err != nil {
		return err
	}
	defer done()
	p, err := e.Ask(g.ctx, c.Question, opt)
	if err != nil {
		return err
	}
	if p.Warning != "" {
		g.warn("%s", p.Warning)
	}
	return g.print(p, p.Text)
}
