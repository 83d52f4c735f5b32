package braid_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/braidsearch/braid"
)

// The committed format-2 fixture predates the index's id, sessions and
// lineage: a reader finds none of them and still answers (an id derived
// from the directory, no sessions, a chunk's lineage from its current
// version); a writer adds them, and the first change of a document
// records the version before it from the chunks the store holds.
func TestSeedDataOnAnOlderIndex(t *testing.T) {
	dir := copyTree(t, fixtureDir)
	idx := filepath.Join(dir, "index")
	e, err := braid.Open(idx, &braid.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	org, err := e.Config().Organization(context.Background())
	if err != nil || len(org.ID) != 36 || org.Documents != 2 {
		t.Fatalf("organization of the fixture read-only: %+v, %v", org, err)
	}
	if l, err := e.Sources().Sessions().List(); err != nil || len(l) != 0 {
		t.Errorf("sessions of the fixture: %v, %v; want none", l, err)
	}
	d, err := e.Notes().Document("Sediment")
	if err != nil {
		t.Fatal(err)
	}
	old := d.ChunkIDs[0]
	l, err := e.Notes().Lineage(old)
	if err != nil || !l.Current || len(l.Versions) != 1 || len(l.Edges) != 0 || len(l.SameText) != 1 {
		t.Fatalf("lineage in the fixture read-only: %+v, %v; want its current version alone", l, err)
	}
	e.Close()

	// A writer gives the index an id of its own, which stays.
	id := func() string {
		t.Helper()
		e, err := braid.Open(idx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		o, err := e.Config().Organization(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return o.ID
	}
	first := id()
	if first == org.ID || len(first) != 36 {
		t.Errorf("id once a writer opened the fixture: %q, want a new UUID (the derived one was %s)", first, org.ID)
	}
	if again := id(); again != first {
		t.Errorf("id on the next open: %q, want %q", again, first)
	}
}
