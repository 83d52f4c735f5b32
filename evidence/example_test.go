package evidence_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/braidsearch/braid/evidence"
	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/notes"
)

// Two hits on the same note whose chunks share a line: the second
// passage keeps only the lines the first does not hold, and its tag
// cites them.
func ExampleFill() {
	text := []string{
		"# Solar",
		"Panels turn sunlight into direct current.",
		"An inverter makes alternating current of it.",
		"Batteries keep the charge for the night.",
	}
	chunks := map[string]*index.Chunk{
		"c1": {ID: "c1", DocID: "d1", Text: strings.Join(text[0:3], "\n"), StartLine: 1, EndLine: 3},
		"c2": {ID: "c2", DocID: "d1", Text: strings.Join(text[2:4], "\n"), StartLine: 3, EndLine: 4},
	}
	r := evidence.Reader{
		Chunk: func(_ context.Context, id string) (*index.Chunk, error) { return chunks[id], nil },
		Cite: func(_ context.Context, id string) (*notes.Citation, error) {
			c := chunks[id]
			return &notes.Citation{ChunkID: id, Document: c.DocID, Title: "Solar", Path: "solar.md",
				StartLine: c.StartLine, EndLine: c.EndLine, Tag: fmt.Sprintf("[Solar](solar.md#L%d-L%d)", c.StartLine, c.EndLine)}, nil
		},
	}
	p, err := evidence.Fill(context.Background(), []evidence.Hit{{ChunkID: "c1"}, {ChunkID: "c2"}}, evidence.DefaultBudget, r)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, d := range p.Documents {
		for _, ps := range d.Passages {
			fmt.Println(ps.Tag, ps.Cut)
		}
	}
	fmt.Println(p.Passages, "passages,", p.Tokens, "tokens")
	// Output:
	// [Solar](solar.md#L1-L3) false
	// [Solar](solar.md#L4) true
	// 2 passages, 56 tokens
}
