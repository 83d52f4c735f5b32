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
