package docstore_test

import (
	"errors"
	"fmt"

	"github.com/braidsearch/braid/docstore"
)

func ExampleCleanName() {
	for _, name := range []string{" ./notes/idea.md ", "../etc/passwd", "a//b.md"} {
		n, err := docstore.CleanName(name)
		fmt.Printf("%q %q %v\n", name, n, errors.Is(err, docstore.ErrBadName))
	}
	// Output:
	// " ./notes/idea.md " "notes/idea.md" false
	// "../etc/passwd" "" true
	// "a//b.md" "" true
}

func ExampleParseMeta() {
	m, err := docstore.ParseMeta([]string{"status=open", "owner="})
	fmt.Println(m["status"], len(m), err)
	// Output: open 2 <nil>
}
