package graph_test

import (
	"fmt"
	"os"
	"path/filepath"

	bolt "go.etcd.io/bbolt"

	"github.com/braidsearch/braid/graph"
)

func Example() {
	dir, _ := os.MkdirTemp("", "graph-example-")
	defer os.RemoveAll(dir)
	db, _ := bolt.Open(filepath.Join(dir, "meta.db"), 0o644, nil)
	defer db.Close()

	_ = db.Update(func(tx *bolt.Tx) error {
		if err := graph.Init(tx); err != nil {
			return err
		}
		// Go Backend links its successor before that page exists.
		return graph.Put(tx, graph.Node{ID: "8", Path: "ADR/008 Go Backend.md"}, []graph.Edge{
			{Type: "supersededBy", Target: "ADR/010 Rust Backend", Line: 9},
			{Type: graph.Cites, Target: "Zef Hemel", Line: 5},
			{Type: graph.TaggedAs, Target: "adr"},
		})
	})
	_ = db.Update(func(tx *bolt.Tx) error {
		return graph.Put(tx, graph.Node{ID: "10", Path: "ADR/010 Rust Backend.md"}, nil)
	})
	_ = db.View(func(tx *bolt.Tx) error {
		r := graph.Read(tx)
		back, _ := r.In("10")
		for _, e := range back {
			fmt.Printf("%s ← %s (%s, line %d)\n", e.To, e.From, e.Type, e.Line)
		}
		broken, _ := r.Broken()
		for _, b := range broken {
			fmt.Printf("broken: %s:%d %s\n", b.Doc.Path, b.Line, b.Target)
		}
		return nil
	})
	// Output:
	// 10 ← 8 (supersededBy, line 9)
	// broken: ADR/008 Go Backend.md:5 Zef Hemel
}
