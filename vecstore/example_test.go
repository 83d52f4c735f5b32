package vecstore_test

import (
	"fmt"
	"path/filepath"

	"github.com/braidsearch/braid/vecstore"
)

// Each embedding model has its own graph file in the index directory.
func ExampleFile() {
	fmt.Println(filepath.Base(vecstore.File("/srv/notes/.braid", "bge-small-en-v1.5")))
	fmt.Println(filepath.Base(vecstore.File("/srv/notes/.braid", "nomic-embed-text-v1.5")))
	// Output:
	// vectors-8753cc61.hnsw
	// vectors-b2c7ba5e.hnsw
}

// Nearest finds, for each vector, its k nearest by cosine, best first; a
// vector is its own nearest.
func ExampleNearest() {
	vecs := [][]float32{{1, 0}, {0.9, 0.1}, {0, 1}}
	near, err := vecstore.Nearest(vecs, 2)
	if err != nil {
		panic(err)
	}
	for i, ns := range near {
		fmt.Println(i, "->", ns[0].Index, ns[1].Index)
	}
	// Output:
	// 0 -> 0 1
	// 1 -> 1 0
	// 2 -> 2 1
}
