package vector_test

import (
	"fmt"

	"github.com/braidsearch/braid/vector"
)

func Example() {
	x := vector.New(3, nil)
	x.Add("apples", []float32{1, 0, 0})
	x.Add("pears", []float32{0.8, 0.6, 0})
	x.Add("engines", []float32{0, 0, 1})
	x.Delete("engines")

	hits, err := x.Search([]float32{2, 1, 0}, 5) // normalised on the way in
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, h := range hits {
		fmt.Printf("%s %.3f\n", h.ID, h.Score)
	}
	_, err = x.Search([]float32{1, 0}, 5)
	fmt.Println(err)
	// Output:
	// pears 0.984
	// apples 0.894
	// vector: wrong dimension: got 2 values, want 3
}
