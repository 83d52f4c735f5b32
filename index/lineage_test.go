package index

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	bolt "go.etcd.io/bbolt"

	"github.com/braidsearch/braid/chunk"
)

func TestDerive(t *testing.T) {
	for _, c := range []struct {
		name      string
		old, next []string
		want      [][]int
	}{
		{"same", []string{"## A\nline one\nline two", "## B\nline three"}, []string{"## A\nline one\nline two", "## B\nline three"},
			[][]int{{0}, {1}}},
		{"split", []string{"## A\nline one\nline two\nline three\nline four"}, []string{"## A\nline one\nline two", "## C\nline three\nline four"},
			[][]int{{0}, {0}}},
		{"merge", []string{"## A\nline one\nline two", "## C\nline three\nline four"}, []string{"## A\nline one\nline two\nline three\nline four"},
			[][]int{{0, 1}}},
		{"new text", []string{"## A\nline one"}, []string{"## Z\nsomething else entirely"}, [][]int{nil}},
		// A neighbour's overlap (one shared line of four) is no parent.
		{"overlap", []string{"## A\nline one\nline two\nline three", "line three\nline four\nline five\nline six"},
			[]string{"## A\nline one\nline two\nline three\nline 3b"}, [][]int{{0}}},
		{"short lines ignored", []string{"---\n\nab\nline one"}, []string{"---\nab\nline two"}, [][]int{nil}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if d := cmp.Diff(c.want, Derive(c.old, c.next)); d != "" {
				t.Errorf("Derive (-want +got):\n%s", d)
			}
		})
	}
}

// The lineage keeps a document's last LineageVersions versions, one per
// content, written with the commit; deleting the document drops it.
func TestLineageKeepsLastVersions(t *testing.T) {
	s, err := OpenStore(filepath.Join(t.TempDir(), "meta.db"), false)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	commit := func(changes ...Change) {
		t.Helper()
		p, err := s.Commit(changes)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.ClearPending(p.Gen); err != nil {
			t.Fatal(err)
		}
	}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	version := func(i int) Change {
		text := fmt.Sprintf("## Note\nversion %d of the text", i)
		hash := fmt.Sprintf("%064x", i+1)
		d := &Document{ID: "doc1", SourceID: "src", Path: "n.md", Kind: KindMarkdown, Hash: hash, IndexedAt: base.Add(time.Duration(i) * time.Hour)}
		return Change{Doc: d, Chunks: []Chunk{{ID: chunk.ID("doc1", hash, 0), DocID: "doc1", Text: text}}}
	}
	for i := range 10 {
		commit(version(i))
	}
	commit(version(9)) // the same content again adds no version
	vs, err := s.Lineage("doc1")
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != LineageVersions || vs[0].Hash != fmt.Sprintf("%064x", 3) || vs[len(vs)-1].Hash != fmt.Sprintf("%064x", 10) {
		t.Fatalf("lineage: %d versions from %s to %s, want %d, the last ones", len(vs), vs[0].Hash[60:], vs[len(vs)-1].Hash[60:], LineageVersions)
	}
	if last := vs[len(vs)-1]; !last.Time.Equal(base.Add(9*time.Hour)) || !cmp.Equal(last.Chunks[0].From, []int{0}) {
		t.Errorf("last version: %+v, want its time and its chunk derived from the one before", last)
	}
	commit(Change{DeleteID: "doc1"})
	if vs, err := s.Lineage("doc1"); err != nil || vs != nil {
		t.Errorf("lineage after delete: %v, %v; want none", vs, err)
	}
}

// A store whose lineage bucket is missing (an index from before lineage)
// records, at a document's first change, the version before it from the
// chunks it still holds.
func TestLineageOnAnOlderStore(t *testing.T) {
	s, err := OpenStore(filepath.Join(t.TempDir(), "meta.db"), false)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	commit := func(hash, text string) {
		t.Helper()
		d := &Document{ID: "doc1", SourceID: "src", Path: "n.md", Kind: KindMarkdown, Hash: hash}
		p, err := s.Commit([]Change{{Doc: d, Chunks: []Chunk{{ID: chunk.ID("doc1", hash, 0), DocID: "doc1", Text: text}}}})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.ClearPending(p.Gen); err != nil {
			t.Fatal(err)
		}
	}
	commit(fmt.Sprintf("%064x", 1), "## Note\nthe first text")
	if err := s.update(func(tx *bolt.Tx) error { return tx.DeleteBucket(bucketLineage) }); err != nil {
		t.Fatal(err)
	}
	if vs, err := s.Lineage("doc1"); err != nil || vs != nil {
		t.Fatalf("lineage without its bucket: %v, %v; want none", vs, err)
	}
	commit(fmt.Sprintf("%064x", 2), "## Note\nthe second text")
	vs, err := s.Lineage("doc1")
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 2 || vs[0].Hash != fmt.Sprintf("%064x", 1) || vs[0].Chunks[0].Hash != ChunkTextHash("## Note\nthe first text") ||
		!cmp.Equal(vs[1].Chunks[0].From, []int{0}) {
		t.Errorf("lineage after the first change: %+v, want the version before from the store, then the new one derived from it", vs)
	}
}
