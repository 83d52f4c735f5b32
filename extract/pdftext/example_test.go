package pdftext_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/braidsearch/braid/extract/pdftext"
	"github.com/braidsearch/braid/internal/formattest"
)

func ExampleRead() {
	data := formattest.Paper(2, map[int]string{2: "Wombats dig burrows."})
	d, err := pdftext.Read(context.Background(), data, pdftext.Limits{})
	if errors.Is(err, pdftext.ErrUnsupported) {
		fmt.Println("another reader must read it:", err)
		return
	}
	fmt.Printf("%q, %d pages\n", d.Title, len(d.Pages))
	fmt.Printf("%q\n", d.Pages[1])
	fmt.Println(d.Outline[1])
	// Output:
	// "The Paper", 2 pages
	// "This is page 2 of the paper.\nWombats dig burrows."
	// {0 Section 2 1}
}
