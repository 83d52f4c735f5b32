package extract_test

import (
	"context"
	"fmt"

	"github.com/braidsearch/braid/extract"
	"github.com/braidsearch/braid/internal/formattest"
)

func ExampleDOCX() {
	data := formattest.DOCX([]formattest.Para{
		{Style: "Heading1", Text: "Plan"},
		{Text: "# Ship in spring."},
	}, nil)
	d, err := extract.DOCX(context.Background(), data)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(string(d.Text))
	// Output:
	// # Plan
	//
	// \# Ship in spring.
	//
}

func ExamplePageOf() {
	pages := []int{1, 12, 30} // the lines pages 1, 2 and 3 start on
	fmt.Println(extract.PageOf(pages, 5), extract.PageOf(pages, 12), extract.PageOf(pages, 99))
	// Output: 1 2 3
}
