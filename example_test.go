package braid_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/braidsearch/braid"
)

func Example() {
	notes, _ := os.MkdirTemp("", "notes")
	defer os.RemoveAll(notes)
	os.WriteFile(filepath.Join(notes, "Tea.md"), []byte("# Tea\n\nGreen tea is steeped at 80 degrees.\n"), 0o644)
	os.WriteFile(filepath.Join(notes, "Coffee.md"), []byte("# Coffee\n\nEspresso is brewed under pressure.\n"), 0o644)

	e, err := braid.Open(filepath.Join(notes, ".braid"), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer e.Close()
	ctx := context.Background()
	sum, _ := e.Index(ctx, []braid.SourceSpec{{Path: notes}}, nil)
	fmt.Println("added", sum.Added)

	res, _ := e.Search(ctx, "how hot for green tea", braid.SearchOptions{Limit: 1})
	h := res.Results[0]
	fmt.Printf("%s (%s, lines %d-%d): %s\n", h.Title, h.Path, h.Line.Start, h.Line.End, h.Snippet)
	// Output:
	// added 2
	// Tea (Tea.md, lines 1-3): # Tea  Green tea is steeped at 80 degrees.
}

// Ask gathers cited passages for a question, within a token budget; the
// caller writes the answer.
func ExampleEngine_Ask() {
	notes, _ := os.MkdirTemp("", "notes")
	defer os.RemoveAll(notes)
	os.WriteFile(filepath.Join(notes, "Tea.md"), []byte("# Tea\n\nGreen tea is steeped at 80 degrees.\nBlack tea takes boiling water.\n"), 0o644)
	os.WriteFile(filepath.Join(notes, "Kettle.md"), []byte("# Kettle\n\nThe kettle has a setting for green tea.\n"), 0o644)

	e, err := braid.Open(filepath.Join(notes, ".braid"), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer e.Close()
	ctx := context.Background()
	e.Index(ctx, []braid.SourceSpec{{Path: notes}}, nil)

	p, err := e.Ask(ctx, "how hot for green tea", braid.AskOptions{Budget: 200})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, d := range p.Documents {
		for _, ps := range d.Passages {
			fmt.Printf("%s\n%s\n", ps.Tag, ps.Text)
		}
	}
	fmt.Println(p.Tokens <= p.Budget)
	// Output:
	// [Tea](Tea.md#L1-L4)
	// # Tea
	//
	// Green tea is steeped at 80 degrees.
	// Black tea takes boiling water.
	// [Kettle](Kettle.md#L1-L3)
	// # Kettle
	//
	// The kettle has a setting for green tea.
	// true
}
