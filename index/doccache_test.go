package index

import (
	"context"
	"testing"
)

// SharedDocs decodes a document once and hands the same one out while its
// record is unchanged; a rewritten record (a new title) or a deleted one
// is read afresh, never served from the cache.
func TestSharedDocsFollowRecords(t *testing.T) {
	st, lex := openPair(t, t.TempDir())
	defer st.Close()
	defer lex.Close()
	ix := &Indexer{Store: st, Lexical: lex}
	ctx := context.Background()
	if err := ix.commit(ctx, []Change{change("a", "aaaaaaaa11", "one"), change("b", "bbbbbbbb11", "two")}); err != nil {
		t.Fatal(err)
	}
	first, err := st.SharedDocs([]string{"a", "nope", "b"})
	if err != nil {
		t.Fatal(err)
	}
	if first[0] == nil || first[0].Title != "a" || first[1] != nil || first[2] == nil || first[2].Title != "b" {
		t.Fatalf("SharedDocs(a, nope, b) = %+v", first)
	}
	again, err := st.SharedDocs([]string{"a"})
	if err != nil {
		t.Fatal(err)
	}
	if again[0] != first[0] {
		t.Error("a second read of an unchanged record decoded it again; want the cached document")
	}
	c := change("a", "cccccccc22", "three")
	c.Doc.Title = "a, retitled"
	if err := ix.commit(ctx, []Change{c, {DeleteID: "b"}}); err != nil {
		t.Fatal(err)
	}
	after, err := st.SharedDocs([]string{"a", "b"})
	if err != nil {
		t.Fatal(err)
	}
	if after[0] == nil || after[0].Title != "a, retitled" || after[0].Hash != "cccccccc22" {
		t.Errorf("after a rewrite SharedDocs(a) = %+v, want the new record", after[0])
	}
	if after[1] != nil {
		t.Errorf("after a delete SharedDocs(b) = %+v, want nil", after[1])
	}
	if d, err := st.Doc("a"); err != nil || d == after[0] {
		t.Errorf("Doc(a) = %p, %v: want a document of the caller's own, not the shared one", d, err)
	}
}
